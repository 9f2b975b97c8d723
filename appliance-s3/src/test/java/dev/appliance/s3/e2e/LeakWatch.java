package dev.appliance.s3.e2e;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Records Netty's "LEAK:" reports so a test can fail on them. Must be installed before Netty's buffer classes load
 * (tests call {@link #install()} in a static initializer); if something loaded them earlier, it detects nothing.
 */
final class LeakWatch {
    private static final List<String> LEAKS = new CopyOnWriteArrayList<>();
    private static boolean installed;

    private LeakWatch() {}

    static synchronized void install() {
        if (installed) {
            return;
        }
        installed = true;
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
        ResourceLeakDetectorFactory.setResourceLeakDetectorFactory(new ResourceLeakDetectorFactory() {
            @Override
            public <T> ResourceLeakDetector<T> newResourceLeakDetector(
                    Class<T> resource, int samplingInterval, long maxActive) {
                return new ResourceLeakDetector<T>(resource, samplingInterval) {
                    @Override
                    protected void reportTracedLeak(String resourceType, String records) {
                        LEAKS.add("LEAK: " + resourceType + records);
                        super.reportTracedLeak(resourceType, records);
                    }

                    @Override
                    protected void reportUntracedLeak(String resourceType) {
                        LEAKS.add("LEAK: " + resourceType);
                        super.reportUntracedLeak(resourceType);
                    }
                };
            }
        });
    }

    /** Forces collection, lets the detector poll its queue, and returns what it reported. */
    static List<String> collect() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(50);
            for (int j = 0; j < 64; j++) {
                ByteBuf b = PooledByteBufAllocator.DEFAULT.buffer(16);
                b.release();
            }
        }
        return List.copyOf(LEAKS);
    }
}
