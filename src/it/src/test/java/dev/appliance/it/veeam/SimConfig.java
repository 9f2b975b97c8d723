package dev.appliance.it.veeam;

import static java.util.Objects.requireNonNull;

import java.net.URI;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Properties;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The simulator's knobs, read from {@code veeam.*} system properties (see {@code docs/veeam.md}).
 *
 * @param endpoint S3 endpoint, e.g. {@code http://127.0.0.1:9000}
 * @param bucket the repository bucket; created with Object Lock when missing
 * @param repo the repository folder under {@code Veeam/Backup/}, fresh per run by default
 * @param duration how long backup sessions are started for (the final cleanup and health check come after)
 * @param minBlocks blocks to write at least, even past {@code duration} (at most eight times it), so that a short run
 *     on a slow machine still fills a DeleteObjects batch
 * @param concurrency parallel S3 operations ({@code S3ConcurrentTaskLimit}, 64 by default in Veeam)
 * @param chains backup chains (one client machine and one backup each)
 * @param blocksPerSession blocks each chain writes per session
 * @param transientShare share of blocks belonging to restore points that retention retires (short lock, deleted)
 * @param shortRetention COMPLIANCE period of transient blocks and of checkpoint versions outside the rollback window
 * @param chainRetention COMPLIANCE period of blocks still referenced by a chain and of repository configuration
 * @param generationExtension how far each block-generation rollover pushes the chain's retain-until date
 * @param sessionsPerGeneration sessions per block generation (a rollover extends every live chain block)
 * @param deleteBatch keys per DeleteObjects ({@code S3MultiObjectDeleteLimit}, at most 1000)
 * @param cleanupInterval how long released versions may wait for a batch to fill before a partial one goes out
 * @param clockSkew margin between the simulator's clock and the appliance's retention clock
 * @param seed seed of every size, content and choice of the run (printed, so a run can be repeated)
 * @param sosapi whether the bucket must answer Veeam's SOSAPI objects
 * @param healthCheckAll whether the final health check reads every version back (else a sample)
 */
public record SimConfig(
        URI endpoint,
        String accessKey,
        String secretKey,
        String region,
        String bucket,
        String repo,
        Duration duration,
        int minBlocks,
        int concurrency,
        int chains,
        int blocksPerSession,
        double transientShare,
        Duration shortRetention,
        Duration chainRetention,
        Duration generationExtension,
        int sessionsPerGeneration,
        int deleteBatch,
        Duration cleanupInterval,
        Duration clockSkew,
        long seed,
        boolean sosapi,
        boolean healthCheckAll) {

    public SimConfig {
        requireNonNull(endpoint, "endpoint");
        requireNonNull(accessKey, "accessKey");
        requireNonNull(secretKey, "secretKey");
        if (concurrency < 1) {
            throw new IllegalArgumentException("concurrency: " + concurrency + " (expected >= 1)");
        }
        if (deleteBatch < 1 || deleteBatch > 1000) {
            throw new IllegalArgumentException("deleteBatch: " + deleteBatch + " (expected 1..1000)");
        }
        if (chains < 1 || blocksPerSession < 1 || sessionsPerGeneration < 1) {
            throw new IllegalArgumentException("chains, blocksPerSession and sessionsPerGeneration must be >= 1");
        }
        if (transientShare < 0 || transientShare > 0.9) {
            throw new IllegalArgumentException("transientShare: " + transientShare + " (expected 0..0.9)");
        }
        if (chainRetention.compareTo(duration.plus(shortRetention).plusMinutes(5)) < 0) {
            // chain blocks serve as the "still locked" probes of the delete checks: they must outlive the run
            throw new IllegalArgumentException(
                    "chainRetention: " + chainRetention + " (expected at least the run's duration + 5 minutes)");
        }
    }

    /**
     * Reads {@code veeam.*} properties ({@link Properties#getProperty} also consults the defaults a caller layered
     * below); {@code veeam.endpoint}, {@code veeam.accessKey} and {@code veeam.secretKey} are required.
     */
    public static SimConfig from(Properties p) {
        String endpoint = p.getProperty("veeam.endpoint");
        String accessKey = p.getProperty("veeam.accessKey");
        String secretKey = p.getProperty("veeam.secretKey");
        if (endpoint == null || accessKey == null || secretKey == null) {
            throw new IllegalArgumentException("set -Dveeam.endpoint, -Dveeam.accessKey and -Dveeam.secretKey");
        }
        Duration duration = Duration.ofSeconds(longOf(p, "veeam.seconds", 60));
        long suffix = ThreadLocalRandom.current().nextLong();
        return new SimConfig(
                URI.create(endpoint),
                accessKey,
                secretKey,
                p.getProperty("veeam.region", "us-east-1"),
                p.getProperty("veeam.bucket", "veeam-sim-" + HexFormat.of().toHexDigits(suffix, 8)),
                p.getProperty("veeam.repo", "sim-" + HexFormat.of().toHexDigits(suffix >>> 32, 8)),
                duration,
                (int) longOf(p, "veeam.minBlocks", 0),
                (int) longOf(p, "veeam.concurrency", 64),
                (int) longOf(p, "veeam.chains", 4),
                (int) longOf(p, "veeam.blocksPerSession", 24),
                Double.parseDouble(p.getProperty("veeam.transientShare", "0.4")),
                Duration.ofSeconds(longOf(p, "veeam.shortRetentionSeconds", 10)),
                Duration.ofMinutes(longOf(p, "veeam.chainRetentionMinutes", 60 + duration.toMinutes())),
                Duration.ofSeconds(longOf(p, "veeam.generationExtensionSeconds", 60)),
                (int) longOf(p, "veeam.sessionsPerGeneration", 3),
                (int) longOf(p, "veeam.deleteBatch", 1000),
                Duration.ofSeconds(longOf(p, "veeam.cleanupIntervalSeconds", 60)),
                Duration.ofMillis(longOf(p, "veeam.clockSkewMillis", 2000)),
                longOf(p, "veeam.seed", ThreadLocalRandom.current().nextLong()),
                Boolean.parseBoolean(p.getProperty("veeam.sosapi", "true")),
                Boolean.parseBoolean(p.getProperty("veeam.healthCheckAll", "true")));
    }

    private static long longOf(Properties p, String name, long dflt) {
        String v = p.getProperty(name);
        try {
            return v == null ? dflt : Long.parseLong(v.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + ": " + v + " (expected an integer)", e);
        }
    }
}
