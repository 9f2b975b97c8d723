package dev.appliance.it;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * Prints the output of the watched appliance processes when a test fails. Register it as a static field with
 * {@code @RegisterExtension} and {@link #watch} the processes of the class.
 */
public final class DumpLogsOnFailure implements TestWatcher {
    private final List<ApplianceProcess> watched = new CopyOnWriteArrayList<>();

    public ApplianceProcess watch(ApplianceProcess process) {
        watched.add(process);
        return process;
    }

    @Override
    public void testFailed(ExtensionContext context, Throwable cause) {
        System.err.println("[it] " + context.getRequiredTestClass().getSimpleName() + " " + context.getDisplayName()
                + " failed: " + cause);
        for (ApplianceProcess p : watched) {
            System.err.println(p.logs());
        }
    }

    @Override
    public void testAborted(ExtensionContext context, Throwable cause) {
        testFailed(context, cause);
    }

    @Override
    public void testDisabled(ExtensionContext context, Optional<String> reason) {}
}
