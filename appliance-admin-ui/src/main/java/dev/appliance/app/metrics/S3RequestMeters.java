package dev.appliance.app.metrics;

import dev.appliance.s3.api.S3Dispatcher.Operation;
import dev.appliance.s3.metrics.S3Metrics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The S3 endpoint's traffic as Micrometer meters. Cheap on the request path: each meter is looked up in a flat array by
 * operation and status (no map, no string, no tag built per request); a meter is registered once, the first time its
 * operation and status occur, so only combinations that happened become series. Counters and timers are lock-free.
 */
final class S3RequestMeters implements S3Metrics {
    static final String REQUESTS = "appliance.s3.requests";
    static final String DURATION = "appliance.s3.request.duration";
    static final String RECEIVED = "appliance.s3.received.bytes";
    static final String SENT = "appliance.s3.sent.bytes";
    static final String AUTH_FAILURES = "appliance.s3.auth.failures";
    /** The {@code api} label of requests refused before an operation was known. */
    static final String UNKNOWN_API = "Unknown";

    /** Latency buckets: bounded, from a small PUT on a fast drive to a large object over a slow link. */
    static final Duration[] LATENCY_BUCKETS = {
        Duration.ofMillis(5),
        Duration.ofMillis(10),
        Duration.ofMillis(25),
        Duration.ofMillis(50),
        Duration.ofMillis(100),
        Duration.ofMillis(250),
        Duration.ofMillis(500),
        Duration.ofSeconds(1),
        Duration.ofMillis(2500),
        Duration.ofSeconds(5),
        Duration.ofSeconds(10),
        Duration.ofSeconds(30),
        Duration.ofSeconds(60)
    };

    private static final int MIN_STATUS = 100;
    private static final int STATUSES = 500; // 100..599
    private static final Operation[] OPERATIONS = Operation.values();
    /** The {@code api} label per operation (index {@code ordinal + 1}); index 0 is {@link #UNKNOWN_API}. */
    private static final String[] API_NAMES = apiNames();

    private final MeterRegistry registry;
    private final AtomicReferenceArray<Counter> requests;
    private final AtomicReferenceArray<Timer> durations;
    private final Counter received;
    private final Counter sent;
    private final Counter[] authFailures;

    S3RequestMeters(MeterRegistry registry) {
        this.registry = registry;
        this.requests = new AtomicReferenceArray<>(API_NAMES.length * (STATUSES + 1));
        this.durations = new AtomicReferenceArray<>(API_NAMES.length);
        this.received = Counter.builder(RECEIVED)
                .description("S3 request body bytes received (with any aws-chunked framing)")
                .baseUnit("bytes")
                .register(registry);
        this.sent = Counter.builder(SENT)
                .description("S3 response body bytes sent")
                .baseUnit("bytes")
                .register(registry);
        AuthFailure[] reasons = AuthFailure.values();
        this.authFailures = new Counter[reasons.length];
        for (AuthFailure r : reasons) {
            authFailures[r.ordinal()] = Counter.builder(AUTH_FAILURES)
                    .description("S3 requests that failed authentication, by reason")
                    .tag("reason", r.label())
                    .register(registry);
        }
    }

    /** {@code PUT_OBJECT} → {@code PutObject}: the operation's name as AWS's API reference spells it. */
    static String apiName(Operation op) {
        StringBuilder b = new StringBuilder();
        for (String word : op.name().split("_")) {
            b.append(word.charAt(0)).append(word.substring(1).toLowerCase(Locale.ROOT));
        }
        return b.toString();
    }

    private static String[] apiNames() {
        String[] names = new String[OPERATIONS.length + 1];
        names[0] = UNKNOWN_API;
        for (Operation op : OPERATIONS) {
            names[op.ordinal() + 1] = apiName(op);
        }
        return names;
    }

    @Override
    public void requestCompleted(Operation operation, int status, long nanos) {
        int api = operation == null ? 0 : operation.ordinal() + 1;
        // a status outside 100..599 cannot be sent; should one appear it shares the last slot, labelled as it is
        int s = status < MIN_STATUS || status >= MIN_STATUS + STATUSES ? STATUSES : status - MIN_STATUS;
        int slot = api * (STATUSES + 1) + s;
        Counter c = requests.get(slot);
        if (c == null) {
            c = Counter.builder(REQUESTS)
                    .description("S3 requests answered, by operation (api) and HTTP status")
                    .tag("api", API_NAMES[api])
                    .tag("status", s == STATUSES ? "other" : Integer.toString(status))
                    .register(registry); // returns the meter already registered if another thread won
            requests.set(slot, c);
        }
        c.increment();
        Timer t = durations.get(api);
        if (t == null) {
            t = Timer.builder(DURATION)
                    .description("S3 request latency, from the request head to the last byte of the answer, by"
                            + " operation (api)")
                    .tag("api", API_NAMES[api])
                    .serviceLevelObjectives(LATENCY_BUCKETS)
                    .register(registry);
            durations.set(api, t);
        }
        t.record(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void bytesReceived(long bytes) {
        received.increment(bytes);
    }

    @Override
    public void bytesSent(long bytes) {
        sent.increment(bytes);
    }

    @Override
    public void authenticationFailed(AuthFailure reason) {
        authFailures[reason.ordinal()].increment();
    }
}
