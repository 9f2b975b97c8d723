package dev.appliance.app.console;

import dev.appliance.core.erasure.ErasureObjectStore;
import dev.appliance.s3.S3Server;
import java.util.List;
import java.util.Map;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/** {@code GET /api/v1/status}: deployment, topology, drive states and the heal backlog, as JSON. */
@RestController
class StatusController {
    private final ErasureObjectStore store;
    private final S3Server s3;

    StatusController(ErasureObjectStore store, S3Server s3) {
        this.store = store;
        this.s3 = s3;
    }

    @GetMapping("/api/v1/status")
    Map<String, Object> status() {
        List<Map<String, Object>> drives = store.drives().stream()
                .map(d -> Map.<String, Object>of(
                        "path", d.root().toString(),
                        "online", d.isOnline(),
                        "problem", d.offlineReason()))
                .toList();
        return Map.of(
                "deploymentId", store.deploymentId().toString(),
                "s3Port", s3.port(),
                "sets", store.setCount(),
                "drivesPerSet", store.drivesPerSet(),
                "parity", store.parity(),
                "drives", drives,
                "healBacklog", store.healQueue().snapshot().size());
    }
}
