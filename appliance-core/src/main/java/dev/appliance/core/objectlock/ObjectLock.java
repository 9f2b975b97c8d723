package dev.appliance.core.objectlock;

import dev.appliance.core.error.ErrorKind;
import dev.appliance.core.error.StorageException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The lock state of a version and the rules S3 Object Lock applies to it.
 *
 * <h2>Where the state lives</h2>
 *
 * A version's lock state is three entries of its metadata map in {@code xl.meta}, named as the S3 headers that carry
 * them: {@link #MODE_KEY}, {@link #RETAIN_UNTIL_KEY} (ISO 8601, UTC, milliseconds) and {@link #LEGAL_HOLD_KEY}
 * ({@code ON} or {@code OFF}; absent: never set, i.e. off). Changing them is a metadata-only update of that version: no data is rewritten.
 *
 * <h2>Rules</h2>
 *
 * <ul>
 *   <li>A version with legal hold on, or whose retention is still active at the trusted time, cannot be removed
 *       ({@link ErrorKind#OBJECT_LOCKED}); an active GOVERNANCE retention yields to a caller allowed to bypass it.
 *   <li>An active COMPLIANCE retention may only be extended in COMPLIANCE mode. An active GOVERNANCE retention may be
 *       extended in GOVERNANCE mode; shortening, removing or switching it to COMPLIANCE needs the bypass.
 *   <li>An expired retention (retain-until not after the trusted time) protects nothing and may be replaced freely.
 * </ul>
 *
 * Callers evaluate these under the key's write lock, so no concurrent change can slip between check and commit.
 */
public final class ObjectLock {
    public static final String MODE_KEY = "x-amz-object-lock-mode";
    public static final String RETAIN_UNTIL_KEY = "x-amz-object-lock-retain-until-date";
    public static final String LEGAL_HOLD_KEY = "x-amz-object-lock-legal-hold";

    /**
     * The latest retain-until date: S3 writes dates with four-digit years and SDKs parse no other, so a later one,
     * once stored, would make the version's lock state unreadable to every client.
     */
    public static final Instant LATEST_RETAIN_UNTIL = Instant.parse("9999-12-31T23:59:59.999Z");

    /** How dates are written: {@code 2030-01-02T03:04:05.678Z}, as S3 returns them. */
    private static final DateTimeFormatter FORMAT =
            DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

    private ObjectLock() {}

    /** True for the metadata entries that hold lock state (never copied from a copy source). */
    public static boolean isLockEntry(String name) {
        return name.equals(MODE_KEY) || name.equals(RETAIN_UNTIL_KEY) || name.equals(LEGAL_HOLD_KEY);
    }

    /** True when {@code metadata} carries any lock entry. */
    public static boolean hasLockEntries(Map<String, String> metadata) {
        return metadata.containsKey(MODE_KEY)
                || metadata.containsKey(RETAIN_UNTIL_KEY)
                || metadata.containsKey(LEGAL_HOLD_KEY);
    }

    /** The retention stored in {@code metadata}, or null. */
    public static Retention retention(Map<String, String> metadata) {
        String mode = metadata.get(MODE_KEY);
        String until = metadata.get(RETAIN_UNTIL_KEY);
        if (mode == null || until == null) {
            return null;
        }
        Instant fast = LockDates.parseUtc(until);
        return new Retention(RetentionMode.valueOf(mode), fast != null ? fast : Instant.parse(until));
    }

    /** True when {@code metadata} has legal hold on. */
    public static boolean legalHold(Map<String, String> metadata) {
        return "ON".equals(metadata.get(LEGAL_HOLD_KEY));
    }

    /** {@code metadata} with its retention replaced by {@code retention} (removed when null). */
    public static SortedMap<String, String> withRetention(Map<String, String> metadata, Retention retention) {
        TreeMap<String, String> next = new TreeMap<>(metadata);
        next.remove(MODE_KEY);
        next.remove(RETAIN_UNTIL_KEY);
        if (retention != null) {
            next.put(MODE_KEY, retention.mode().name());
            next.put(RETAIN_UNTIL_KEY, format(retention.retainUntil()));
        }
        return next;
    }

    /** {@code metadata} with legal hold set on or off (kept as {@code OFF}, so it reads back as set). */
    public static SortedMap<String, String> withLegalHold(Map<String, String> metadata, boolean on) {
        TreeMap<String, String> next = new TreeMap<>(metadata);
        next.put(LEGAL_HOLD_KEY, on ? "ON" : "OFF");
        return next;
    }

    /** An instant as S3 writes lock dates (UTC, milliseconds). */
    public static String format(Instant instant) {
        return FORMAT.format(instant);
    }

    /**
     * Parses an ISO 8601 date-time as clients send retain-until dates: {@code 2030-01-01T00:00:00Z}, with fractional
     * seconds ({@code .5Z}, {@code .000Z}) or an offset ({@code +02:00}). Precision beyond milliseconds is rounded up,
     * so a date is never shortened by storing it. Null when unparsable or after {@link #LATEST_RETAIN_UNTIL} (in UTC,
     * after rounding): such a date cannot be written back in S3's form.
     */
    public static Instant parseDate(String text) {
        if (text == null) {
            return null;
        }
        String stripped = text.strip();
        Instant parsed = LockDates.parseUtc(stripped);
        if (parsed == null) {
            try {
                parsed = LockDates.parseReference(stripped);
            } catch (DateTimeParseException e) {
                return null;
            }
        }
        Instant millis = parsed.truncatedTo(ChronoUnit.MILLIS);
        Instant rounded = millis.equals(parsed) ? millis : millis.plusMillis(1);
        return rounded.isAfter(LATEST_RETAIN_UNTIL) ? null : rounded;
    }

    /**
     * Refuses removing a version (or writing over it in place) while it is protected at {@code now}: legal hold on, an
     * active COMPLIANCE retention, or an active GOVERNANCE retention without {@code bypassGovernance}.
     */
    public static void checkRemovable(Map<String, String> metadata, Instant now, boolean bypassGovernance) {
        if (legalHold(metadata)) {
            throw locked();
        }
        Retention r = retention(metadata);
        if (r == null || !r.activeAt(now)) {
            return;
        }
        if (r.mode() == RetentionMode.COMPLIANCE || !bypassGovernance) {
            throw locked();
        }
    }

    /**
     * Refuses a retention change the rules forbid: {@code next} null removes the retention. The new date itself must be
     * checked to lie in the future by the caller ({@link #requireFuture}).
     */
    public static void checkRetentionChange(Retention current, Retention next, Instant now, boolean bypassGovernance) {
        if (current == null || !current.activeAt(now)) {
            return;
        }
        boolean extendsOrKeeps = next != null
                && next.mode() == current.mode()
                && !next.retainUntil().isBefore(current.retainUntil());
        if (extendsOrKeeps) {
            return;
        }
        if (current.mode() == RetentionMode.COMPLIANCE || !bypassGovernance) {
            throw locked();
        }
    }

    /** Refuses a retain-until date that is not after {@code now}, or after {@link #LATEST_RETAIN_UNTIL}. */
    public static void requireFuture(Instant retainUntil, Instant now) {
        if (!retainUntil.isAfter(now)) {
            throw new StorageException(ErrorKind.INVALID_ARGUMENT, "The retain until date must be in the future!");
        }
        if (retainUntil.isAfter(LATEST_RETAIN_UNTIL)) {
            throw new StorageException(
                    ErrorKind.INVALID_ARGUMENT, "The retain until date must be before the year 10000");
        }
    }

    private static StorageException locked() {
        return new StorageException(ErrorKind.OBJECT_LOCKED, "Access Denied because object protected by object lock.");
    }
}
