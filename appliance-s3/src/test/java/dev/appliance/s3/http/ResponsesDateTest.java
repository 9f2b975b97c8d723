package dev.appliance.s3.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.appliance.s3.api.Params;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The Date header, formatted once a second, reads as formatting it for each response would. */
class ResponsesDateTest {
    @Test
    void dateHeader_isThatSecondsHttpDate_andMovesOnWithTheSecond() {
        Instant t = Instant.parse("2026-11-27T10:45:12.100Z");
        assertThat(Responses.dateHeader(t)).isEqualTo("Fri, 27 Nov 2026 10:45:12 GMT");
        // later in the same second: the same text; the next second, and a clock set back: each its own
        for (Instant u : new Instant[] {
            t.plusMillis(850), t.plusMillis(900), t.plusSeconds(1), t.minusSeconds(3600), t.plusSeconds(86_400 * 40)
        }) {
            assertThat(Responses.dateHeader(u)).as(u.toString()).isEqualTo(Params.httpDate(u));
        }
    }
}
