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
 * The totals the dashboard shows are summed from the counts already kept: asking for them walks no bucket, neither in
 * the call nor in the background (a never-counted bucket is left out and reported as uncounted), so their cost does
 * not grow with what the buckets hold; once counted, the sums are exact. A real store on temp drives; the tracker's
 * executor is a queue that would hold any background count.
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
            // every walk of a bucket would go through this executor or the caller: the queue shows none is started
            Queue<Runnable> background = new ArrayDeque<>();
            Executor queued = background::add;
            UsageTracker tracker = new UsageTracker(store, queued, new MovableClock());

            UsageTotals first = tracker.totals(buckets);
            // nothing counted, nothing started: every bucket is left out
            assertThat(first).isEqualTo(new UsageTotals(5, 5, 0, 0, 0, 0, null));
            assertThat(background).isEmpty();

            // one bucket read on its own is counted there; the totals then include it and leave the others out
            assertThat(tracker.usage("bkt-0").bytes()).isEqualTo(100);
            UsageTotals partial = tracker.totals(buckets);
            assertThat(partial.uncounted()).isEqualTo(4);
            assertThat(partial.objects()).isEqualTo(1);
            assertThat(partial.bytes()).isEqualTo(100);

            long bytes = 0;
            for (String b : buckets) {
                bytes += tracker.usage(b).bytes();
            }
            UsageTotals all = tracker.totals(buckets);
            // 15 objects of 100..500 bytes: the sum over b of sum_{k<=b} 100 (k+1)
            assertThat(all.uncounted()).isZero();
            assertThat(all.objects()).isEqualTo(15);
            assertThat(all.versions()).isEqualTo(15);
            assertThat(all.bytes()).isEqualTo(100L * (1 + 3 + 6 + 10 + 15)).isEqualTo(bytes);
            assertThat(all.oldestCount()).isNotNull();
            assertThat(background)
                    .as("the totals started no count in the background")
                    .isEmpty();
        } finally {
            store.close();
        }
    }
}
