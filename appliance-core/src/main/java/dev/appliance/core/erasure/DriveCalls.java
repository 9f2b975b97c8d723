package dev.appliance.core.erasure;

import dev.appliance.core.drive.LocalDrive;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;

/** Runs one call on every drive of a set at once and collects each drive's value or failure, by position. */
final class DriveCalls {
    private final ExecutorService executor;

    DriveCalls(ExecutorService executor) {
        this.executor = executor;
    }

    interface Call<T> {
        T call(int position, LocalDrive drive) throws Exception;
    }

    /** A drive's answer: a value, or the failure (an offline drive fails with {@link DriveOfflineException}). */
    record Outcome<T>(T value, Throwable error) {
        boolean ok() {
            return error == null;
        }
    }

    static final class DriveOfflineException extends Exception {
        private static final long serialVersionUID = 1L;

        DriveOfflineException(LocalDrive drive) {
            super("drive " + drive.root() + " is offline: " + drive.offlineReason(), null, false, false);
        }
    }

    <T> List<Outcome<T>> onAll(List<LocalDrive> drives, Call<T> call) {
        return on(drives, null, call);
    }

    /** Like {@link #onAll} but only where {@code include[position]}; other positions answer null without error. */
    <T> List<Outcome<T>> on(List<LocalDrive> drives, boolean[] include, Call<T> call) {
        List<Future<T>> futures = new ArrayList<>(drives.size());
        for (int i = 0; i < drives.size(); i++) {
            LocalDrive drive = drives.get(i);
            int position = i;
            if (include != null && !include[i]) {
                futures.add(null);
            } else if (!drive.isOnline()) {
                futures.add(java.util.concurrent.CompletableFuture.failedFuture(new DriveOfflineException(drive)));
            } else {
                futures.add(executor.submit(() -> call.call(position, drive)));
            }
        }
        List<Outcome<T>> outcomes = new ArrayList<>(drives.size());
        for (Future<T> f : futures) {
            if (f == null) {
                outcomes.add(new Outcome<>(null, null));
                continue;
            }
            try {
                outcomes.add(new Outcome<>(f.get(), null));
            } catch (ExecutionException e) {
                outcomes.add(new Outcome<>(null, e.getCause()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                outcomes.add(new Outcome<>(null, e));
            }
        }
        return outcomes;
    }

    /**
     * Fails with {@link dev.appliance.core.ErrorKind#WRITE_QUORUM} (or {@code STORAGE_FULL} when drives are full) unless
     * at least {@code quorum} of {@code outcomes} succeeded.
     */
    static void requireQuorum(List<? extends Outcome<?>> outcomes, int quorum, String what) {
        int ok = 0;
        Throwable first = null;
        for (var o : outcomes) {
            if (o.ok()) {
                ok++;
            } else if (first == null) {
                first = o.error();
            }
        }
        if (ok < quorum) {
            boolean full = first != null && ErasureSet.isDiskFull(first);
            throw new dev.appliance.core.StorageException(
                    full ? dev.appliance.core.ErrorKind.STORAGE_FULL : dev.appliance.core.ErrorKind.WRITE_QUORUM,
                    what + " reached " + ok + " drive(s), " + quorum + " needed" + (first == null ? "" : ": " + first));
        }
    }
}
