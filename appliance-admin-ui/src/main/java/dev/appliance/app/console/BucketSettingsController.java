package dev.appliance.app.console;

import dev.appliance.core.BucketSettings;
import dev.appliance.core.BucketUsage;
import dev.appliance.core.ObjectStore;
import dev.appliance.core.StorageCapacity;
import dev.appliance.core.alerts.VersionAlerts;
import dev.appliance.core.error.ErrorKind;
import dev.appliance.core.error.StorageException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * A bucket's appliance settings (quota, Veeam SOSAPI, version-explosion alert threshold) and what it holds:
 * {@code GET|PUT /api/v1/admin/buckets/{bucket}/settings}. PUT takes {@code {"quotaBytes": n|null, "sosapi":
 * true|false|null, "versionAlertThreshold": n|null}} (null: no quota / SOSAPI as the default / 1000 versions per key)
 * and answers like GET; it replaces all three.
 */
@RestController
class BucketSettingsController {
    private final ObjectStore store;

    BucketSettingsController(ObjectStore store) {
        this.store = store;
    }

    /** The PUT body; both fields optional. */
    record SettingsBody(Long quotaBytes, Boolean sosapi, Integer versionAlertThreshold) {}

    @GetMapping("/api/v1/admin/buckets/{bucket}/settings")
    Map<String, Object> get(@PathVariable("bucket") String bucket) {
        return view(bucket);
    }

    @PutMapping("/api/v1/admin/buckets/{bucket}/settings")
    Map<String, Object> put(@PathVariable("bucket") String bucket, @RequestBody SettingsBody body) {
        store.setBucketSettings(
                bucket, new BucketSettings(body.quotaBytes(), body.sosapi(), body.versionAlertThreshold()));
        return view(bucket);
    }

    private Map<String, Object> view(String bucket) {
        BucketSettings settings = store.bucketSettings(bucket);
        BucketUsage usage = store.bucketUsage(bucket);
        StorageCapacity pool = store.capacity();
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("bucket", bucket);
        out.put("quotaBytes", settings.quotaBytes());
        out.put("sosapi", settings.sosapi());
        out.put("versionAlertThreshold", settings.versionAlertThreshold());
        out.put(
                "versionAlertThresholdInEffect",
                settings.versionAlertThreshold() == null
                        ? VersionAlerts.DEFAULT_THRESHOLD
                        : settings.versionAlertThreshold());
        out.put(
                "usage",
                Map.of(
                        "objects", usage.objects(),
                        "versions", usage.versions(),
                        "deleteMarkers", usage.deleteMarkers(),
                        "bytes", usage.bytes(),
                        "countedAt", usage.computedAt().toString()));
        out.put("pool", Map.of("usableBytes", pool.usableBytes(), "freeBytes", pool.freeBytes()));
        return out;
    }

    @ExceptionHandler(StorageException.class)
    ResponseEntity<Map<String, String>> storageError(StorageException e) {
        HttpStatus status = e.kind() == ErrorKind.BUCKET_NOT_FOUND ? HttpStatus.NOT_FOUND : HttpStatus.BAD_REQUEST;
        return ResponseEntity.status(status).body(Map.of("code", e.kind().name(), "message", e.getMessage()));
    }

    @ExceptionHandler(IllegalArgumentException.class)
    ResponseEntity<Map<String, String>> badValue(IllegalArgumentException e) {
        return ResponseEntity.badRequest().body(Map.of("code", "INVALID_ARGUMENT", "message", e.getMessage()));
    }
}
