package dev.appliance.app.console;

import dev.appliance.core.erasure.ErasureObjectStore;
import java.util.Map;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /api/v1/admin/heal/retry}: every heal waiting for its retry backoff (up to 10 minutes after a long
 * outage) is tried now, as after reattaching a drive. Answers {@code {"pending": n}}.
 */
@RestController
class HealController {
    private final ErasureObjectStore store;

    HealController(ErasureObjectStore store) {
        this.store = store;
    }

    @PostMapping("/api/v1/admin/heal/retry")
    Map<String, Object> retry() {
        return Map.of("pending", store.retryHealsNow());
    }
}
