package dev.appliance.s3.testing;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Records every report of Netty's leak detector in this test JVM, so that tests fail on leaked buffers.
 *
 * <p>{@link #install()} must run before any Netty buffer class loads: a detector is made once per resource type, when
 * that type's class initialises. {@link NettyLeakSessionListener} installs it when the JUnit launcher session opens,
 * before any test class is even discovered, so the test order does not matter; the JVM also runs with
 * {@code -Dio.netty.leakDetection.level=paranoid} (the parent pom's {@code surefire.argLine}), so every buffer is
 * tracked.
 *
 * <p>{@link #detect()} proves each time that detection works: it leaks a marked canary buffer and collects garbage
 * until the canary is reported, and fails if it never is (the detector was not installed in time). Leaks of anything
 * that became unreachable before that collection are reported along with it.
 */
public final class NettyLeaks {
    /** Leaks whose hint starts with this are made on purpose (canaries, self-tests): recorded but not logged. */
    public static final String EXPECTED = "expected-leak-";

    private static final String CANARY = EXPECTED + "canary-";
    private static final long DETECTION_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final List<String> REPORTS = new CopyOnWriteArrayList<>();
    private static final AtomicLong CANARIES = new AtomicLong();
    private static volatile boolean installed;

    private NettyLeaks() {}

    /** Installs the recording detector factory and PARANOID level; idempotent. */
    public static synchronized void install() {
        if (installed) {
            return;
        }
        installed = true;
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
        ResourceLeakDetectorFactory.setResourceLeakDetectorFactory(new ResourceLeakDetectorFactory() {
            @Override
            public <T> ResourceLeakDetector<T> newResourceLeakDetector(
                    Class<T> resource, int samplingInterval, long maxActive) {
                return new RecordingDetector<>(resource, samplingInterval);
            }
        });
    }

    /**
     * Forces the detector to report every buffer that was unreachable and unreleased when this is called, and answers
     * the reports gathered so far (canaries excluded), removing them.
     *
     * @throws AssertionError if the detector does not report a deliberately leaked canary within 10 s
     */
    public static List<String> detect() {
        String canary = CANARY + CANARIES.incrementAndGet();
        leak(canary);
        long deadline = System.nanoTime() + DETECTION_TIMEOUT_NANOS;
        while (!claim(canary)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Netty's leak detector did not report a deliberately leaked buffer: it was"
                        + " not installed before Netty loaded (see NettyLeaks), or leak detection is off");
            }
            System.gc();
            // the detector polls its reference queue whenever it tracks a new buffer
            PooledByteBufAllocator.DEFAULT.heapBuffer(1).release();
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
        List<String> found = new ArrayList<>(REPORTS);
        REPORTS.removeAll(found);
        return found;
    }

    /** Allocates a tracked buffer marked with {@code hint} and drops it unreleased. */
    public static void leak(String hint) {
        // pooled: Netty tracks pooled buffers of either kind, unpooled heap buffers not at all
        ByteBuf b = PooledByteBufAllocator.DEFAULT.heapBuffer(8);
        b.writeLong(42);
        b.touch(hint);
    }

    /** Removes the report whose records mention {@code hint}; answers whether there was one. */
    public static boolean claim(String hint) {
        for (String r : REPORTS) {
            if (r.contains(hint) && REPORTS.remove(r)) {
                return true;
            }
        }
        return false;
    }

    private static final class RecordingDetector<T> extends ResourceLeakDetector<T> {
        RecordingDetector(Class<T> resource, int samplingInterval) {
            super(resource, samplingInterval);
        }

        @Override
        protected boolean needReport() {
            return true; // whatever the logging configuration
        }

        @Override
        protected void reportTracedLeak(String resourceType, String records) {
            REPORTS.add(
                    "LEAK: " + resourceType + ".release() was not called before it was garbage-collected." + records);
            if (!records.contains(EXPECTED)) {
                super.reportTracedLeak(resourceType, records);
            }
        }

        @Override
        protected void reportUntracedLeak(String resourceType) {
            REPORTS.add("LEAK: " + resourceType + ".release() was not called (no records: level below ADVANCED)");
            super.reportUntracedLeak(resourceType);
        }
    }
}
