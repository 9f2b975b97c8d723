package dev.appliance.core.objectlock;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The hand-read lock dates agree with the formatters they stand in for, on every input they accept. */
class LockDatesTest {
    /** Where the fast path names an instant, both references name the same one; where it declines, nothing to check. */
    private static void agree(String text) {
        Instant fast = LockDates.parseUtc(text);
        if (fast == null) {
            return;
        }
        assertThat(reference(text)).as("OffsetDateTime, " + text).isEqualTo(fast);
        assertThat(Instant.parse(text)).as("Instant.parse, " + text).isEqualTo(fast);
    }

    private static Instant reference(String text) {
        try {
            return LockDates.parseReference(text);
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    @Test
    void randomInstants_inEveryPrecision_readAsTheFormattersReadThem() {
        Random r = new Random(23);
        for (int i = 0; i < 20_000; i++) {
            long second = i % 2 == 0
                    ? 1_700_000_000L + r.nextInt(400_000_000)
                    : -30_610_224_000L + (long) (r.nextDouble() * 284_012_524_800L);
            Instant t = Instant.ofEpochSecond(second, r.nextInt(1_000_000_000));
            String stored = ObjectLock.format(t);
            assertThat(LockDates.parseUtc(stored)).as(stored).isNotNull();
            agree(stored);
            String iso = t.toString(); // 0, 3, 6 or 9 fraction digits
            assertThat(LockDates.parseUtc(iso)).as(iso).isEqualTo(t);
            int cut = 20 + r.nextInt(10); // any number of fraction digits
            String shorter = iso.length() > cut ? iso.substring(0, cut) + "Z" : iso;
            agree(shorter);
        }
    }

    @Test
    void whatTheFastPathDeclines_isLeftToTheFormatter_andParseDateStillReadsIt() {
        assertThat(LockDates.parseUtc("2030-01-01T02:00:00+02:00")).isNull();
        assertThat(ObjectLock.parseDate("2030-01-01T02:00:00+02:00")).isEqualTo(Instant.parse("2030-01-01T00:00:00Z"));
        assertThat(LockDates.parseUtc("2030-01-01T00:00Z")).isNull();
        assertThat(ObjectLock.parseDate("2030-01-01T00:00Z")).isEqualTo(Instant.parse("2030-01-01T00:00:00Z"));
        assertThat(LockDates.parseUtc("2030-01-01t00:00:00z")).isNull();
        assertThat(ObjectLock.parseDate(" 2030-01-01T00:00:00.0001Z "))
                .as("stripped, and rounded up to the millisecond")
                .isEqualTo(Instant.parse("2030-01-01T00:00:00.001Z"));
        assertThat(LockDates.parseUtc("2030-02-30T00:00:00Z")).isNull();
        assertThat(ObjectLock.parseDate("2030-02-30T00:00:00Z")).isNull();
        assertThat(LockDates.parseUtc("2030-01-01T00:00:00.Z")).isNull();
        assertThat(LockDates.parseUtc("2030-01-01T00:00:00.1234567890Z")).isNull();
        assertThat(ObjectLock.parseDate("2030-01-01T00:00:00.1234567890Z")).isNull();
    }

    @Test
    void mutatedDates_areNeverReadDifferently() {
        List<String> inputs = new ArrayList<>(List.of(
                "2030-01-01T00:00:00Z",
                "2028-02-29T23:59:59.999Z",
                "2027-02-29T00:00:00Z",
                "2030-12-31T24:00:00Z",
                "2030-12-31T23:59:60Z",
                "2030-13-01T00:00:00Z",
                "2030-00-01T00:00:00Z",
                "2030-01-00T00:00:00Z",
                "0000-01-01T00:00:00Z",
                "9999-12-31T23:59:59.999999999Z",
                "2030-01-01T00:00:00,5Z",
                "2030-01-01 00:00:00Z",
                "+2030-01-01T00:00:00Z",
                "2030-01-01T00:00:00.5",
                "2030-01-01T00:00:0\u06630Z", // an Arabic-Indic digit
                "\uFF12030-01-01T00:00:00Z")); // a full-width digit
        Random r = new Random(5);
        String alphabet = "0123456789TZ+-:. tz,\u0660";
        String[] seeds = {"2030-01-01T00:00:00Z", "2030-06-15T12:30:45.123Z", "2030-06-15T12:30:45.123456789Z"};
        for (int i = 0; i < 30_000; i++) {
            char[] c = seeds[i % seeds.length].toCharArray();
            c[r.nextInt(c.length)] = alphabet.charAt(r.nextInt(alphabet.length()));
            c[r.nextInt(c.length)] = alphabet.charAt(r.nextInt(alphabet.length()));
            inputs.add(new String(c));
        }
        int accepted = 0;
        for (String s : inputs) {
            agree(s);
            if (LockDates.parseUtc(s) != null) {
                accepted++;
            }
        }
        assertThat(accepted)
                .as("the fast path took a share of the mutated dates")
                .isGreaterThan(1_000);
    }
}
