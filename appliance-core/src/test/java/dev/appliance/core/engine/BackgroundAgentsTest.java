package dev.appliance.core.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.appliance.core.MovableClock;
import dev.appliance.core.PutRequest;
import dev.appliance.core.drive.LocalDrive;
import dev.appliance.core.testing.TestStore;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The engine's background work runs as agents that decide on the injected clock whether work is due: a store opened
 * without its agents started does nothing in the background, and a test moves the clock and runs a duty cycle.
 */
class BackgroundAgentsTest {
    private static final String B = "bkt";

    @TempDir
    Path tmp;

    private final MovableClock clock = new MovableClock();
    private ErasureObjectStore store;

    @BeforeEach
    void open() {
        store = TestEngine.openStopped(TestStore.on(tmp).clock(clock));
        store.makeBucket(B);
    }

    @AfterEach
    void close() {
        store.close();
    }

    @Test
    void trashPurger_emptiesTrashOnlyOnceItsIntervalHasPassedOnTheClock() throws IOException, InterruptedException {
        byte[] body = new byte[300 * 1024];
        store.putObject(B, "k", PutRequest.of(body.length), new ByteArrayInputStream(body));
        store.deleteObject(B, "k", null, false);
        assertThat(trashEntries()).as("the deleted object waits in trash").isPositive();

        assertThat(store.periodicAgent("trash-purger").doWork()).isZero();
        assertThat(trashEntries()).isPositive();

        clock.offset = clock.offset.plus(ErasureObjectStore.TRASH_PURGE_INTERVAL);
        assertThat(store.periodicAgent("trash-purger").doWork()).isEqualTo(1);
        assertThat(trashEntries()).isZero();
    }

    @Test
    void healer_startsWorkOnlyAfterItsStartDelayOnTheClock() throws InterruptedException {
        store.healQueue().report(B, "missing", "", "reported by the test");
        assertThat(store.healer().doWork()).as("within the start delay").isZero();
        assertThat(store.healStatus().pending()).isEqualTo(1);

        clock.offset =
                clock.offset.plus(Duration.ofMillis(store.healer().settings().startDelayMillis()));
        assertThat(store.healer().doWork()).isEqualTo(1);
        assertThat(store.healStatus().pending()).isZero();
    }

    @Test
    void periodicAgents_areKnownByRoleName() {
        assertThat(store.periodicAgent("metadata-checkpoint").roleName()).isEqualTo("metadata-checkpoint");
        assertThat(store.periodicAgent("retention-clock").roleName()).isEqualTo("retention-clock");
        assertThatThrownBy(() -> store.periodicAgent("nope"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("agent: nope");
    }

    private long trashEntries() throws IOException {
        long n = 0;
        for (LocalDrive d : store.drives()) {
            Path trash = d.root().resolve(".appliance.sys").resolve("trash");
            if (Files.isDirectory(trash)) {
                try (Stream<Path> s = Files.list(trash)) {
                    n += s.count();
                }
            }
        }
        return n;
    }
}
