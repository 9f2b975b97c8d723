package dev.appliance.core.engine;

import dev.appliance.core.ObjectReader;
import dev.appliance.core.drive.LocalDrive;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Drive-level helpers for the healing tests: snapshots of an object's files, damage, waiting for a drive to return.
 * Stores are opened and drives taken away through {@link TestEngine}.
 */
final class HealTestDrives {
    private HealTestDrives() {}

    /** Every file under the object's directory on a drive, by relative path (empty when the directory is gone). */
    static Map<String, byte[]> files(LocalDrive drive, String bucket, String key) throws IOException {
        Path dir = drive.objectDir(bucket, key);
        Map<String, byte[]> out = new TreeMap<>();
        if (!Files.isDirectory(dir)) {
            return out;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.filter(Files::isRegularFile).toList()) {
                out.put(dir.relativize(p).toString(), Files.readAllBytes(p));
            }
        }
        return out;
    }

    static List<Map<String, byte[]>> snapshot(ErasureObjectStore store, String bucket, String key) throws IOException {
        List<Map<String, byte[]>> out = new ArrayList<>();
        for (LocalDrive d : store.drives()) {
            out.add(files(d, bucket, key));
        }
        return out;
    }

    static List<Path> partFiles(LocalDrive drive, String bucket, String key) throws IOException {
        try (Stream<Path> s = Files.walk(drive.objectDir(bucket, key))) {
            return s.filter(p -> p.getFileName().toString().startsWith("part."))
                    .sorted()
                    .toList();
        }
    }

    /** Flips {@code count} random bytes of {@code file} (each to a different value). */
    static void corrupt(Path file, int count, long seed) throws IOException {
        Random r = new Random(seed);
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            long len = raf.length();
            for (int i = 0; i < count; i++) {
                long at = (long) (r.nextDouble() * len);
                raf.seek(at);
                int b = raf.read();
                raf.seek(at);
                raf.write(b ^ (1 + r.nextInt(255)));
            }
        }
    }

    /** Waits until the calls the drive stalled have ended, then runs the drive check, which must bring it back. */
    static void awaitBackInService(ErasureObjectStore store, LocalDrive d) throws InterruptedException {
        await("the stalled calls of " + d + " ended", () -> d.stalledCalls() == 0);
        List<String> events = store.checkDrives();
        org.assertj.core.api.Assertions.assertThat(d.isOnline())
                .as("back after its probe: %s", events)
                .isTrue();
    }

    static byte[] read(ErasureObjectStore store, String bucket, String key, String versionId) throws IOException {
        try (ObjectReader r = store.getObject(bucket, key, versionId, 0, -1)) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            r.transferTo(out);
            return out.toByteArray();
        }
    }

    static byte[] random(int size, long seed) {
        byte[] b = new byte[size];
        new java.util.Random(seed).nextBytes(b);
        return b;
    }

    /** Waits up to 30 s for {@code condition}. */
    static void await(String what, java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(20);
        }
    }

    static List<List<Integer>> subsets(int n, int size) {
        List<List<Integer>> out = new ArrayList<>();
        for (int mask = 0; mask < (1 << n); mask++) {
            if (Integer.bitCount(mask) == size) {
                List<Integer> s = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    if ((mask & (1 << i)) != 0) {
                        s.add(i);
                    }
                }
                out.add(s);
            }
        }
        return out;
    }
}
