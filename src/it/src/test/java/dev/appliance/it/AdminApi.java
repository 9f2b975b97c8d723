package dev.appliance.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The console's admin REST API of one appliance process, through curl with its SigV4 signer ({@code --aws-sigv4}) and
 * the root credentials: drive fault injection ({@code /api/v1/admin/test/faults}), heal retries, and the detailed status.
 */
final class AdminApi {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** An answer: HTTP status and body. */
    record Answer(int status, String body) {
        JsonNode json() {
            try {
                return JSON.readTree(body);
            } catch (IOException e) {
                throw new AssertionError("not JSON (status " + status + "): " + body, e);
            }
        }

        /** A JSON-lines body (the audit export): one node per non-blank line. */
        List<JsonNode> jsonLines() {
            List<JsonNode> nodes = new ArrayList<>();
            for (String line : body.split("\n")) {
                if (line.isBlank()) {
                    continue;
                }
                try {
                    nodes.add(JSON.readTree(line));
                } catch (IOException e) {
                    throw new AssertionError("a line that is not JSON (status " + status + "): " + line, e);
                }
            }
            return nodes;
        }
    }

    private final ApplianceProcess appliance;
    private final Path workDir;

    AdminApi(ApplianceProcess appliance, Path workDir) {
        this.appliance = appliance;
        this.workDir = workDir;
    }

    /** A request signed with the root credentials ({@code signed} false: unsigned). */
    Answer call(String method, String path, String json, boolean signed) {
        List<String> cmd = new ArrayList<>(
                List.of("curl", "-sS", "-o", "-", "-w", "\n%{http_code}", "-X", method, appliance.consoleUri() + path));
        if (appliance.certificate() != null) { // the console is on https with the S3 port's certificate
            cmd.addAll(List.of("--cacert", appliance.certificate().toString()));
        }
        if (signed) {
            cmd.addAll(List.of(
                    "--aws-sigv4",
                    "aws:amz:us-east-1:s3",
                    "--user",
                    appliance.accessKey() + ":" + appliance.secretKey()));
        }
        if (json != null) {
            try {
                Path body = Files.writeString(workDir.resolve("admin-" + UUID.randomUUID() + ".json"), json);
                cmd.addAll(List.of("-H", "Content-Type: application/json", "--data-binary", "@" + body));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        Commands.Result r = Commands.run(workDir, cmd, Map.of(), 30);
        assertThat(r.status())
                .as("curl " + method + " " + path + ": " + r.stderr())
                .isZero();
        String out = r.stdout();
        int nl = out.lastIndexOf('\n');
        return new Answer(Integer.parseInt(out.substring(nl + 1).strip()), out.substring(0, Math.max(0, nl)));
    }

    Answer call(String method, String path, String json) {
        return call(method, path, json, true);
    }

    /** Injects faults into drive {@code drive} (0-based, the order the drives were given); asserts success. */
    void inject(int drive, String faultsJson) {
        Answer a = call("PUT", "/api/v1/admin/test/faults/" + drive, faultsJson);
        assertThat(a.status()).as(a.body()).isEqualTo(200);
    }

    void clearFaults() {
        Answer a = call("DELETE", "/api/v1/admin/test/faults", null);
        assertThat(a.status()).as(a.body()).isEqualTo(200);
    }

    /** Makes every heal waiting for its backoff due now; returns the number pending. */
    int retryHeals() {
        Answer a = call("POST", "/api/v1/admin/heal/retry", null);
        assertThat(a.status()).as(a.body()).isEqualTo(200);
        return a.json().get("pending").asInt();
    }

    /** {@code GET /api/v1/admin/status}: the signed, detailed status (drive paths, failures by name, alert ids). */
    JsonNode status() {
        Answer a = call("GET", "/api/v1/admin/status", null);
        assertThat(a.status()).as(a.body()).isEqualTo(200);
        return a.json();
    }

    /** Waits until the heal queue is empty (retrying what waits for a backoff), at most {@code seconds}. */
    /**
     * Waits until every drive is in service again: a drive taken out as faulty (I/O errors, a stalled call) returns at
     * the next drive check (every 10 s) after its stalled calls ended and a probe succeeded.
     */
    void awaitDrivesInService(int seconds) throws InterruptedException {
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        JsonNode drives = null;
        while (System.nanoTime() < deadline) {
            drives = status().get("drives");
            boolean all = true;
            for (JsonNode drive : drives) {
                all &= !"offline".equals(drive.get("state").asText())
                        && !"faulty".equals(drive.get("state").asText());
            }
            if (all) {
                return;
            }
            Thread.sleep(500);
        }
        throw new AssertionError("drives not back in service within " + seconds + " s: " + drives);
    }

    void awaitHealed(int seconds) throws InterruptedException {
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        JsonNode heal = null;
        while (System.nanoTime() < deadline) {
            retryHeals();
            heal = status().get("heal");
            if (heal.get("pending").asInt() == 0) {
                return;
            }
            Thread.sleep(500);
        }
        throw new AssertionError("the heal queue did not drain within " + seconds + " s: " + heal);
    }
}
