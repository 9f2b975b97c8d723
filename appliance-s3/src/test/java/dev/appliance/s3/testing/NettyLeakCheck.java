package dev.appliance.s3.testing;

import java.util.List;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test class when Netty reported a leaked buffer by the end of it (after its own {@code @AfterAll} closed its
 * servers). Registered for every test class of this module through JUnit's extension auto-detection
 * ({@code junit-platform.properties} and {@code META-INF/services/org.junit.jupiter.api.extension.Extension}). A leak
 * is reported once: the class that fails is the one during or before which the buffer was dropped.
 */
public final class NettyLeakCheck implements AfterAllCallback {
    @Override
    public void afterAll(ExtensionContext context) {
        List<String> leaks = NettyLeaks.detect();
        if (!leaks.isEmpty()) {
            throw new AssertionError(leaks.size() + " leaked Netty buffer(s) reported by the end of "
                    + context.getDisplayName() + ":\n" + String.join("\n\n", leaks));
        }
    }
}
