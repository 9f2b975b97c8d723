package dev.appliance.core.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.appliance.core.PutRequest;
import dev.appliance.core.VersioningState;
import dev.appliance.core.lifecycle.LifecycleConfiguration;
import dev.appliance.core.lifecycle.LifecycleConfiguration.Filter;
import dev.appliance.core.lifecycle.LifecycleConfiguration.NoncurrentExpiration;
import dev.appliance.core.lifecycle.LifecycleConfiguration.Rule;
import dev.appliance.core.testing.TestStore;
import java.io.ByteArrayInputStream;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Measures what trimming one key's noncurrent versions costs per removed version as the key grows (2,000 to 20,000
 * versions), printing one line per size. A measurement, not part of the default suite (its name is not a test
 * class name surefire picks up; timings on a shared machine are not assertions); run it with:
 *
 * <pre>
 * ./appliance mvn -o -pl appliance-core verify -Dtest=LifecycleTrimCostMeasurement \
 *     -Dsurefire.failIfNoSpecifiedTests=false
 * </pre>
 */
class LifecycleTrimCostMeasurement {
    @TempDir
    Path tmp;

    @Test
    void trimCostPerRemovedVersion_bySize() throws Exception {
        for (int n : new int[] {2_000, 5_000, 10_000, 20_000, 2_000, 5_000, 10_000, 20_000}) {
            dev.appliance.core.MovableClock wall = new dev.appliance.core.MovableClock();
            TestStore layout =
                    TestStore.on(tmp.resolve("run" + System.nanoTime())).clock(wall);
            try (ErasureObjectStore store = TestEngine.open(layout)) {
                store.makeBucket("trims");
                store.setVersioning("trims", VersioningState.ENABLED);
                store.maxVersionsPerKey(30_000);
                store.putObject("trims", "k", PutRequest.of(0), new ByteArrayInputStream(new byte[0]));
                LifecycleScannerTest.writeOlderVersions(store, "trims", "k", n - 1);
                store.setLifecycleConfiguration(
                        "trims",
                        new LifecycleConfiguration(List.of(
                                new Rule("trim", true, Filter.ALL, null, new NoncurrentExpiration(1, 5), null))));
                wall.forwardDays(2);
                long t0 = System.nanoTime();
                var scan = store.scanNow().buckets().get("trims");
                long micros = (System.nanoTime() - t0) / 1000;
                assertThat(scan.removedNoncurrent()).isEqualTo(n - 6);
                System.out.printf(
                        "trim: %,d versions, %,d removed in %d batches, %,d ms, %.1f us per removed version%n",
                        n,
                        scan.removedNoncurrent(),
                        scan.removalBatches(),
                        micros / 1000,
                        (double) micros / scan.removedNoncurrent());
            }
        }
    }
}
