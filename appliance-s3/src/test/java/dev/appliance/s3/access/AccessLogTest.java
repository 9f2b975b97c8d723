package dev.appliance.s3.access;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The access log's own guarantees: off records nothing, a line cannot be forged through a key, and a writer that falls
 * behind costs lines (counted), never a wait of the request thread that records.
 */
class AccessLogTest {
    private static AccessLog.Entry entry(String key, String requestId) {
        return new AccessLog.Entry(
                Instant.parse("2026-11-27T01:02:03.456Z"),
                "10.0.0.7",
                "AKIA1",
                "PUT",
                "backups",
                key,
                200,
                1024,
                0,
                1_500_000,
                requestId,
                null);
    }

    @Test
    void aLineHasEveryField_andAKeyIsQuotedAndEscaped_soItCannotForgeALine() {
        assertThat(entry("plain/key.bin", "R1").line())
                .isEqualTo("remote=10.0.0.7 user=AKIA1 method=PUT bucket=backups key=plain/key.bin status=200 in=1024"
                        + " out=0 ms=1.500 id=R1 error=-");
        String forged = entry("a b\n2026-11-27T00:00:00.000Z remote=1.2.3.4 \"x\\", "R2")
                .line();
        assertThat(forged)
                .doesNotContain("\n")
                .contains(" key=\"a b\\u000a2026-11-27T00:00:00.000Z remote=1.2.3.4 \\\"x\\\\\" status=200");
        assertThat(AccessLog.value(null)).isEqualTo("-");
        assertThat(AccessLog.value("")).isEqualTo("-");
        assertThat(AccessLog.value("Ünïcode/ключ")).isEqualTo("\"Ünïcode/ключ\"");
        assertThat(AccessLog.value("tab\there\u0085")).isEqualTo("\"tab\\u0009here\\u0085\"");
    }

    @Test
    void offRecordsNothing_onWritesInOrder_closeWritesWhatWasQueued() {
        List<String> lines = new CopyOnWriteArrayList<>();
        AccessLog log = new AccessLog((time, line) -> lines.add(time + " " + line), false);
        log.record(entry("k", "OFF"));
        log.enable(true);
        log.record(entry("k", "ON1"));
        log.record(entry("k", "ON2"));
        log.close();
        assertThat(lines).hasSize(2).allMatch(l -> l.startsWith("2026-11-27T01:02:03.456Z remote="));
        assertThat(lines.get(0)).contains(" id=ON1 ");
        assertThat(lines.get(1)).contains(" id=ON2 ");
        assertThat(log.written()).isEqualTo(2);
        assertThat(log.dropped()).isZero();
    }

    @Test
    void aWriterThatFallsBehind_costsLinesCounted_neverAWait() throws Exception {
        CountDownLatch writing = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AccessLog log = new AccessLog(
                (time, line) -> {
                    writing.countDown();
                    try {
                        release.await(); // a disk that stalls
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                },
                true);
        log.record(entry("k", "FIRST"));
        assertThat(writing.await(10, TimeUnit.SECONDS)).isTrue(); // the writer holds the first line
        int extra = 25;
        for (int i = 0; i < AccessLog.QUEUE_CAPACITY + extra; i++) {
            log.record(entry("k", "R" + i)); // returns at once: the queue is full after QUEUE_CAPACITY of them
        }
        assertThat(log.dropped()).isEqualTo(extra);
        release.countDown();
        log.close();
        assertThat(log.written()).isEqualTo(1 + AccessLog.QUEUE_CAPACITY);
    }
}
