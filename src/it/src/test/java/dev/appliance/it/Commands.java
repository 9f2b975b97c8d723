package dev.appliance.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Runs a command line (curl, python3, the appliance jar) to its end, bounded in time, capturing its output. */
final class Commands {
    private Commands() {}

    record Result(int status, String stdout, String stderr) {}

    static Result run(Path workDir, List<String> cmd, Map<String, String> env, int timeoutSeconds) {
        try {
            Path out = Files.createTempFile(workDir, "cmd", ".out");
            Path err = Files.createTempFile(workDir, "cmd", ".err");
            ProcessBuilder pb = new ProcessBuilder(cmd)
                    .directory(workDir.toFile())
                    .redirectOutput(out.toFile())
                    .redirectError(err.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
            pb.environment().putAll(env);
            Process p = pb.start();
            if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError(cmd + " did not end within " + timeoutSeconds + " s");
            }
            return new Result(
                    p.exitValue(),
                    Files.readString(out, StandardCharsets.UTF_8),
                    Files.readString(err, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + cmd, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** {@code appliance certs generate --dir DIR --host HOST...}; asserts success. */
    static Path generateCerts(Path workDir, Path dir, String... hosts) {
        List<String> args = new java.util.ArrayList<>(List.of("certs", "generate", "--dir", dir.toString()));
        for (String h : hosts) {
            args.add("--host");
            args.add(h);
        }
        Result r = run(workDir, ApplianceProcess.jarCommand(args.toArray(String[]::new)), Map.of(), 60);
        assertThat(r.status()).as(r.stdout() + r.stderr()).isZero();
        return dir;
    }
}
