package dev.appliance.it;

import dev.appliance.core.drive.LocalDrive;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * How the tests run the built appliance: the jar's classes from Spring Boot's extracted layout with a JDK AOT cache
 * (class loading, linking and method profiles of a start, JEP 483 and 515), made once per test JVM by a training run.
 *
 * <p>Why: every test class starts the appliance at least once, some of them dozens of times, and on the two-core CI
 * machine a start from the fat jar took 10-14 s, the largest share of it in Spring Boot's nested-jar loader; with the
 * cache a start takes 7-8 s (docs/testing.md). The classes,
 * their versions and the server's arguments are the built jar's, unchanged; the fat jar itself is still what the
 * launcher and RPM tests run ({@link ApplianceProcess#withLauncher}). If anything here fails, the tests run {@code
 * java -jar} on the fat jar as before, after saying why on stderr; {@code -Dappliance.aot=false} does that on purpose.
 */
final class ApplianceLaunch {
    private static final Duration TRAINING_TIMEOUT = Duration.ofSeconds(180);

    /**
     * How the appliance's JVM compiles: the JVM options a process gets, its training run included (a cache is only
     * valid for the options it was made with).
     */
    enum Jit {
        /**
         * As the launcher runs it: the Vector API (the vectorised Reed-Solomon codec and MD5 lanes) and both JIT tiers.
         */
        PRODUCTION("--add-modules=jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED", "-Xmx1g"),
        /**
         * The client compiler only, and so without the Vector API (which only the server compiler makes fast): the
         * scalar codec and one MD5 per body, the same bytes (ReedSolomonVectorsTest, Md5LanesTest). A start costs
         * 5-6 s of CPU instead of 11-13, on a two-core machine that runs two test classes at once (docs/testing.md).
         */
        QUICK("--enable-native-access=ALL-UNNAMED", "-Xmx1g", "-XX:TieredStopAtLevel=1");

        final List<String> options;

        Jit(String... options) {
            this.options = List.of(options);
        }

        /** The default of the tests' processes: system property {@code appliance.jit}, {@code quick} unless set. */
        static Jit byDefault() {
            return "production".equals(System.getProperty("appliance.jit")) ? PRODUCTION : QUICK;
        }
    }

    // made once per Jit: options naming the cache, then "-jar" and the jar
    private static final EnumMap<Jit, List<String>> PREFIXES = new EnumMap<>(Jit.class);

    private ApplianceLaunch() {}

    /** The java executable the tests run the appliance with. */
    static String java() {
        return System.getProperty(
                "appliance.java",
                Path.of(System.getProperty("java.home"), "bin", "java").toString());
    }

    /** The fat jar the reactor built (system property {@code appliance.jar}). */
    static Path fatJar() {
        String jar = System.getProperty("appliance.jar");
        if (jar == null || jar.isBlank()) {
            throw new AssertionError("system property appliance.jar (set by the failsafe configuration) is not set");
        }
        Path p = Path.of(jar);
        if (!Files.isRegularFile(p)) {
            throw new AssertionError("the appliance jar " + p + " is missing; build the reactor first");
        }
        return p;
    }

    /** What follows {@code jit}'s options in the command: the cache's options, {@code -jar} and the jar to run. */
    static synchronized List<String> jarArguments(Jit jit) {
        List<String> known = PREFIXES.get(jit);
        if (known == null) {
            known = prepare(jit);
            if (known == null) {
                return List.of("-jar", fatJar().toString()); // this start only: the next one looks again
            }
            PREFIXES.put(jit, known);
        }
        return known;
    }

    /** The cache's arguments, or {@code plain} if there is none to be had; null while another JVM is making it. */
    private static List<String> prepare(Jit jit) {
        Path fat = fatJar();
        List<String> plain = List.of("-jar", fat.toString());
        String dir = System.getProperty("appliance.aot.dir");
        if ("false".equals(System.getProperty("appliance.aot")) || dir == null || dir.isBlank()) {
            return plain;
        }
        if (jit != Jit.byDefault()) {
            // A cache pays for itself over many starts only: the default suite starts the other compiler setting twice
            // (VeeamWorkloadIT, ReadDuringOverwriteIT), and its training run took 34 s on the two-core machine against
            // the 4-5 s it saves a start. Under -Pcrash, where it is the default, CrashSafetyIT starts it dozens of
            // times.
            return plain;
        }
        Path root = Path.of(dir).resolve(jit.name().toLowerCase(Locale.ROOT));
        // Failsafe runs test classes in several JVMs at once: the first to take the lock makes the cache and the others
        // use it (a cache is mapped read-only, so any number of appliances can share one). While one JVM makes it
        // (about 26 s), another does not wait: its starts run the fat jar (about 12 s each) until the lock is free.
        Path lockFile = root.resolveSibling(root.getFileName() + ".lock");
        try (FileChannel lockChannel =
                        FileChannel.open(createParent(lockFile), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                FileLock lock = lockChannel.tryLock()) {
            if (lock == null) {
                System.err.println("[it] another test JVM is making the AOT cache: this start runs the fat jar");
                return null;
            }
            Path extracted = root.resolve("app");
            Path cache = root.resolve("appliance.aot");
            Path stamp = root.resolve("built-from");
            String from = fat.toAbsolutePath() + " " + Files.size(fat) + " " + Files.getLastModifiedTime(fat) + " "
                    + jit.options;
            boolean current = Files.isRegularFile(cache)
                    && Files.isRegularFile(stamp)
                    && Files.readString(stamp).equals(from);
            if (!current) {
                long t0 = System.nanoTime();
                LocalDrive.deleteTree(root);
                Files.createDirectories(root);
                Commands.Result extract = Commands.run(
                        root,
                        List.of(
                                java(),
                                "-Djarmode=tools",
                                "-jar",
                                fat.toString(),
                                "extract",
                                "--destination",
                                extracted.toString()),
                        Map.of(),
                        120);
                if (extract.status() != 0) {
                    throw new IOException("extracting " + fat + " exited with " + extract.status() + ": "
                            + extract.stdout() + extract.stderr());
                }
                train(jit, extracted.resolve(fat.getFileName()), cache, root);
                Files.writeString(stamp, from);
                System.err.printf(
                        "[it] AOT cache for the appliance (%s) made in %d s: %s%n",
                        jit, TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0), cache);
            }
            return List.of(
                    "-XX:AOTCache=" + cache,
                    "-jar",
                    extracted.resolve(fat.getFileName()).toString());
        } catch (IOException | RuntimeException | AssertionError e) {
            System.err.println("[it] running the appliance as java -jar " + fat + " without an AOT cache: " + e);
            return plain;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return plain;
        }
    }

    private static Path createParent(Path file) throws IOException {
        Files.createDirectories(file.getParent());
        return file;
    }

    /**
     * The training run: a real start on throwaway drives, one request to each port, then SIGTERM; the JVM writes the
     * cache as it exits ({@code -XX:AOTCacheOutput}).
     */
    private static void train(Jit jit, Path jar, Path cache, Path root) throws IOException, InterruptedException {
        Path work = Files.createDirectories(root.resolve("training"));
        ApplianceProcess p = ApplianceProcess.withRootCredentials(work, "aottrainer", "aot-training-secret-0123")
                .withJit(jit)
                .withJvmOptions("-XX:AOTCacheOutput=" + cache)
                .runningJar(List.of("-jar", jar.toString()));
        try {
            p.start();
            try (var s3 = p.client()) {
                s3.listBuckets();
            }
            var http = java.net.http.HttpClient.newHttpClient();
            http.send(
                    java.net.http.HttpRequest.newBuilder(p.consoleUri()).build(),
                    java.net.http.HttpResponse.BodyHandlers.discarding());
        } finally {
            p.stop(TRAINING_TIMEOUT); // the cache is assembled at exit: allow it the time
        }
        if (!Files.isRegularFile(cache) || Files.size(cache) == 0) {
            throw new IOException("the training run left no AOT cache at " + cache + "\n" + p.logs());
        }
        LocalDrive.deleteTree(work);
    }
}
