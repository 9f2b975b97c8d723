package dev.appliance.s3.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherConfig;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * The leak check itself: a buffer dropped unreleased is reported, and a test class that drops one fails. The leaks
 * made here are claimed (or reported inside a nested launcher run), so this module's suite stays green.
 */
class NettyLeaksTest {
    /** Set only while {@link #aClassThatLeaksFails} runs {@link Leaking} in its own launcher. */
    private static volatile String armedHint;

    @Test
    void aBufferDroppedUnreleased_isReported() {
        String hint = NettyLeaks.EXPECTED + "self-test-" + UUID.randomUUID();
        ByteBuf b = PooledByteBufAllocator.DEFAULT.buffer(64);
        b.writeBytes(new byte[64]);
        b.touch(hint);
        b = null; // dropped without release()

        List<String> reports = NettyLeaks.detect();

        assertThat(reports).anySatisfy(r -> assertThat(r).startsWith("LEAK: ").contains(hint));
    }

    @Test
    void aBufferReleased_isNotReported() {
        String hint = "self-test-released-" + UUID.randomUUID();
        ByteBuf b = PooledByteBufAllocator.DEFAULT.buffer(64);
        b.touch(hint);
        b.release();

        assertThat(NettyLeaks.detect()).noneSatisfy(r -> assertThat(r).contains(hint));
    }

    @Test
    void aClassThatLeaks_fails() {
        String hint = NettyLeaks.EXPECTED + "self-test-class-" + UUID.randomUUID();
        // This session's own listeners (surefire's reporters) stay out of the nested run; the leak check is
        // registered as in this module's junit-platform.properties.
        var launcher = LauncherFactory.create(LauncherConfig.builder()
                .enableLauncherSessionListenerAutoRegistration(false)
                .enableTestExecutionListenerAutoRegistration(false)
                .enablePostDiscoveryFilterAutoRegistration(false)
                .enableLauncherDiscoveryListenerAutoRegistration(false)
                .build());
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                .selectors(selectClass(Leaking.class))
                .configurationParameter("junit.jupiter.extensions.autodetection.enabled", "true")
                .build();
        List<Throwable> classFailures = new ArrayList<>();
        List<String> testsPassed = new ArrayList<>();
        armedHint = hint;
        try {
            launcher.execute(request, new TestExecutionListener() {
                @Override
                public void executionFinished(TestIdentifier id, TestExecutionResult result) {
                    if (id.isTest() && result.getStatus() == TestExecutionResult.Status.SUCCESSFUL) {
                        testsPassed.add(id.getDisplayName());
                    }
                    boolean leakingClass = id.getSource()
                            .filter(s -> s instanceof ClassSource c && c.getJavaClass() == Leaking.class)
                            .isPresent();
                    if (leakingClass) {
                        result.getThrowable().ifPresent(classFailures::add);
                    }
                }
            });
        } finally {
            armedHint = null;
        }

        assertThat(testsPassed).as("the leaking test itself passes").containsExactly("dropsABuffer()");
        assertThat(classFailures)
                .as("its class fails in the leak check")
                .singleElement()
                .isInstanceOf(AssertionError.class)
                .extracting(Throwable::getMessage)
                .asString()
                .contains("leaked Netty buffer")
                .contains(hint);
    }

    /** Run only by {@link #aClassThatLeaks_fails} (surefire does not run nested classes on its own). */
    static class Leaking {
        @Test
        void dropsABuffer() {
            Assumptions.assumeTrue(armedHint != null, "run by NettyLeaksTest only");
            NettyLeaks.leak(armedHint);
        }
    }
}
