package dev.appliance.core.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.appliance.core.MovableClock;
import dev.appliance.core.admin.ApplianceStore;
import dev.appliance.core.drive.DriveCalls;
import dev.appliance.core.drive.DriveSettings;
import dev.appliance.core.drive.LocalDrive;
import dev.appliance.core.testing.TestStore;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The audit log on real drives in a temporary directory: durable appends, rotation, retention, merged queries. */
class AuditLogTest {
    @TempDir
    Path tmp;

    private final MovableClock clock = new MovableClock();
    private final ExecutorService executor = Executors.newThreadPerTaskExecutor(
            Thread.ofVirtual().name("test-drive-io-", 0).factory());
    private final DriveCalls calls = new DriveCalls(executor, clock, DriveSettings.DEFAULTS);
    private List<LocalDrive> drives;
    private final List<AuditLog> opened = new ArrayList<>();

    @BeforeEach
    void format() throws IOException {
        try (ApplianceStore formatting = TestStore.on(tmp).drives(4).open()) {
            formatting.deploymentId();
        }
        drives = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            LocalDrive d = new LocalDrive(TestStore.on(tmp).drive(i));
            d.prepare();
            drives.add(d);
        }
    }

    @AfterEach
    void close() {
        opened.forEach(AuditLog::close);
        executor.shutdownNow();
    }

    private AuditLog open(AuditLog.Settings settings) {
        AuditLog log = AuditLog.open(drives, calls, clock, settings);
        opened.add(log);
        return log;
    }

    private AuditEvent event(String action, String resource, String outcome) {
        return AuditEvent.of(clock.instant(), "AKIAEXAMPLE (alice)", "10.0.0.7", action, resource, outcome, 204, "r1");
    }

    private static List<String> lines(LocalDrive d) throws IOException {
        List<String> out = new ArrayList<>();
        Path dir = AuditLog.dirOf(d);
        if (!Files.isDirectory(dir)) {
            return out;
        }
        try (Stream<Path> files = Files.list(dir).sorted()) {
            for (Path f : files.toList()) {
                out.addAll(Files.readAllLines(f));
            }
        }
        return out;
    }

    private static List<String> segments(LocalDrive d) throws IOException {
        try (Stream<Path> files = Files.list(AuditLog.dirOf(d))) {
            return files.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void anEventIsOnEveryDriveInServiceWhenRecordReturnsAndReadsBack() throws IOException {
        AuditLog log = open(AuditLog.Settings.DEFAULTS);
        AuditEvent e = event("s3:DeleteObject", "photos/a.jpg?versionId=v1", AuditEvent.ALLOWED)
                .withDetails(Map.of("mode", "COMPLIANCE"));
        log.record(e);
        for (LocalDrive d : drives) {
            assertThat(lines(d)).singleElement().satisfies(line -> assertThat(line)
                    .contains("\"action\":\"s3:DeleteObject\"")
                    .contains("\"resource\":\"photos/a.jpg?versionId=v1\""));
        }
        assertThat(log.query(AuditQuery.all(10))).containsExactly(e);
        assertThat(e.bucket()).isEqualTo("photos");
    }

    @Test
    void concurrentCallersShareForcedBatchesAndAllArrive() throws Exception {
        AuditLog log = open(AuditLog.Settings.DEFAULTS);
        List<Future<?>> done = new ArrayList<>();
        try (ExecutorService callers = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < 200; i++) {
                int n = i;
                done.add(callers.submit(() -> log.record(event("s3:DeleteObject", "b/k" + n, AuditEvent.ALLOWED))));
            }
            for (Future<?> f : done) {
                f.get();
            }
        }
        assertThat(log.query(AuditQuery.all(1000))).hasSize(200);
        for (LocalDrive d : drives) {
            assertThat(lines(d)).hasSize(200);
        }
    }

    @Test
    void eventsAppendedWithCommitsAndForcedBatchesInterleaveWholeLineByLine() throws Exception {
        // small segments, so that rotation happens while both kinds of append run
        AuditLog log = open(new AuditLog.Settings(16 * 1024, 256, 0));
        List<Future<?>> done = new ArrayList<>();
        try (ExecutorService callers = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < 300; i++) {
                int n = i;
                done.add(callers.submit(() -> {
                    if (n % 3 == 0) {
                        log.record(event("s3:DeleteObject", "b/forced" + n, AuditEvent.ALLOWED));
                        return null;
                    }
                    // as a write's commit does: one prepared line, appended on each drive by its own call
                    AuditLog.Prepared p = log.prepare(event("s3:PutObject", "b/commit" + n, AuditEvent.ALLOWED));
                    try (ExecutorService perDrive = Executors.newVirtualThreadPerTaskExecutor()) {
                        List<Future<?>> appends = new ArrayList<>();
                        for (LocalDrive d : drives) {
                            appends.add(perDrive.submit(() -> {
                                log.appendPrepared(d, p);
                                return null;
                            }));
                        }
                        for (Future<?> f : appends) {
                            f.get();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        }
        for (LocalDrive d : drives) {
            List<String> lines = lines(d);
            assertThat(lines).hasSize(300);
            for (String line : lines) {
                assertThat(AuditJson.decode(line).resource()).startsWith("b/");
            }
            assertThat(segments(d).size()).isGreaterThan(1);
        }
        assertThat(log.query(AuditQuery.all(1000))).hasSize(300);
        assertThatThrownBy(() -> log.appendPrepared(
                        new LocalDrive(tmp.resolve("elsewhere")), log.prepare(event("s3:PutObject", "b/x", "allowed"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not one of the audit log's");
    }

    @Test
    void segmentsRotateBySizeAndOnlyTheNewestAreRetained() throws IOException {
        AuditLog log = open(new AuditLog.Settings(1024, 3, 0));
        for (int i = 0; i < 40; i++) {
            log.record(event("iam:CreateUser", "user" + i, AuditEvent.ALLOWED));
        }
        log.rotateIfDue();
        for (LocalDrive d : drives) {
            assertThat(segments(d)).hasSize(3);
        }
        List<AuditEvent> kept = log.query(AuditQuery.all(1000));
        assertThat(kept).isNotEmpty().hasSizeLessThan(40);
        // the newest survive, the oldest are gone
        assertThat(kept.getLast().resource()).isEqualTo("user39");
        assertThat(kept).noneMatch(e -> e.resource().equals("user0"));
    }

    @Test
    void aNewUtcDayStartsANewSegmentAndQueriesSelectByTime() throws IOException {
        AuditLog log = open(AuditLog.Settings.DEFAULTS);
        log.record(event("s3:PutObjectRetention", "b/k", AuditEvent.ALLOWED));
        Instant dayOne = clock.instant();
        String first = log.currentSegment();
        clock.forwardDays(1);
        log.record(event("s3:PutObjectLegalHold", "b/k", AuditEvent.ALLOWED));
        assertThat(log.currentSegment()).isNotEqualTo(first);
        assertThat(segments(drives.getFirst())).hasSize(2);
        Instant dayTwo = dayOne.plus(Duration.ofHours(12));
        assertThat(log.query(new AuditQuery(null, dayTwo, null, null, null, null, 10)))
                .extracting(AuditEvent::action)
                .containsExactly("s3:PutObjectRetention");
        assertThat(log.query(new AuditQuery(dayTwo, null, null, null, null, null, 10)))
                .extracting(AuditEvent::action)
                .containsExactly("s3:PutObjectLegalHold");
    }

    @Test
    void aQueryMergesTheDrivesSoADriveThatWasAwayHidesNothing() {
        AuditLog log = open(AuditLog.Settings.DEFAULTS);
        drives.get(0).markOffline("away (test)");
        log.record(event("s3:DeleteObject", "b/while-0-away", AuditEvent.ALLOWED));
        drives.get(0).markOnline();
        drives.get(1).markOffline("away (test)");
        log.record(event("s3:DeleteObject", "b/while-1-away", AuditEvent.ALLOWED));
        drives.get(1).markOnline();
        log.record(event("s3:DeleteObject", "b/all-there", AuditEvent.ALLOWED));
        // only drives 0 and 1 answer: each holds one event the other lacks
        drives.get(2).markOffline("away (test)");
        drives.get(3).markOffline("away (test)");
        assertThat(log.query(AuditQuery.all(10)))
                .extracting(AuditEvent::resource)
                .containsExactly("b/while-0-away", "b/while-1-away", "b/all-there");
    }

    @Test
    void anEventNotForcedOnAWriteQuorumIsRefused() {
        AuditLog log = open(AuditLog.Settings.DEFAULTS);
        assertThat(log.writeQuorum()).isEqualTo(3);
        drives.get(0).markOffline("away (test)");
        drives.get(1).markOffline("away (test)");
        assertThatThrownBy(() -> log.record(event("s3:DeleteBucket", "b", AuditEvent.ALLOWED)))
                .isInstanceOf(AuditLog.UnavailableException.class)
                .hasMessageContaining("forced on 2 drives (write quorum 3)");
    }

    @Test
    void aDamagedLineIsSkippedAndTheRestReadsBack() throws IOException {
        AuditLog log = open(AuditLog.Settings.DEFAULTS);
        log.record(event("s3:DeleteObject", "b/first", AuditEvent.ALLOWED));
        for (LocalDrive d : drives) {
            Files.writeString(
                    AuditLog.dirOf(d).resolve(log.currentSegment()),
                    "{\"v\":1,\"id\":\"torn\",\"ti\n\u0000\u0001garbage\n",
                    StandardOpenOption.APPEND);
        }
        log.record(event("s3:DeleteObject", "b/second", AuditEvent.ALLOWED));
        assertThat(log.query(AuditQuery.all(10)))
                .extracting(AuditEvent::resource)
                .containsExactly("b/first", "b/second");
    }

    @Test
    void aDriveWhoseAppendFailedStartsItsNextAppendOnANewLine() throws IOException {
        AuditLog log = open(AuditLog.Settings.DEFAULTS);
        log.record(event("s3:DeleteObject", "b/one", AuditEvent.ALLOWED));
        LocalDrive first = drives.getFirst();
        first.injectFaults(new dev.appliance.core.drive.DriveFaults(false, true, false, false, 0));
        log.record(event("s3:DeleteObject", "b/two", AuditEvent.ALLOWED)); // forced on the other three
        // as if part of the failed append had reached the disk
        Files.writeString(
                AuditLog.dirOf(first).resolve(log.currentSegment()),
                "{\"v\":1,\"id\":\"half",
                StandardOpenOption.APPEND);
        first.injectFaults(new dev.appliance.core.drive.DriveFaults(false, false, false, false, 0));
        log.record(event("s3:DeleteObject", "b/three", AuditEvent.ALLOWED));
        for (LocalDrive other : drives.subList(1, 4)) {
            other.markOffline("away (test)");
        }
        assertThat(log.query(AuditQuery.all(10)))
                .extracting(AuditEvent::resource)
                .containsExactly("b/one", "b/three");
    }

    @Test
    void filtersByPrincipalActionPrefixBucketAndOutcomeWithALimit() {
        AuditLog log = open(AuditLog.Settings.DEFAULTS);
        log.record(event("s3:DeleteObject", "alpha/k", AuditEvent.ALLOWED));
        log.record(event("s3:DeleteObject", "beta/k", "denied"));
        log.record(AuditEvent.of(clock.instant(), "root", "::1", "iam:CreateUser", "bob", AuditEvent.ALLOWED, 200, ""));
        log.record(event("s3:PutBucketVersioning", "alpha", AuditEvent.ALLOWED));
        assertThat(log.query(new AuditQuery(null, null, null, "s3:", "alpha", null, 10)))
                .extracting(AuditEvent::action)
                .containsExactly("s3:DeleteObject", "s3:PutBucketVersioning");
        assertThat(log.query(new AuditQuery(null, null, null, null, null, AuditEvent.DENIED, 10)))
                .extracting(AuditEvent::resource)
                .containsExactly("beta/k");
        assertThat(log.query(new AuditQuery(null, null, "root", null, null, null, 10)))
                .extracting(AuditEvent::action)
                .containsExactly("iam:CreateUser");
        assertThat(log.query(AuditQuery.all(2))).hasSize(2);
    }

    @Test
    void exportWritesJsonLinesThatReadBack() throws IOException {
        AuditLog log = open(AuditLog.Settings.DEFAULTS);
        AuditEvent odd = event("admin:PUT /api/v1/admin/buckets/b", "b", AuditEvent.ALLOWED)
                .withDetails(Map.of("note", "quote \" backslash \\ newline \n tab \t"));
        log.record(odd);
        log.record(event("s3:DeleteObject", "b/k", AuditEvent.ALLOWED));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertThat(log.export(AuditQuery.all(10), out)).isEqualTo(2);
        String[] lines = out.toString(StandardCharsets.UTF_8).split("\n");
        assertThat(lines).hasSize(2);
        assertThat(AuditJson.decode(lines[0])).isEqualTo(odd);
    }

    @Test
    void detailsThatNameASecretAreRedactedBeforeTheyReachTheDrives() throws IOException {
        AuditLog log = open(AuditLog.Settings.DEFAULTS);
        String secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
        log.record(event("iam:CreateAccessKey", "alice", AuditEvent.ALLOWED)
                .withDetails(
                        Map.of("SecretAccessKey", secret, "Authorization", "AWS4-HMAC-SHA256 x", "user", "alice")));
        for (LocalDrive d : drives) {
            assertThat(String.join("\n", lines(d)))
                    .doesNotContain(secret)
                    .doesNotContain("AWS4-HMAC")
                    .contains("\"user\":\"alice\"");
        }
    }

    @Test
    void theStoreKeepsItsAuditLogAcrossARestartInANewSegment() {
        AuditEvent before;
        try (ApplianceStore store = TestStore.on(tmp).drives(4).open()) {
            before = event("s3:DeleteBucket", "gone", AuditEvent.ALLOWED);
            store.auditLog().record(before);
        }
        try (ApplianceStore store = TestStore.on(tmp).drives(4).open()) {
            AuditEvent after = event("s3:DeleteBucket", "gone-too", AuditEvent.ALLOWED);
            store.auditLog().record(after);
            assertThat(store.auditLog().query(AuditQuery.all(10))).containsExactly(before, after);
            assertThat(store.drives()
                            .getFirst()
                            .sysDir()
                            .resolve("audit")
                            .toFile()
                            .list())
                    .hasSize(2);
        }
    }
}
