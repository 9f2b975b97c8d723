package dev.appliance.core.usage;

import dev.appliance.core.StorageCapacity;
import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Usable bytes after erasure overhead. A drive's share of its file system is the file system divided among the drives
 * on it (several drive directories may share one disk, as in the default lab layout); a set holds its smallest share
 * times its data shards; the pool is the sum of its sets. A set with fewer readable drives than data shards adds
 * nothing.
 */
final class PoolCapacity {
    private PoolCapacity() {}

    static StorageCapacity of(List<UsageTracker.SetDrives> sets) {
        Map<FileStore, Integer> drivesPerStore = new HashMap<>();
        Map<Path, FileStore> storeOf = new HashMap<>();
        for (UsageTracker.SetDrives set : sets) {
            for (Path root : set.onlineRoots()) {
                try {
                    FileStore fs = Files.getFileStore(root);
                    storeOf.put(root, fs);
                    drivesPerStore.merge(fs, 1, Integer::sum);
                } catch (IOException e) {
                    // an unreadable drive adds nothing
                }
            }
        }
        long usable = 0;
        long free = 0;
        for (UsageTracker.SetDrives set : sets) {
            long minTotal = Long.MAX_VALUE;
            long minFree = Long.MAX_VALUE;
            int online = 0;
            for (Path root : set.onlineRoots()) {
                FileStore fs = storeOf.get(root);
                if (fs == null) {
                    continue;
                }
                try {
                    int sharing = drivesPerStore.get(fs);
                    minTotal = Math.min(minTotal, fs.getTotalSpace() / sharing);
                    minFree = Math.min(minFree, fs.getUsableSpace() / sharing);
                    online++;
                } catch (IOException e) {
                    // as above
                }
            }
            if (online >= set.dataShards()) {
                usable += minTotal * set.dataShards();
                free += minFree * set.dataShards();
            }
        }
        return new StorageCapacity(usable, free);
    }
}
