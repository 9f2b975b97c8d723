package dev.appliance.core.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.appliance.core.PutRequest;
import dev.appliance.core.audit.AuditEvent;
import dev.appliance.core.audit.AuditLog;
import dev.appliance.core.audit.AuditQuery;
import dev.appliance.core.drive.LocalDrive;
import dev.appliance.core.drive.SyncGroup;
import dev.appliance.core.testing.TestStore;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A PutObject's audit event ({@link PutRequest#auditEvent}) is kept with the write's commit: on each drive before the
 * flush that makes the commit durable there, stamped by the store's clock, once per drive and never forced again; where
 * the set cannot hold it on the log's write quorum it is forced after the write; other writes refuse one.
 */
class AuditedCommitTest {
    private static final Instant COMMIT_TIME = Instant.parse("2026-11-29T13:00:00Z");

    @TempDir
    Path tmp;

    private static AuditEvent event(String resource) {
        return AuditEvent.of(
                        Instant.EPOCH,
                        "AKIAEXAMPLE (alice)",
                        "10.0.0.7",
                        "s3:PutObject",
                        resource,
                        "allowed",
                        200,
                        "r-1")
                .withDetails(Map.of("x-amz-object-lock-mode", "COMPLIANCE"));
    }

    private static PutRequest put(byte[] body, AuditEvent event) {
        return new PutRequest(body.length, null, Map.of(), null).withAuditEvent(event);
    }

    /** How many lines of the drive's audit segments name event {@code id}. */
    private static long copiesOn(LocalDrive drive, String id) {
        Path dir = drive.sysDir().resolve(AuditLog.DIR);
        if (!Files.isDirectory(dir)) {
            return 0;
        }
        try (Stream<Path> files = Files.list(dir)) {
            long n = 0;
            for (Path f : files.toList()) {
                n += Files.readAllLines(f).stream().filter(l -> l.contains(id)).count();
            }
            return n;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void aPutKeepsItsEventWithItsCommitBeforeTheCommitsLastFlushAndForcesItNowhereElse() throws IOException {
        TestStore layout = TestStore.on(tmp).clock(Clock.fixed(COMMIT_TIME, ZoneOffset.UTC));
        try (ErasureObjectStore store = TestEngine.openQuiet(layout)) {
            store.makeBucket("veeam", true);
            AuditEvent event = event("veeam/block.blk");
            // every flush of the drives' (one) filesystem notes on how many drives the event's line already is
            List<Long> drivesWithTheLineAtEachFlush = Collections.synchronizedList(new ArrayList<>());
            SyncGroup observed = SyncGroup.withFlusher(
                    "observed",
                    dir -> drivesWithTheLineAtEachFlush.add(store.drives().stream()
                            .filter(d -> copiesOn(d, event.id()) > 0)
                            .count()));
            store.drives().forEach(d -> d.useSyncGroup(observed));
            byte[] body = new byte[300_000];
            new java.util.Random(7).nextBytes(body);

            store.putObject("veeam", "block.blk", put(body, event), new ByteArrayInputStream(body));

            assertThat(drivesWithTheLineAtEachFlush).contains(4L);
            for (LocalDrive d : store.drives()) {
                assertThat(copiesOn(d, event.id())).as("copies on %s", d.root()).isEqualTo(1);
            }
            List<AuditEvent> recorded = store.auditLog().query(AuditQuery.all(10));
            assertThat(recorded).hasSize(1);
            assertThat(recorded.getFirst().id()).isEqualTo(event.id());
            assertThat(recorded.getFirst().time()).isEqualTo(COMMIT_TIME); // stamped at the commit, not by the caller
            assertThat(recorded.getFirst().details()).containsEntry("x-amz-object-lock-mode", "COMPLIANCE");
        }
    }

    @Test
    void aPutWhoseCommitKeptItsEventOnTooFewDrivesHasItForcedAfter() throws IOException {
        try (ErasureObjectStore store = TestEngine.openQuiet(TestStore.on(tmp))) {
            store.makeBucket("veeam", true);
            // two drives cannot hold an audit segment: their audit directory is a file
            for (LocalDrive d : store.drives().subList(0, 2)) {
                Path dir = d.sysDir().resolve(AuditLog.DIR);
                if (Files.isDirectory(dir)) {
                    try (Stream<Path> files = Files.list(dir)) {
                        for (Path f : files.toList()) {
                            Files.delete(f);
                        }
                    }
                    Files.delete(dir);
                }
                Files.writeString(dir, "not a directory");
            }
            List<LogRecord> severe = new ArrayList<>();
            Handler capture = new Handler() {
                @Override
                public void publish(LogRecord r) {
                    if (r.getLevel() == Level.SEVERE) {
                        severe.add(r);
                    }
                }

                @Override
                public void flush() {}

                @Override
                public void close() {}
            };
            Logger logger = Logger.getLogger(AuditedCommit.class.getName());
            logger.addHandler(capture);
            AuditEvent event = event("veeam/k");
            byte[] body = "backup".getBytes();
            try {
                store.putObject("veeam", "k", put(body, event), new ByteArrayInputStream(body));
            } finally {
                logger.removeHandler(capture);
            }

            // the commit kept it on two drives, below the write quorum of three: the forced append added a second
            // copy there, and could not reach a quorum either, so the loss is logged while the write stands
            for (LocalDrive d : store.drives().subList(2, 4)) {
                assertThat(copiesOn(d, event.id())).isEqualTo(2);
            }
            assertThat(severe).singleElement().satisfies(r -> assertThat(r.getMessage())
                    .contains("audit event not recorded: s3:PutObject veeam/k"));
            assertThat(store.auditLog().query(AuditQuery.all(10)))
                    .extracting(AuditEvent::id)
                    .containsExactly(event.id());
            assertThat(store.headObject("veeam", "k", null).size()).isEqualTo(body.length);
        }
    }

    @Test
    void aSetSmallerThanTheLogsWriteQuorumHasTheEventForcedOnEveryDriveAfterTheWrite() throws IOException {
        try (ErasureObjectStore store =
                TestEngine.openQuiet(TestStore.on(tmp).drives(8).setDriveCount(4))) {
            assertThat(store.auditLog().writeQuorum()).isEqualTo(5);
            store.makeBucket("veeam", true);
            AuditEvent event = event("veeam/k");
            byte[] body = "backup".getBytes();
            store.putObject("veeam", "k", put(body, event), new ByteArrayInputStream(body));
            for (LocalDrive d : store.drives()) {
                assertThat(copiesOn(d, event.id())).as("copies on %s", d.root()).isEqualTo(1);
            }
        }
    }

    @Test
    void aFailedPutKeepsNoEventAndOtherWritesRefuseOne() throws IOException {
        try (ErasureObjectStore store = TestEngine.openQuiet(TestStore.on(tmp))) {
            store.makeBucket("veeam", true);
            byte[] body = "backup".getBytes();
            PutRequest wrongMd5 =
                    new PutRequest(body.length, null, Map.of(), new byte[16]).withAuditEvent(event("veeam/k"));
            assertThatThrownBy(() -> store.putObject("veeam", "k", wrongMd5, new ByteArrayInputStream(body)));
            assertThat(store.auditLog().query(AuditQuery.all(10))).isEmpty();

            PutRequest withEvent = put(body, event("veeam/mp"));
            assertThatThrownBy(() -> store.createMultipartUpload("veeam", "mp", withEvent, null))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("auditEvent");
            String upload = store.createMultipartUpload("veeam", "mp", PutRequest.of(-1), null);
            assertThatThrownBy(
                            () -> store.uploadPart("veeam", "mp", upload, 1, withEvent, new ByteArrayInputStream(body)))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThat(store.auditLog().query(AuditQuery.all(10))).isEmpty();
        }
    }
}
