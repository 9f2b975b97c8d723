package dev.appliance.app.console;

import dev.appliance.core.policy.AdminAction;
import dev.appliance.s3.S3Server;
import dev.appliance.s3.access.AccessLog;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * The S3 access log's switch: {@code GET|PUT /api/v1/admin/logging/access-log}, PUT taking {@code {"enabled":
 * true|false}} and answering like GET. The switch acts at once and is not kept: a restart comes back to
 * {@code appliance.logging.access-log} (docs/decisions/service-logging.md). Like every PUT, it is audited.
 */
@RestController
class LoggingController {
    static final String PATH = "/api/v1/admin/logging/access-log";

    private final S3Server s3;

    LoggingController(S3Server s3) {
        this.s3 = s3;
    }

    /** The PUT body. */
    record Switch(Boolean enabled) {}

    /**
     * The access log now.
     *
     * @param enabled whether each S3 request is logged
     * @param written lines written since start
     * @param dropped lines dropped since start because the writer fell behind
     */
    record AccessLogView(boolean enabled, long written, long dropped) {
        static AccessLogView of(AccessLog log) {
            return new AccessLogView(log.enabled(), log.written(), log.dropped());
        }
    }

    @AdminOperation(AdminAction.GET_LOGGING)
    @GetMapping(PATH)
    AccessLogView accessLog() {
        return AccessLogView.of(s3.accessLog());
    }

    @AdminOperation(AdminAction.UPDATE_LOGGING)
    @PutMapping(PATH)
    AccessLogView setAccessLog(@RequestBody Switch body) {
        if (body.enabled() == null) {
            throw new BadField(400, "enabled", "enabled: missing (expected true or false)");
        }
        s3.accessLog().enable(body.enabled());
        return AccessLogView.of(s3.accessLog());
    }
}
