package dev.appliance.installer.smart;

import static java.util.Objects.requireNonNull;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Runs {@code smartctl --json -H -A -l error DEVICE}, one disk at a time, each with a time limit: a disk that hangs on
 * the SMART command (a failing one can) yields an unreadable report after {@link #timeout()} and the process tree is
 * killed, so the preflight (and the appliance, which runs it periodically) never waits on it.
 *
 * @param command the smartctl executable; empty when it is not installed
 * @param looked where it was looked for, for the report when it is not installed
 * @param timeout how long one disk may take
 */
public record Smartctl(Optional<Path> command, String looked, Duration timeout) implements SmartSource {
    public Smartctl {
        requireNonNull(command, "command");
        requireNonNull(looked, "looked");
        requireNonNull(timeout, "timeout");
    }

    /** A healthy disk answers in well under a second; a busy or sleeping one takes a few. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(20);

    /**
     * Where smartmontools installs it; searched after {@code PATH}, which for a non-root shell often lacks the sbin
     * directories.
     */
    static final List<String> SBIN = List.of("/usr/sbin", "/sbin", "/usr/local/sbin");

    /** {@code smartctl} as this process's {@code PATH} finds it, then in the sbin directories. */
    public static Smartctl onPath() {
        List<String> dirs = new ArrayList<>();
        for (String d : Optional.ofNullable(System.getenv("PATH")).orElse("").split(File.pathSeparator)) {
            if (!d.isEmpty()) {
                dirs.add(d);
            }
        }
        dirs.addAll(SBIN);
        Smartctl found = locate(dirs, DEFAULT_TIMEOUT);
        return new Smartctl(found.command(), "PATH and " + String.join(", ", SBIN), found.timeout());
    }

    /** {@code smartctl} in the first of these directories that has it. */
    public static Smartctl locate(List<String> dirs, Duration timeout) {
        for (String d : dirs) {
            Path candidate = Path.of(d, "smartctl");
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return new Smartctl(Optional.of(candidate), String.join(":", dirs), timeout);
            }
        }
        return new Smartctl(Optional.empty(), String.join(":", dirs), timeout);
    }

    @Override
    public SmartReading read(String device) {
        if (command.isEmpty()) {
            return new SmartReading.NotInstalled(looked);
        }
        Path output = null;
        try {
            // the report goes to a file, not a pipe: nothing here blocks on a child that keeps its output open
            output = Files.createTempFile("appliance-smartctl-", ".json");
            Process p = new ProcessBuilder(command.get().toString(), "--json", "-H", "-A", "-l", "error", device)
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .redirectOutput(output.toFile())
                    .redirectError(ProcessBuilder.Redirect.DISCARD)
                    .start();
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
                return new SmartReading.Unreadable(
                        "smartctl did not answer within " + timeout.toMillis() + " ms (the disk may be hanging)");
            }
            return SmartHealth.parse(Files.readString(output, StandardCharsets.UTF_8));
        } catch (IOException e) {
            return new SmartReading.Unreadable("could not run " + command.get() + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new SmartReading.Unreadable("interrupted while waiting for smartctl");
        } finally {
            if (output != null) {
                try {
                    Files.deleteIfExists(output);
                } catch (IOException e) { // a leftover temp file is harmless
                }
            }
        }
    }
}
