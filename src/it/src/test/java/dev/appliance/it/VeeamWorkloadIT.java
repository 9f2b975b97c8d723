package dev.appliance.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.appliance.it.veeam.Metrics.Count;
import dev.appliance.it.veeam.Metrics.Op;
import dev.appliance.it.veeam.SimConfig;
import dev.appliance.it.veeam.VeeamSimulator;
import java.nio.file.Path;
import java.util.Properties;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Veeam workload simulator ({@link VeeamSimulator}) against a real appliance process for at least 15 seconds of
 * backup sessions (and until 1000 blocks are written): every byte read back and every lock state must be what was
 * written, and every Veeam behaviour of the simulator must have been exercised at least once.
 *
 * <p>With {@code -Dveeam.endpoint=...} (and {@code veeam.accessKey}, {@code veeam.secretKey}) it drives that endpoint
 * instead of starting an appliance; the other {@code veeam.*} properties tune the load ({@code docs/veeam.md}).
 */
class VeeamWorkloadIT {
    @RegisterExtension
    static final DumpLogsOnFailure LOGS = new DumpLogsOnFailure();

    @TempDir
    static Path tmp;

    private static ApplianceProcess appliance;

    @AfterAll
    static void stop() {
        if (appliance != null) {
            long t0 = System.nanoTime();
            appliance.stop();
            System.out.printf("[it] appliance stopped in %.1f s%n", (System.nanoTime() - t0) / 1e9);
        }
    }

    @Test
    void veeamWorkload_readsBackEveryByteAndLockStateAsWritten() {
        SimConfig cfg;
        boolean external = System.getProperty("veeam.endpoint") != null;
        if (external) {
            cfg = SimConfig.from(System.getProperties());
        } else {
            // Veeam's write as shipped: the vectorised codec and MD5 lanes (ApplianceLaunch.Jit)
            appliance = LOGS.watch(ApplianceProcess.withRootCredentials(
                                    tmp.resolve("appliance"), "veeam-it-admin", "veeam-it-secret-" + UUID.randomUUID())
                            .withJit(ApplianceLaunch.Jit.PRODUCTION))
                    .start();
            // sized for the default suite on two cores; any veeam.* system property overrides these. The sessions go
            // on past the 15 s until 1000 blocks are written and the final cleanup can name a full DeleteObjects batch
            // of 1000 (locked versions and ones deleted before: 14 sessions on the two-core machine); the final
            // cleanup waits out up to one short retention (plus the clock skew), so that is short.
            Properties defaults = new Properties();
            defaults.setProperty("veeam.endpoint", appliance.s3Endpoint().toString());
            defaults.setProperty("veeam.accessKey", appliance.accessKey());
            defaults.setProperty("veeam.secretKey", appliance.secretKey());
            defaults.setProperty("veeam.seconds", "15");
            defaults.setProperty("veeam.minBlocks", "1000");
            defaults.setProperty("veeam.shortRetentionSeconds", "4");
            defaults.setProperty("veeam.cleanupIntervalSeconds", "5");
            Properties p = new Properties(defaults);
            p.putAll(System.getProperties());
            cfg = SimConfig.from(p);
        }
        VeeamSimulator.Result result;
        try (VeeamSimulator sim = new VeeamSimulator(cfg, System.out)) {
            result = sim.run();
        }
        System.out.print(result.summary());

        assertThat(result.failures())
                .as("verification failures (%d in all; seed %d)", result.failureCount(), cfg.seed())
                .isEmpty();
        assertThat(result.failureCount()).isZero();
        if (external) {
            return; // a load run sized by its caller: coverage is the caller's choice
        }
        // the run must have done what Veeam does, not merely have found nothing wrong
        assertThat(result.ops(Op.PUT_BLOCK)).as("blocks PUT as VBR sends them").isPositive();
        assertThat(result.ops(Op.PUT_BLOCK_AGENT))
                .as("blocks PUT as an SDK-based agent sends them")
                .isPositive();
        assertThat(result.count(Count.FOLDERS_CREATED)).as("directory markers").isGreaterThanOrEqualTo(4);
        assertThat(result.count(Count.CHECKPOINT_REWRITES))
                .as("checkpoint rewrites")
                .isPositive();
        assertThat(result.count(Count.ROLLBACK_READS))
                .as("rollback reads by version id")
                .isPositive();
        assertThat(result.count(Count.GENERATION_ROLLOVERS))
                .as("block generation rollovers")
                .isPositive();
        assertThat(result.count(Count.RETENTION_EXTENSIONS))
                .as("retention extensions")
                .isPositive();
        assertThat(result.count(Count.SHORTENINGS_REFUSED))
                .as("refused shortenings")
                .isGreaterThanOrEqualTo(2);
        assertThat(result.count(Count.DELETE_MARKERS_ADDED))
                .as("delete markers")
                .isPositive();
        assertThat(result.count(Count.DELETE_MARKERS_REMOVED))
                .as("delete markers removed")
                .isPositive();
        assertThat(result.count(Count.VERSIONS_DELETED))
                .as("expired versions deleted")
                .isPositive();
        assertThat(result.count(Count.LOCKED_DELETES_REFUSED))
                .as("locked versions refused")
                .isPositive();
        assertThat(result.count(Count.REPEATED_DELETES)).as("repeated deletes").isPositive();
        assertThat(result.count(Count.FULL_DELETE_BATCHES))
                .as("DeleteObjects of 1000")
                .isPositive();
        assertThat(result.count(Count.VERSIONS_HEALTH_CHECKED))
                .as("health check reads")
                .isPositive();
    }
}
