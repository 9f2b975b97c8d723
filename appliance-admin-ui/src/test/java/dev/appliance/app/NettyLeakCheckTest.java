package dev.appliance.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import dev.appliance.s3.testing.NettyLeaks;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherConfig;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * This module's tests fail on leaked Netty buffers as appliance-s3's do: the leak check comes from appliance-s3's
 * test-jar (see this module's pom). The leaks made here are claimed or reported inside a nested launcher run, so the
 * suite stays green.
 */
class NettyLeakCheckTest {
    /** Set only while {@link #aTestClassOfThisModuleThatLeaks_fails} runs {@link Leaking}. */
    private static volatile String armedHint;

    @Test
    void aBufferDroppedUnreleased_isReportedInThisModulesTests() {
        // detect() also fails unless the detector was installed before Netty loaded in this JVM, whatever test ran
        // first
        String hint = NettyLeaks.EXPECTED + "admin-self-test-" + UUID.randomUUID();
        ByteBuf b = PooledByteBufAllocator.DEFAULT.directBuffer(64);
        b.writeZero(64);
        b.touch(hint);
        b = null; // dropped without release()

        assertThat(NettyLeaks.detect())
                .anySatisfy(r -> assertThat(r).startsWith("LEAK: ").contains(hint));
    }

    @Test
    void aTestClassOfThisModuleThatLeaks_fails() {
        String hint = NettyLeaks.EXPECTED + "admin-self-test-class-" + UUID.randomUUID();
        // Nothing registered by hand: the nested run finds the leak check as every test class here does, from the
        // service files and junit-platform.properties on this module's test classpath.
        var launcher = LauncherFactory.create(LauncherConfig.builder()
                .enableLauncherSessionListenerAutoRegistration(false)
                .enableTestExecutionListenerAutoRegistration(false)
                .build());
        List<String> classFailures = new ArrayList<>();
        List<String> testsPassed = new ArrayList<>();
        armedHint = hint;
        try {
            launcher.execute(
                    LauncherDiscoveryRequestBuilder.request()
                            .selectors(selectClass(Leaking.class))
                            .build(),
                    new TestExecutionListener() {
                        @Override
                        public void executionFinished(TestIdentifier id, TestExecutionResult result) {
                            if (id.isTest() && result.getStatus() == TestExecutionResult.Status.SUCCESSFUL) {
                                testsPassed.add(id.getDisplayName());
                            }
                            boolean leakingClass = id.getSource()
                                    .filter(s -> s instanceof ClassSource c && c.getJavaClass() == Leaking.class)
                                    .isPresent();
                            if (leakingClass) {
                                result.getThrowable().ifPresent(t -> classFailures.add(String.valueOf(t)));
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
                .asString()
                .contains("leaked Netty buffer")
                .contains(hint);
    }

    /** Run only by {@link #aTestClassOfThisModuleThatLeaks_fails} (surefire does not run nested classes itself). */
    static class Leaking {
        @Test
        void dropsABuffer() {
            Assumptions.assumeTrue(armedHint != null, "run by NettyLeakCheckTest only");
            NettyLeaks.leak(armedHint);
        }
    }
}
