package dev.appliance.core.heal;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.appliance.core.drive.LocalDrive;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The progress of filling one replaced drive, kept on that drive in {@code .appliance.sys/heal-tracker.json} so a
 * restart continues where the heal stopped instead of starting over. Raw JSON, not erasure-coded: it describes this
 * drive only.
 *
 * <pre>{@code
 * { "version": 1, "driveId": "<uuid>", "set": 0, "slot": 2, "state": "healing" | "done",
 *   "startedMillis": ..., "updatedMillis": ..., "finishedMillis": 0,
 *   "bucketsDone": ["a", "b"], "bucket": "c", "lastKey": "c/key/healed/last",
 *   "objectsScanned": 0, "objectsHealed": 0, "objectsSkipped": 0, "objectsFailed": 0, "bytesHealed": 0,
 *   "objectsEstimated": 0, "resumes": 0, "failures": [{"name": "c/k", "reason": "...", "timeMillis": ...}] }
 * }</pre>
 *
 * Buckets are healed in name order; {@code lastKey} is the last key of {@code bucket} whose heal finished, so keys are
 * never skipped (a key healed after the last save is healed again, which finds it intact). The file is written before
 * the drive's {@code format.json}: a crash between the two leaves an unformatted drive, which is formatted again; it
 * never leaves a formatted drive that nobody fills.
 */
public final class HealTracker {
    public static final String FILE = "heal-tracker.json";
    public static final int MAX_FAILURES = 20;
    public static final String HEALING = "healing";
    public static final String DONE = "done";

    private static final ObjectMapper JSON = new ObjectMapper()
            .enable(SerializationFeature.INDENT_OUTPUT)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    /** A version that could not be healed onto the drive (it stays in the MRF queue), or was skipped. */
    public record Failure(String name, String reason, long timeMillis) {}

    public int version = 1;
    public UUID driveId;
    public int set;
    public int slot;
    public String state = HEALING;
    public long startedMillis;
    public long updatedMillis;
    public long finishedMillis;
    public List<String> bucketsDone = new ArrayList<>();
    public String bucket;
    public String lastKey;
    public long objectsScanned;
    public long objectsHealed;
    public long objectsSkipped;
    public long objectsFailed;
    public long bytesHealed;
    public long objectsEstimated;
    public int resumes;
    public List<Failure> failures = new ArrayList<>();

    public static HealTracker start(UUID driveId, int set, int slot, long nowMillis) {
        HealTracker t = new HealTracker();
        t.driveId = driveId;
        t.set = set;
        t.slot = slot;
        t.startedMillis = nowMillis;
        t.updatedMillis = nowMillis;
        return t;
    }

    public static Path file(LocalDrive drive) {
        return drive.sysDir().resolve(FILE);
    }

    /** The drive's tracker, or null when it has none; a damaged one is reported as an I/O error. */
    public static HealTracker load(LocalDrive drive) throws IOException {
        byte[] json = drive.readOrNull(file(drive));
        return json == null ? null : JSON.readValue(json, HealTracker.class);
    }

    public void save(LocalDrive drive) throws IOException {
        drive.writeDurably(file(drive), JSON.writeValueAsBytes(this));
    }

    public boolean finished() {
        return DONE.equals(state);
    }

    public void fail(String name, String reason, long nowMillis) {
        objectsFailed++;
        failures.add(new Failure(name, reason.length() > 300 ? reason.substring(0, 300) + "…" : reason, nowMillis));
        while (failures.size() > MAX_FAILURES) {
            failures.removeFirst();
        }
    }

    public HealTracker copy() {
        try {
            return JSON.readValue(JSON.writeValueAsBytes(this), HealTracker.class);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
