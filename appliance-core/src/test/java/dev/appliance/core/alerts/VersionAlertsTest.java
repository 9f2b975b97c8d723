package dev.appliance.core.alerts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.appliance.core.BucketSettings;
import dev.appliance.core.MovableClock;
import dev.appliance.core.PutRequest;
import dev.appliance.core.VersioningState;
import dev.appliance.core.engine.ErasureObjectStore;
import dev.appliance.core.error.ErrorKind;
import dev.appliance.core.error.StorageException;
import dev.appliance.core.lifecycle.LifecycleConfiguration;
import dev.appliance.core.lifecycle.LifecycleConfiguration.Filter;
import dev.appliance.core.lifecycle.LifecycleConfiguration.NoncurrentExpiration;
import dev.appliance.core.lifecycle.LifecycleConfiguration.Rule;
import dev.appliance.core.testing.TestStore;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Version-explosion alerts on a real four-drive store fed by its PUT path and its scanner: thresholds, the cause
 * (identical content), projections, one alert per code and bucket, acknowledgement, clearing by a lifecycle rule,
 * re-raising, the near-cap alert, and the alerts kept on the drives across a restart.
 */
class VersionAlertsTest {
    private static final String BUCKET = "sync";

    @TempDir
    Path tmp;

    private final MovableClock clock = new MovableClock();
    private ErasureObjectStore store;

    @BeforeEach
    void open() throws IOException {
        store = openStore();
        store.makeBucket(BUCKET);
        store.setVersioning(BUCKET, VersioningState.ENABLED);
    }

    private TestStore layout() {
        return TestStore.on(tmp).clock(clock);
    }

    private List<Path> drives() {
        return layout().drives();
    }

    private ErasureObjectStore openStore() {
        return layout().open(ErasureObjectStore::open);
    }

    @AfterEach
    void close() {
        store.close();
    }

    private void put(String key, String text) throws IOException {
        byte[] body = text.getBytes(StandardCharsets.UTF_8);
        store.putObject(BUCKET, key, new PutRequest(body.length, null, Map.of(), null), new ByteArrayInputStream(body));
    }

    private void threshold(int versions) {
        store.setBucketSettings(BUCKET, new BucketSettings(null, null, versions));
    }

    private VersionAlerts alerts() {
        return store.versionAlerts();
    }

    private Alert active(AlertCode code) {
        return alerts().alerts(false).stream()
                .filter(a -> a.code() == code)
                .findFirst()
                .orElse(null);
    }

    private static LifecycleConfiguration keepNewest(int newer) {
        return new LifecycleConfiguration(List.of(
                new Rule("keep-" + newer, true, Filter.ALL, null, new NoncurrentExpiration(null, newer), null)));
    }

    @Test
    void identicalReuploads_raiseWithTheCauseAndRemedy_beforeKeysReachTheThreshold() throws IOException {
        threshold(20);
        for (int i = 0; i < 5; i++) {
            put("docs/report.txt", "unchanged content");
        }
        put("docs/other.txt", "v1");
        alerts().evaluate();

        Alert a = active(AlertCode.VERSIONS_IDENTICAL_REUPLOADS);
        assertThat(a).isNotNull();
        assertThat(a.id()).isEqualTo("VERSIONS_IDENTICAL_REUPLOADS:sync");
        assertThat(a.summary()).contains("Bucket 'sync'", "'docs/report.txt' has 5 consecutive versions");
        assertThat(a.cause())
                .contains("identical content re-uploaded 4 times in the last hour")
                .contains("No lifecycle rule with NoncurrentVersionExpiration applies to 'sync'");
        assertThat(a.remedy())
                .contains("NewerNoncurrentVersions", "put-bucket-lifecycle-configuration --bucket sync")
                .contains("\"NewerNoncurrentVersions\":5") // a quarter of the threshold
                .contains("fix the client");
        assertThat(a.figures().identicalLastHour()).isEqualTo(4);
        assertThat(a.figures().newVersionsLastHour()).isEqualTo(6);
        assertThat(a.figures().worstKeys().getFirst())
                .isEqualTo(new Alert.KeyFigure(
                        "docs/report.txt", 5, a.figures().worstKeys().getFirst().versionsPerHour(), 4));
        assertThat(a.figures().boundPerKey()).isEqualTo(-1);
        // 5 versions are not over 20: the count alert is not raised
        assertThat(active(AlertCode.VERSIONS_PER_KEY_HIGH)).isNull();
    }

    @Test
    void keysOverTheThreshold_raiseOneAlert_namingTheWorstKeys_withProjection() throws IOException {
        threshold(10);
        for (int i = 0; i < 14; i++) {
            put("a", "version " + i);
        }
        for (int i = 0; i < 12; i++) {
            put("b", "version " + i);
        }
        put("c", "once");
        store.scanNow(); // counts from the scanner; evaluates
        alerts().evaluate();
        alerts().evaluate();

        List<Alert> all = alerts().alerts(true);
        assertThat(all).extracting(Alert::id).containsExactly("VERSIONS_PER_KEY_HIGH:sync");
        Alert a = all.getFirst();
        assertThat(a.timesRaised()).isEqualTo(1);
        assertThat(a.severity()).isEqualTo(AlertCode.Severity.WARNING);
        assertThat(a.summary()).contains("2 key(s) over 10 versions; worst 'a' with 14 versions");
        assertThat(a.cause()).contains("new versions in the last hour, mostly with changed content");
        assertThat(a.figures().worstKeys())
                .extracting(Alert.KeyFigure::key, Alert.KeyFigure::versions)
                .startsWith(
                        org.assertj.core.groups.Tuple.tuple("a", 14L), org.assertj.core.groups.Tuple.tuple("b", 12L));
        Alert.Figures f = a.figures();
        assertThat(f.threshold()).isEqualTo(10);
        assertThat(f.keysOverThreshold()).isEqualTo(2);
        // 27 versions in seconds: the rate is taken over at least 10 s, so at least 27 * 360 an hour
        assertThat(f.versionsPerHour()).isGreaterThanOrEqualTo(27 * 360.0);
        assertThat(f.horizonSeconds()).isEqualTo(86_400);
        // no rule: the worst key grows to the cap within the day, the bucket by the rate times a day
        assertThat(f.projectedWorstKeyVersions()).isEqualTo(f.maxVersionsPerKey());
        assertThat(f.projectedBucketVersions()).isGreaterThan(27 + 27 * 360 * 24 - 1);
        // measured on the key's own xl.meta: a small version costs a few hundred bytes of metadata per drive
        assertThat(f.metadataBytesPerVersion()).isBetween(100L, 2_000L);
        assertThat(f.projectedWorstKeyMetadataBytes())
                .isEqualTo(f.projectedWorstKeyVersions() * f.metadataBytesPerVersion());
        assertThat(f.secondsToCap()).isPositive();
        assertThat(a.summary()).contains("If nothing changes, in one lifecycle day", "reaches the cap of 10000");
    }

    @Test
    void acknowledged_staysSoUntilCleared_aRuleClearsIt_andANewRaiseIsUnacknowledged() throws IOException {
        threshold(10);
        for (int i = 0; i < 15; i++) {
            put("a", "version " + i);
        }
        alerts().evaluate();
        String id = AlertCode.VERSIONS_PER_KEY_HIGH.idFor(BUCKET);
        assertThat(active(AlertCode.VERSIONS_PER_KEY_HIGH).acknowledged()).isFalse();

        Alert acked = alerts().acknowledge(id);
        assertThat(acked.acknowledged()).isTrue();
        assertThat(acked.acknowledgedAt()).isNotNull();
        put("a", "one more");
        alerts().evaluate();
        assertThat(active(AlertCode.VERSIONS_PER_KEY_HIGH).acknowledged()).isTrue();
        assertThat(active(AlertCode.VERSIONS_PER_KEY_HIGH).summary()).contains("with 16 versions");
        assertThatThrownBy(() -> alerts().acknowledge("VERSIONS_PER_KEY_HIGH:nope"))
                .isInstanceOf(NoSuchElementException.class)
                .hasMessageContaining("no alert 'VERSIONS_PER_KEY_HIGH:nope'");

        // a rule keeping 2 noncurrent versions: the next cycle trims the key to 3 and the alert clears
        store.setLifecycleConfiguration(BUCKET, keepNewest(2));
        store.scanNow();
        assertThat(active(AlertCode.VERSIONS_PER_KEY_HIGH)).isNull();
        Alert cleared = alerts().alerts(true).getFirst();
        assertThat(cleared.state()).isEqualTo(Alert.CLEARED);
        assertThat(cleared.clearedAt()).isNotNull();

        // the rule removed, the key grows again: raised anew, unacknowledged
        store.setLifecycleConfiguration(BUCKET, null);
        for (int i = 0; i < 10; i++) {
            put("a", "again " + i);
        }
        alerts().evaluate();
        Alert again = active(AlertCode.VERSIONS_PER_KEY_HIGH);
        assertThat(again.acknowledged()).isFalse();
        assertThat(again.timesRaised()).isEqualTo(2);
        assertThat(again.figures().worstKeys().getFirst().versions()).isEqualTo(13);
    }

    @Test
    void growthRate_projectsWhatARuleKeeps_daysOnlyRulesDoNotBoundIt_newerNoncurrentVersionsDo() throws IOException {
        threshold(100);
        store.lifecycleDayLength(Duration.ofHours(1));
        // the seed: one identical upload a minute, with "delete noncurrent versions older than a day"
        store.setLifecycleConfiguration(
                BUCKET,
                new LifecycleConfiguration(
                        List.of(new Rule("one-day", true, Filter.ALL, null, new NoncurrentExpiration(1, null), null))));
        for (int i = 0; i < 61; i++) {
            put("dir/file", "same bytes");
            clock.offset = clock.offset.plusMinutes(1);
        }
        alerts().evaluate();
        Alert a = active(AlertCode.VERSIONS_IDENTICAL_REUPLOADS);
        assertThat(a).isNotNull();
        // about 60 an hour, kept for up to two one-hour days (the day rounds up to the next midnight) plus a cycle
        assertThat(a.figures().versionsPerHour()).isBetween(55.0, 65.0);
        assertThat(a.figures().boundingRule()).isEqualTo("one-day");
        assertThat(a.figures().boundPerKey()).isBetween(110L, 135L);
        assertThat(a.cause())
                .contains("identical content re-uploaded 60 times in the last hour")
                .contains("Lifecycle rule 'one-day' lets noncurrent versions live for days");
        assertThat(a.figures().horizonSeconds()).isEqualTo(3600);
        assertThat(a.figures().projectedWorstKeyVersions()).isBetween(115L, 125L);

        // NoncurrentDays with NewerNoncurrentVersions: both must hold, the day still keeps about 120 versions
        store.setLifecycleConfiguration(
                BUCKET,
                new LifecycleConfiguration(
                        List.of(new Rule("one-day", true, Filter.ALL, null, new NoncurrentExpiration(1, 5), null))));
        alerts().evaluate();
        assertThat(active(AlertCode.VERSIONS_IDENTICAL_REUPLOADS).figures().boundPerKey())
                .isGreaterThan(100);
        // NewerNoncurrentVersions alone bounds the key at about 7: the harm is gone, the alert clears at once
        store.setLifecycleConfiguration(BUCKET, keepNewest(5));
        alerts().evaluate();
        assertThat(active(AlertCode.VERSIONS_IDENTICAL_REUPLOADS)).isNull();
        // an hour without identical uploads also clears a re-raised alert
        store.setLifecycleConfiguration(BUCKET, null);
        put("dir/file", "same bytes");
        alerts().evaluate();
        assertThat(active(AlertCode.VERSIONS_IDENTICAL_REUPLOADS)).isNotNull();
        clock.offset = clock.offset.plusHours(3);
        put("dir/file", "new bytes");
        alerts().evaluate();
        assertThat(active(AlertCode.VERSIONS_IDENTICAL_REUPLOADS)).isNull();
    }

    @Test
    void nearTheHardCap_isCritical_andTheCapRefusesTheNextVersion() throws IOException {
        store.maxVersionsPerKey(20);
        for (int i = 0; i < 20; i++) {
            put("k", "v" + i);
        }
        alerts().evaluate();
        Alert a = active(AlertCode.VERSIONS_NEAR_CAP);
        assertThat(a.severity()).isEqualTo(AlertCode.Severity.CRITICAL);
        assertThat(a.summary()).contains("key 'k' has 20 of the 20 versions allowed per key");
        assertThat(a.remedy()).startsWith("Writes of a key at 20 versions are refused");
        assertThat(alerts().summary().critical()).isEqualTo(1);
        assertThatThrownBy(() -> put("k", "one too many"))
                .isInstanceOf(StorageException.class)
                .satisfies(e -> assertThat(((StorageException) e).kind()).isEqualTo(ErrorKind.TOO_MANY_VERSIONS))
                .hasMessageContaining("has reached the limit of 20 versions per key");
    }

    @Test
    void alerts_andTheirAcknowledgement_surviveARestart_fromAMajorityOfDrives() throws IOException {
        threshold(5);
        for (int i = 0; i < 8; i++) {
            put("a", "same");
        }
        alerts().evaluate();
        alerts().acknowledge(AlertCode.VERSIONS_PER_KEY_HIGH.idFor(BUCKET));
        List<Alert> before = alerts().alerts(true);
        assertThat(before).hasSize(2);
        for (Path d : drives()) {
            assertThat(d.resolve(".appliance.sys").resolve(AlertFile.FILE)).exists();
        }
        store.close();
        // one damaged copy: the others decide
        Files.writeString(drives().getFirst().resolve(".appliance.sys").resolve(AlertFile.FILE), "{not json");

        store = openStore();
        List<Alert> after = store.versionAlerts().alerts(true);
        assertThat(after).isEqualTo(before);
        assertThat(store.versionAlerts().summary())
                .isEqualTo(new VersionAlerts.Summary(
                        2, 1, 0, after.stream().map(Alert::id).toList()));
        // the threshold is a bucket setting, stored with the bucket
        assertThat(store.bucketSettings(BUCKET).versionAlertThreshold()).isEqualTo(5);
    }

    private static VersionAlerts.HealthFinding finding(AlertCode code, String check, String measured) {
        return new VersionAlerts.HealthFinding(
                code, check, "health check " + check + ": " + measured, "measured " + measured, "fix it");
    }

    @Test
    void healthAlerts_areOnePerCheck_updatedByRepeats_clearedWhenTheCheckPasses_andKeptAcrossARestart()
            throws IOException {
        threshold(5);
        for (int i = 0; i < 8; i++) {
            put("a", "v" + i);
        }
        alerts().evaluate(); // a version alert beside the health alerts: neither kind decides the other's
        String drive = AlertCode.DRIVE_OUT_OF_SERVICE.idFor("drive.set1.slot2");
        String sync = AlertCode.HEALTH_CHECK_WARNING.idFor("time.sync");
        alerts().reportHealth(List.of(
                finding(AlertCode.DRIVE_OUT_OF_SERVICE, "drive.set1.slot2", "offline"),
                finding(AlertCode.HEALTH_CHECK_WARNING, "time.sync", "not synchronised")));
        alerts().reportHealth(List.of(
                finding(AlertCode.DRIVE_OUT_OF_SERVICE, "drive.set1.slot2", "offline, still"),
                finding(AlertCode.HEALTH_CHECK_WARNING, "time.sync", "not synchronised")));
        clock.offset = clock.offset.plus(Duration.ofMinutes(2));
        alerts().evaluate();

        Alert d = alerts().alerts(false).stream()
                .filter(a -> a.id().equals(drive))
                .findFirst()
                .orElseThrow();
        assertThat(d.severity()).isEqualTo(AlertCode.Severity.CRITICAL);
        assertThat(d.bucket()).isNull();
        assertThat(d.figures()).isNull();
        assertThat(d.timesRaised()).isEqualTo(1);
        assertThat(d.summary()).isEqualTo("health check drive.set1.slot2: offline, still");
        assertThat(alerts().summary().ids())
                .containsExactlyInAnyOrder(drive, sync, AlertCode.VERSIONS_PER_KEY_HIGH.idFor(BUCKET));
        alerts().acknowledge(sync);

        store.close();
        store = openStore();
        assertThat(alerts().alerts(false))
                .filteredOn(a -> a.id().equals(sync))
                .singleElement()
                .satisfies(a -> assertThat(a.acknowledged()).isTrue());
        // the drive's check passes again: its alert clears, the other stays; the version alert is untouched
        alerts().reportHealth(List.of(finding(AlertCode.HEALTH_CHECK_WARNING, "time.sync", "not synchronised")));
        assertThat(alerts().summary().ids())
                .containsExactlyInAnyOrder(sync, AlertCode.VERSIONS_PER_KEY_HIGH.idFor(BUCKET));
        assertThat(alerts().alerts(true))
                .filteredOn(a -> a.id().equals(drive))
                .singleElement()
                .satisfies(a -> assertThat(a.state()).isEqualTo(Alert.CLEARED));
        // raised again: the same alert, raised a second time, unacknowledged
        alerts().reportHealth(List.of(finding(AlertCode.DRIVE_OUT_OF_SERVICE, "drive.set1.slot2", "faulty")));
        assertThat(alerts().alerts(false))
                .filteredOn(a -> a.id().equals(drive))
                .singleElement()
                .satisfies(a -> assertThat(a.timesRaised()).isEqualTo(2));
        assertThatThrownBy(() -> finding(AlertCode.VERSIONS_NEAR_CAP, "x", "y"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void badThresholds_areRefusedWithAMessageNamingTheValue() {
        assertThatThrownBy(() -> new BucketSettings(null, null, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("versionAlertThreshold: 0");
        assertThat(VersionAlerts.identicalRunFor(1000)).isEqualTo(100);
        assertThat(VersionAlerts.identicalRunFor(20)).isEqualTo(3);
    }
}
