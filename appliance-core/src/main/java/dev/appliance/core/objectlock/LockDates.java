package dev.appliance.core.objectlock;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;

/**
 * Reads retain-until dates in their common form, {@code 2030-01-01T00:00:00Z} with up to nine fraction digits, by hand.
 *
 * <p>Why: {@code OffsetDateTime.parse} took about 3 % of the server's Java time on PutObjectRetention (the date in the
 * body) and {@code Instant.parse} another 1.5 % (the stored date, read back to check the change). Anything but the
 * strict form (an offset, no seconds, lower-case letters, other digits, an invalid date) returns null, and the caller
 * asks the formatter, so what is accepted and the instant named never differ from it ({@code LockDatesTest}).
 */
final class LockDates {
    private LockDates() {}

    /** The instant of {@code s} in the strict UTC form; null for anything else (the formatter decides those). */
    static Instant parseUtc(String s) {
        int n = s.length();
        if (n < 20
                || n > 30
                || n == 21 // a dot with no digit
                || s.charAt(4) != '-'
                || s.charAt(7) != '-'
                || s.charAt(10) != 'T'
                || s.charAt(13) != ':'
                || s.charAt(16) != ':'
                || s.charAt(n - 1) != 'Z') {
            return null;
        }
        int year = number(s, 0, 4);
        int month = number(s, 5, 2);
        int day = number(s, 8, 2);
        int hour = number(s, 11, 2);
        int minute = number(s, 14, 2);
        int second = number(s, 17, 2);
        int nanos = 0;
        if (n > 20) {
            if (s.charAt(19) != '.') {
                return null;
            }
            int digits = n - 21;
            nanos = number(s, 20, digits);
            for (int i = digits; i < 9 && nanos >= 0; i++) {
                nanos *= 10;
            }
        }
        if ((year | month | day | hour | minute | second | nanos) < 0) {
            return null;
        }
        try {
            return LocalDateTime.of(year, month, day, hour, minute, second, nanos)
                    .toInstant(ZoneOffset.UTC);
        } catch (DateTimeException e) {
            return null; // February 30th, hour 24...: the formatter's call
        }
    }

    /** The reference: ISO 8601 with an offset, as {@code OffsetDateTime} reads it. */
    static Instant parseReference(String s) throws DateTimeParseException {
        return OffsetDateTime.parse(s).toInstant();
    }

    /** {@code count} ASCII digits from {@code from} as a number, or -1. */
    private static int number(String s, int from, int count) {
        int v = 0;
        for (int i = from; i < from + count; i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            v = v * 10 + (c - '0');
        }
        return v;
    }
}
