package dev.appliance.core.objectlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.appliance.core.error.ErrorKind;
import dev.appliance.core.error.StorageException;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ObjectLockTest {
    private static final Instant NOW = Instant.parse("2030-01-01T00:00:00Z");
    private static final Instant LATER = NOW.plus(Duration.ofDays(10));
    private static final Instant MUCH_LATER = NOW.plus(Duration.ofDays(20));
    /** The last instant S3's date form (four-digit years) can write. */
    private static final Instant LATEST = Instant.parse("9999-12-31T23:59:59.999Z");

    private static Map<String, String> retained(RetentionMode mode, Instant until) {
        return ObjectLock.withRetention(Map.of(), new Retention(mode, until));
    }

    private static void assertLocked(Runnable r) {
        assertThatThrownBy(r::run).isInstanceOfSatisfying(StorageException.class, e -> assertThat(e.kind())
                .isEqualTo(ErrorKind.OBJECT_LOCKED));
    }

    @Test
    void checkRemovable_compliance_refusedEvenWithBypass() {
        Map<String, String> meta = retained(RetentionMode.COMPLIANCE, LATER);
        assertLocked(() -> ObjectLock.checkRemovable(meta, NOW, false));
        assertLocked(() -> ObjectLock.checkRemovable(meta, NOW, true));
    }

    @Test
    void checkRemovable_governance_refusedWithoutBypass_allowedWithIt() {
        Map<String, String> meta = retained(RetentionMode.GOVERNANCE, LATER);
        assertLocked(() -> ObjectLock.checkRemovable(meta, NOW, false));
        assertThatCode(() -> ObjectLock.checkRemovable(meta, NOW, true)).doesNotThrowAnyException();
    }

    @Test
    void checkRemovable_expiredRetention_allowed() {
        Map<String, String> meta = retained(RetentionMode.COMPLIANCE, LATER);
        assertThatCode(() -> ObjectLock.checkRemovable(meta, LATER, false)).doesNotThrowAnyException();
        assertThatCode(() -> ObjectLock.checkRemovable(meta, MUCH_LATER, false)).doesNotThrowAnyException();
    }

    @Test
    void checkRemovable_legalHold_refusedWhateverTheRetention_untilOff() {
        Map<String, String> held = ObjectLock.withLegalHold(Map.of(), true);
        assertLocked(() -> ObjectLock.checkRemovable(held, NOW, true));
        Map<String, String> released = ObjectLock.withLegalHold(held, false);
        assertThat(released).containsEntry(ObjectLock.LEGAL_HOLD_KEY, "OFF");
        assertThatCode(() -> ObjectLock.checkRemovable(released, NOW, false)).doesNotThrowAnyException();
        assertThatCode(() -> ObjectLock.checkRemovable(Map.of(), NOW, false)).doesNotThrowAnyException();
    }

    @ParameterizedTest(name = "{0} until +10d -> {1} until +{2}d, bypass={3}: allowed={4}")
    @CsvSource({
        // compliance: only extension (or the same date) in compliance mode, bypass or not
        "COMPLIANCE, COMPLIANCE, 20, false, true",
        "COMPLIANCE, COMPLIANCE, 10, false, true",
        "COMPLIANCE, COMPLIANCE,  5, false, false",
        "COMPLIANCE, COMPLIANCE,  5, true,  false",
        "COMPLIANCE, GOVERNANCE, 20, true,  false",
        "COMPLIANCE, ,            0, true,  false",
        // governance: extension free; shortening, switching mode or removing need the bypass
        "GOVERNANCE, GOVERNANCE, 20, false, true",
        "GOVERNANCE, GOVERNANCE,  5, false, false",
        "GOVERNANCE, GOVERNANCE,  5, true,  true",
        "GOVERNANCE, COMPLIANCE, 20, false, false",
        "GOVERNANCE, COMPLIANCE, 20, true,  true",
        "GOVERNANCE, ,            0, false, false",
        "GOVERNANCE, ,            0, true,  true",
    })
    void checkRetentionChange_followsS3Rules(
            RetentionMode current, RetentionMode next, int nextDays, boolean bypass, boolean allowed) {
        Retention from = new Retention(current, LATER);
        Retention to = next == null ? null : new Retention(next, NOW.plus(Duration.ofDays(nextDays)));
        Runnable change = () -> ObjectLock.checkRetentionChange(from, to, NOW, bypass);
        if (allowed) {
            assertThatCode(change::run).doesNotThrowAnyException();
        } else {
            assertLocked(change);
        }
    }

    @Test
    void checkRetentionChange_expiredOrAbsentRetention_anythingGoes() {
        Retention expired = new Retention(RetentionMode.COMPLIANCE, NOW.minusSeconds(1));
        assertThatCode(() -> ObjectLock.checkRetentionChange(
                        expired, new Retention(RetentionMode.GOVERNANCE, LATER), NOW, false))
                .doesNotThrowAnyException();
        assertThatCode(() -> ObjectLock.checkRetentionChange(null, null, NOW, false))
                .doesNotThrowAnyException();
    }

    @Test
    void requireFuture_refusesNowAndThePast() {
        assertThatThrownBy(() -> ObjectLock.requireFuture(NOW, NOW))
                .isInstanceOfSatisfying(
                        StorageException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.INVALID_ARGUMENT));
        assertThatCode(() -> ObjectLock.requireFuture(NOW.plusMillis(1), NOW)).doesNotThrowAnyException();
    }

    @ParameterizedTest
    @CsvSource({
        "2030-01-01T00:00:00Z, 2030-01-01T00:00:00.000Z",
        "2030-01-01T00:00:00.000Z, 2030-01-01T00:00:00.000Z",
        "2030-01-01T00:00:00.5Z, 2030-01-01T00:00:00.500Z",
        "2030-01-01T02:00:00+02:00, 2030-01-01T00:00:00.000Z",
        // sub-millisecond precision rounds up: a date is never shortened by storing it
        "2030-01-01T00:00:00.0001Z, 2030-01-01T00:00:00.001Z",
    })
    void parseDate_acceptsIso8601WithAndWithoutFractions(String text, String stored) {
        assertThat(ObjectLock.format(ObjectLock.parseDate(text))).isEqualTo(stored);
    }

    @Test
    void parseDate_unparsable_isNull() {
        assertThat(ObjectLock.parseDate("2030-01-01")).isNull();
        assertThat(ObjectLock.parseDate("tomorrow")).isNull();
        assertThat(ObjectLock.parseDate(null)).isNull();
    }

    @Test
    void defaultRetention_daysOrYears() {
        ObjectLockConfiguration days = new ObjectLockConfiguration(RetentionMode.GOVERNANCE, 3, 0);
        assertThat(days.defaultRetention(NOW))
                .isEqualTo(new Retention(RetentionMode.GOVERNANCE, NOW.plus(Duration.ofDays(3))));
        ObjectLockConfiguration years = new ObjectLockConfiguration(RetentionMode.COMPLIANCE, 0, 1);
        assertThat(years.defaultRetention(NOW).retainUntil()).isEqualTo(Instant.parse("2031-01-01T00:00:00Z"));
        assertThat(ObjectLockConfiguration.ENABLED.defaultRetention(NOW)).isNull();
        assertThatThrownBy(() -> new ObjectLockConfiguration(RetentionMode.GOVERNANCE, 1, 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ObjectLockConfiguration(RetentionMode.GOVERNANCE, 0, 0))
                .isInstanceOf(IllegalArgumentException.class);
    }

    /** Dates past 9999 cannot be written back in S3's four-digit-year form: refused before anything stores them. */
    @Test
    void datesAfterYear9999_areUnparsable_andRefusedByTheEngineCheck() {
        assertThat(ObjectLock.LATEST_RETAIN_UNTIL).isEqualTo(LATEST);
        assertThat(ObjectLock.parseDate("9999-12-31T23:59:59.999Z")).isEqualTo(LATEST);
        assertThat(ObjectLock.parseDate("+10000-01-01T00:00:00Z")).isNull();
        assertThat(ObjectLock.parseDate("9999-12-31T23:59:59.9991Z")).isNull(); // rounds up into 10000
        assertThat(ObjectLock.parseDate("9999-12-31T23:30:00-01:00")).isNull(); // 10000 in UTC
        assertThatCode(() -> ObjectLock.requireFuture(LATEST, NOW)).doesNotThrowAnyException();
        assertThatThrownBy(() -> ObjectLock.requireFuture(LATEST.plusMillis(1), NOW))
                .isInstanceOfSatisfying(
                        StorageException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.INVALID_ARGUMENT));
    }

    /** A period stored before periods were bounded still applies, capped at the latest readable date. */
    @Test
    void defaultRetention_pastYear9999_isCappedAtTheLatestReadableDate() {
        ObjectLockConfiguration forever = new ObjectLockConfiguration(RetentionMode.COMPLIANCE, 0, 100_000);
        Retention r = forever.defaultRetention(NOW);
        assertThat(r.retainUntil()).isEqualTo(LATEST);
        assertThat(ObjectLock.retention(ObjectLock.withRetention(Map.of(), r))).isEqualTo(r);
        ObjectLockConfiguration days = new ObjectLockConfiguration(RetentionMode.GOVERNANCE, Integer.MAX_VALUE, 0);
        assertThat(days.defaultRetention(NOW).retainUntil()).isEqualTo(LATEST);
    }
}
