package dev.appliance.core.usage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.appliance.core.MovableClock;
import dev.appliance.core.PutRequest;
import dev.appliance.core.UsageTotals;
import dev.appliance.core.admin.ApplianceStore;
import dev.appliance.core.testing.TestStore;
import java.io.ByteArrayInputStream;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.Executor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The totals the dashboard shows are summed from the counts already kept: asking for them walks no bucket (the counts
 * of never-counted buckets are handed to the background executor, once each), so their cost does not grow with what
 * the buckets hold; once counted, the sums are exact. A real store on temp drives; the executor is a queue run by hand.
 */
class UsageTotalsTest {
    @TempDir
    Path tmp;

    @Test
    void totalsWalkNoBucket_countsOfUncountedBucketsGoToTheBackgroundOnce_thenSumExactly() throws Exception {
        ApplianceStore store = TestStore.on(tmp).open();
        try {
            List<String> buckets = new ArrayList<>();
            for (int b = 0; b < 5; b++) {
                String name = "bkt-" + b;
                store.makeBucket(name);
                buckets.add(name);
                for (int k = 0; k <= b; k++) {
                    byte[] data = new byte[100 * (k + 1)];
                    store.putObject(name, "k" + k, PutRequest.of(data.length), new ByteArrayInputStream(data));
                }
            }
            Queue<Runnable> background = new ArrayDeque<>();
            Executor queued = background::add;
            UsageTracker tracker = new UsageTracker(store, queued, new MovableClock());

            UsageTotals first = tracker.totals(buckets);
            // nothing counted in the call: every bucket is left out, its count queued
            assertThat(first).isEqualTo(new UsageTotals(5, 5, 0, 0, 0, 0, null));
            assertThat(background).hasSize(5);
            tracker.totals(buckets);
            assertThat(background)
                    .as("a count already queued is not queued again")
                    .hasSize(5);

            // the background counts one bucket: the next totals include it and leave the others out
            background.poll().run();
            UsageTotals partial = tracker.totals(buckets);
            assertThat(partial.uncounted()).isEqualTo(4);
            assertThat(partial.objects()).isEqualTo(1);
            assertThat(partial.bytes()).isEqualTo(100);

            while (!background.isEmpty()) {
                background.poll().run();
            }
            UsageTotals all = tracker.totals(buckets);
            // 15 objects of 100..500 bytes: sum over b of sum_{k<=b} 100 (k+1)
            assertThat(all.uncounted()).isZero();
            assertThat(all.objects()).isEqualTo(15);
            assertThat(all.versions()).isEqualTo(15);
            assertThat(all.bytes()).isEqualTo(100L * (1 + 3 + 6 + 10 + 15));
            assertThat(all.oldestCount()).isNotNull();
            assertThat(background).as("counted buckets start no walk").isEmpty();
            // and the sums agree with each bucket's own usage
            long bytes = 0;
            for (String b : buckets) {
                bytes += tracker.usage(b).bytes();
            }
            assertThat(all.bytes()).isEqualTo(bytes);
        } finally {
            store.close();
        }
    }
}
