package dev.appliance.app.config;

import dev.appliance.app.cli.ServerOptions.HostPort;
import dev.appliance.core.drive.DriveSettings;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Positive;
import jakarta.validation.constraints.PositiveOrZero;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.hibernate.validator.constraints.time.DurationMin;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.annotation.Validated;

/**
 * Every setting of {@code appliance server}, under the prefix {@code appliance}. Bound by {@link ApplianceBinding}
 * (flags, {@code -D} system properties, environment variables such as {@code APPLIANCE_SCANNER_RATE}, then the
 * {@code --config} file) and validated before the start writes anything; the table in docs/operations.md lists each
 * property with its flag, variable and default.
 */
@ConfigurationProperties(prefix = "appliance")
@Validated
public record ApplianceProperties(
        @Valid @DefaultValue S3 s3,
        @Valid @DefaultValue Console console,
        @Valid @DefaultValue Shutdown shutdown,
        @Valid @DefaultValue Drives drives,
        @Valid @DefaultValue Scanner scanner,
        @Valid @DefaultValue Testing testing,
        @Valid @DefaultValue Metrics metrics,
        @Valid @DefaultValue Health health,
        @Valid @DefaultValue Logging logging) {

    static final String POSITIVE_DURATION = "expected a positive duration such as 500ms, 10s, 5m, 24h or PT10S";
    static final String POSITIVE_NUMBER = "expected a positive number";
    static final String ZERO_OR_MORE = "expected 0 or a positive number";
    static final String ZERO_OR_MORE_DURATION = "expected 0 or a positive duration such as 500ms, 10s, 5m or PT10S";
    static final String ONE_TO_TWENTY = "expected a number from 1 to 20";
    static final String AT_LEAST_A_SECOND = "expected a duration of at least 1s, such as 10s, 5m, 7d or PT10S";

    /**
     * The S3 endpoint.
     *
     * @param address where it listens ({@code --address})
     * @param certsDir TLS from {@code public.crt} and {@code private.key} there; null: plain HTTP
     * @param domain virtual-hosted-style domain ({@code --domain}, also {@code APPLIANCE_DOMAIN}); null: none
     * @param maxConnections open connections accepted
     * @param maxRequests requests in flight; null: from memory and CPUs
     * @param timeouts request timeouts
     */
    public record S3(
            @NotNull @DefaultValue(":9000") HostPort address,
            Path certsDir,
            String domain,

            @Positive(message = POSITIVE_NUMBER) @DefaultValue("10000")
            int maxConnections,

            @Positive(message = POSITIVE_NUMBER) Integer maxRequests,
            @Valid @DefaultValue Timeouts timeouts) {}

    /**
     * @param header time a client has to send a request's line and headers
     * @param body silence allowed inside a request body
     * @param idle an idle keep-alive connection is closed after this
     */
    public record Timeouts(
            @NotNull @DurationMin(millis = 1, message = POSITIVE_DURATION) @DefaultValue("30s")
            Duration header,

            @NotNull @DurationMin(millis = 1, message = POSITIVE_DURATION) @DefaultValue("60s")
            Duration body,

            @NotNull @DurationMin(millis = 1, message = POSITIVE_DURATION) @DefaultValue("5m")
            Duration idle) {}

    /**
     * How the server stops on SIGTERM (docs/operations.md#stopping-and-restarting).
     *
     * @param grace how long S3 requests in flight (an upload streaming in) may run on once the server stops taking
     *     new ones; those still running then are cut short. Keep it below the unit's TimeoutStopSec (120 s) less
     *     the time the console and the store take to close
     */
    public record Shutdown(
            @NotNull @DurationMin(millis = 0, message = ZERO_OR_MORE_DURATION) @DefaultValue("90s")
            Duration grace) {}

    /** @param address where the admin console listens ({@code --console-address}) */
    public record Console(@NotNull @DefaultValue(":9001") HostPort address) {}

    /**
     * @param paths drive directories, each may hold {@code {1...N}} ellipses; empty: {@code ./data/disk{1...4}}
     * @param parity parity shards per erasure set; null: by set size
     * @param allowRoot drives may share the root filesystem (trials only)
     * @param metadataJournal false forces each rewritten metadata file instead of journaling it
     * @param timeout no drive call waits longer; a drive that overruns it is taken out of service
     * @param straggler once enough drives answered a read, how long the others may lag
     * @param writeStraggler the same for the staging writes of a write
     * @param errorLimit this many I/O errors of one drive within {@code errorWindow} take it out of service, 0 never
     * @param errorWindow the window those errors are counted in
     * @param checkInterval how often drives are checked for removal, return and replacement; 0: only at start
     * @param groupCommit false forces each file and directory of an object write instead of sharing one flush of the
     *     drive's filesystem among concurrent writes
     * @param directIo false writes part files through the page cache instead of with direct I/O
     */
    public record Drives(
            @DefaultValue List<String> paths,
            @Positive(message = POSITIVE_NUMBER) Integer parity,
            boolean allowRoot,
            @DefaultValue("true") boolean metadataJournal,

            @NotNull @DurationMin(millis = 1, message = POSITIVE_DURATION) @DefaultValue("30s")
            Duration timeout,

            @NotNull @DurationMin(millis = 0, message = ZERO_OR_MORE_DURATION) @DefaultValue("300ms")
            Duration straggler,

            @NotNull @DurationMin(millis = 0, message = ZERO_OR_MORE_DURATION) @DefaultValue("2s")
            Duration writeStraggler,

            @PositiveOrZero(message = ZERO_OR_MORE) @DefaultValue("10")
            int errorLimit,

            @NotNull @DurationMin(millis = 1, message = POSITIVE_DURATION) @DefaultValue("60s")
            Duration errorWindow,

            @NotNull @DurationMin(millis = 0, message = ZERO_OR_MORE_DURATION) @DefaultValue("10s")
            Duration checkInterval,

            @DefaultValue("true") boolean groupCommit,
            @DefaultValue("true") boolean directIo) {

        /** The engine's drive settings ({@code StoreConfig}) from these properties, validated above. */
        public DriveSettings driveSettings() {
            return new DriveSettings(
                    timeout, straggler, writeStraggler, errorLimit, errorWindow, checkInterval, groupCommit, directIo);
        }
    }

    /**
     * @param lifecycleDay length of a lifecycle day; null: 24 hours (shorter for tests and demos only)
     * @param interval least time between scanner cycles; null: 1 minute, or a quarter of a shorter lifecycle day
     * @param rate keys scanned a second, 0 unlimited
     * @param healSampleCycles every key is heal-checked once in this many cycles, 0 never
     * @param deepScanInterval how often a cycle verifies every shard's checksums; null: never
     * @param maxVersionsPerKey versions one key may have; null: the engine's default (10,000)
     */
    public record Scanner(
            @DurationMin(millis = 1, message = POSITIVE_DURATION)
            Duration lifecycleDay,

            @DurationMin(millis = 1, message = POSITIVE_DURATION)
            Duration interval,

            @PositiveOrZero(message = ZERO_OR_MORE) @DefaultValue("1000")
            int rate,

            @PositiveOrZero(message = ZERO_OR_MORE) @DefaultValue("16")
            int healSampleCycles,

            @DurationMin(millis = 1, message = POSITIVE_DURATION)
            Duration deepScanInterval,

            @Positive(message = POSITIVE_NUMBER) Integer maxVersionsPerKey) {}

    /**
     * The Prometheus scrape at {@code /actuator/prometheus} on the console address, and the short in-memory history the
     * console's dashboard graphs (docs/metrics.md).
     *
     * @param token the bearer token a scrape must present ({@code APPLIANCE_METRICS_TOKEN}); null or blank: every
     *     scrape is refused
     * @param sampleInterval how often the dashboard's traffic history samples the S3 meters (one graph point each)
     * @param trafficHistory how much traffic history is kept in memory (trafficHistory / sampleInterval points)
     * @param capacityInterval how often used capacity is recorded for the days-to-full forecast
     * @param capacityHistory how much capacity history is kept in memory, and the forecast looks back on
     * @param forecastMinSpan the capacity history must span this much before a days-to-full forecast is given
     */
    public record Metrics(
            String token,

            @NotNull @DurationMin(seconds = 1, message = AT_LEAST_A_SECOND) @DefaultValue("10s")
            Duration sampleInterval,

            @NotNull @DurationMin(seconds = 1, message = AT_LEAST_A_SECOND) @DefaultValue("1h")
            Duration trafficHistory,

            @NotNull @DurationMin(seconds = 1, message = AT_LEAST_A_SECOND) @DefaultValue("5m")
            Duration capacityInterval,

            @NotNull @DurationMin(seconds = 1, message = AT_LEAST_A_SECOND) @DefaultValue("7d")
            Duration capacityHistory,

            @NotNull @DurationMin(millis = 0, message = ZERO_OR_MORE_DURATION) @DefaultValue("1h")
            Duration forecastMinSpan) {
        @Override
        public String toString() {
            return "Metrics[token=" + (token == null || token.isBlank() ? "unset" : "(set)") // never the secret
                    + ", sampleInterval=" + sampleInterval + ", trafficHistory=" + trafficHistory
                    + ", capacityInterval=" + capacityInterval + ", capacityHistory=" + capacityHistory
                    + ", forecastMinSpan=" + forecastMinSpan + "]";
        }
    }

    /**
     * The health checks the appliance runs itself: the installer's cheap preflight rules against its own drives, and
     * the drives' and the retention clock's state (docs/operations.md, "Health checks").
     *
     * @param checksInterval how often the installer's preflight rules run (they read /proc and /sys and run smartctl
     *     per disk; the first run is at start); their results feed {@code GET /api/v1/health/checks}, the console's
     *     System checks page, the health alerts and metrics
     * @param driveChecksInterval how often the runtime checks run: each drive's state, errors and latency over the
     *     interval, each set's quorum and the retention clock (in memory, cheap); their results feed the same
     */
    public record Health(
            @NotNull @DurationMin(seconds = 1, message = AT_LEAST_A_SECOND) @DefaultValue("5m")
            Duration checksInterval,

            @NotNull @DurationMin(seconds = 1, message = AT_LEAST_A_SECOND) @DefaultValue("30s")
            Duration driveChecksInterval) {}

    /**
     * Where the server logs (docs/operations.md#logging).
     *
     * @param dir the directory of the rotated log files {@code appliance.log} and {@code access.log}
     *     ({@code --log-dir}); null: everything goes to standard output (a checkout, or journald)
     * @param accessLog whether the S3 access log (one line per request) is on at start; switched at run time by the
     *     admin API, never persisted: a restart comes back to this
     * @param maxFileSize a log file is rotated when it grows past this
     * @param maxFiles rotated files kept of each log, compressed (the oldest is deleted), 1 to 20
     */
    public record Logging(
            Path dir,
            boolean accessLog,
            @NotNull @DefaultValue("100MB") DataSize maxFileSize,

            @Min(value = 1, message = ONE_TO_TWENTY) @Max(value = 20, message = ONE_TO_TWENTY) @DefaultValue("10")
            int maxFiles) {}

    /**
     * Test-only switches (docs/testing.md); a production appliance leaves them off.
     *
     * @param faultInjection the admin API may inject drive faults ({@code -Dappliance.faultInjection=true})
     * @param haltBeforeBanner with fault injection, the process halts after storing credentials, before the banner
     */
    public record Testing(boolean faultInjection, boolean haltBeforeBanner) {}
}
