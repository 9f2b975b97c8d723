package dev.appliance.s3.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The HTTP date written by hand is the text the reference formatter writes, for any instant. */
class ParamsTest {
    private static void assertAgrees(Instant t) {
        assertThat(Params.httpDate(t)).as(t.toString()).isEqualTo(Params.HTTP_DATE.format(t));
    }

    @Test
    void httpDate_agreesWithTheFormatter_atEdges() {
        for (String s : new String[] {
            "1970-01-01T00:00:00Z", "1999-12-31T23:59:59Z", "2000-02-29T12:00:00Z", "2026-11-27T10:45:12.999Z",
            "2100-03-01T00:00:00Z", "1000-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "0999-12-31T23:59:59Z",
            "+10000-01-01T00:00:00Z", "-0001-06-15T08:09:10Z"
        }) {
            assertAgrees(Instant.parse(s));
        }
    }

    @Test
    void httpDate_agreesWithTheFormatter_overRandomInstants() {
        SplittableRandom random = new SplittableRandom(17);
        long min = Instant.parse("0500-01-01T00:00:00Z").getEpochSecond();
        long max = Instant.parse("+12000-01-01T00:00:00Z").getEpochSecond();
        for (int i = 0; i < 200_000; i++) {
            assertAgrees(Instant.ofEpochSecond(random.nextLong(min, max), random.nextInt(1_000_000_000)));
        }
    }
}
