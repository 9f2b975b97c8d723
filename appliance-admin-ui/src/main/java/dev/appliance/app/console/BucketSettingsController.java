package dev.appliance.app.console;

import dev.appliance.core.BucketSettings;
import dev.appliance.core.BucketUsage;
import dev.appliance.core.ObjectStore;
import dev.appliance.core.StorageCapacity;
import dev.appliance.core.alerts.VersionAlerts;
import dev.appliance.core.error.ErrorKind;
import dev.appliance.core.error.StorageException;
import dev.appliance.core.policy.AdminAction;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
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

    /** The PUT body; every field optional (null: unset). */
    record SettingsBody(Long quotaBytes, Boolean sosapi, Integer versionAlertThreshold) {}

    /**
     * A bucket's settings as stored (null: unset), the alert threshold in effect, what it holds and the pool's space.
     */
    record SettingsView(
            String bucket,
            Long quotaBytes,
            Boolean sosapi,
            Integer versionAlertThreshold,
            int versionAlertThresholdInEffect,
            UsageView usage,
            PoolView pool) {}

    /** What the bucket holds, as last counted ({@code countedAt}, ISO-8601). */
    record UsageView(long objects, long versions, long deleteMarkers, long bytes, String countedAt) {}

    record PoolView(long usableBytes, long freeBytes) {}

    @AdminOperation(AdminAction.GET_BUCKET)
    @GetMapping("/api/v1/admin/buckets/{bucket}/settings")
    SettingsView get(@PathVariable("bucket") String bucket) {
        return view(bucket);
    }

    @AdminOperation(AdminAction.UPDATE_BUCKET)
    @PutMapping("/api/v1/admin/buckets/{bucket}/settings")
    SettingsView put(@PathVariable("bucket") String bucket, @RequestBody SettingsBody body) {
        store.setBucketSettings(
                bucket, new BucketSettings(body.quotaBytes(), body.sosapi(), body.versionAlertThreshold()));
        return view(bucket);
    }

    private SettingsView view(String bucket) {
        BucketSettings settings = store.bucketSettings(bucket);
        BucketUsage usage = store.bucketUsage(bucket);
        StorageCapacity pool = store.capacity();
        return new SettingsView(
                bucket,
                settings.quotaBytes(),
                settings.sosapi(),
                settings.versionAlertThreshold(),
                settings.versionAlertThreshold() == null
                        ? VersionAlerts.DEFAULT_THRESHOLD
                        : settings.versionAlertThreshold(),
                new UsageView(
                        usage.objects(),
                        usage.versions(),
                        usage.deleteMarkers(),
                        usage.bytes(),
                        usage.computedAt().toString()),
                new PoolView(pool.usableBytes(), pool.freeBytes()));
    }

    @ExceptionHandler(StorageException.class)
    ResponseEntity<Problem> storageError(StorageException e) {
        HttpStatus status = e.kind() == ErrorKind.BUCKET_NOT_FOUND ? HttpStatus.NOT_FOUND : HttpStatus.BAD_REQUEST;
        return ResponseEntity.status(status).body(new Problem(e.kind().name(), e.getMessage()));
    }

    @ExceptionHandler(IllegalArgumentException.class)
    ResponseEntity<Problem> badValue(IllegalArgumentException e) {
        return ResponseEntity.badRequest().body(new Problem("INVALID_ARGUMENT", e.getMessage()));
    }

    @ExceptionHandler(HttpMessageNotReadableException.class)
    ResponseEntity<Problem> badBody(HttpMessageNotReadableException e) {
        return ResponseEntity.badRequest().body(Problem.unreadableBody("INVALID_ARGUMENT", e));
    }
}
