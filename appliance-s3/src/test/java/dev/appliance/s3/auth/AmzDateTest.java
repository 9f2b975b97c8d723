package dev.appliance.s3.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The fast x-amz-date paths agree with the reference formatter on what they accept, refuse and name. */
class AmzDateTest {
    private static Instant reference(String text) {
        return ZonedDateTime.parse(text, AmzDate.FORMAT).toInstant();
    }

    /** Both succeed with the same instant, or both refuse. */
    private static void agree(String text) {
        Instant expected;
        try {
            expected = reference(text);
        } catch (DateTimeParseException e) {
            assertThatThrownBy(() -> AmzDate.parse(text)).as(text).isInstanceOf(DateTimeParseException.class);
            return;
        }
        assertThat(AmzDate.parse(text)).as(text).isEqualTo(expected);
    }

    @Test
    void randomInstants_formatAndParseAsTheFormatterDoes() {
        Random r = new Random(17);
        for (int i = 0; i < 20_000; i++) {
            // 1000-01-01 to 9999-12-31, and most of them near now
            long second = i % 2 == 0
                    ? 1_700_000_000L + r.nextInt(400_000_000)
                    : -30_610_224_000L + (long) (r.nextDouble() * 284_012_524_800L);
            Instant t = Instant.ofEpochSecond(second, r.nextInt(1_000_000_000));
            String text = AmzDate.format(t);
            assertThat(text).as(t.toString()).isEqualTo(AmzDate.FORMAT.format(t));
            assertThat(AmzDate.parseFast(text)).as(text).isEqualTo(reference(text));
            assertThat(AmzDate.parse(text)).isEqualTo(t.truncatedTo(java.time.temporal.ChronoUnit.SECONDS));
        }
    }

    @Test
    void yearsOutsideFourDigits_areWrittenByTheFormatter() {
        for (Instant t : List.of(Instant.parse("0999-12-31T23:59:59Z"), Instant.parse("+10000-01-01T00:00:00Z"))) {
            assertThat(AmzDate.format(t)).isEqualTo(AmzDate.FORMAT.format(t));
        }
    }

    @Test
    void edgeAndMalformedInput_isJudgedAsTheFormatterJudgesIt() {
        List<String> inputs = new ArrayList<>(List.of(
                "20261127T104512Z",
                "20240229T000000Z", // a leap day
                "20250229T000000Z", // not one: the formatter's own resolution decides
                "20261131T120000Z",
                "20261127T240000Z",
                "20261127T235960Z",
                "20261327T120000Z",
                "20260027T120000Z",
                "20261100T120000Z",
                "20261127T126000Z",
                "00001127T120000Z",
                "20261127t104512Z",
                "20261127T104512z",
                "20261127T104512",
                "20261127T1045120Z",
                "2026-11-27T10:45:12Z",
                "2026112 T104512Z",
                "+2026112T104512Z",
                "-2026112T104512Z",
                "2026112\u0663T104512Z", // an Arabic-Indic digit
                "\uFF12026112T104512Z", // a full-width digit
                "",
                "T",
                "20261127T10451ZZ"));
        Random r = new Random(4);
        String alphabet = "0123456789TZ+-: tz\u0660";
        for (int i = 0; i < 20_000; i++) {
            char[] c = "20261127T104512Z".toCharArray();
            c[r.nextInt(c.length)] = alphabet.charAt(r.nextInt(alphabet.length()));
            c[r.nextInt(c.length)] = alphabet.charAt(r.nextInt(alphabet.length()));
            inputs.add(new String(c));
        }
        for (String s : inputs) {
            agree(s);
        }
    }
}
