package dev.appliance.app.console;

import dev.appliance.core.admin.ApplianceStore;
import dev.appliance.core.identity.IdentityException;
import dev.appliance.core.policy.AdminAction;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The root credential's switch for the S3 endpoint, {@code /api/v1/admin/iam/root} (docs/iam.md): off, the S3 port
 * refuses the root key as a deactivated key; the console keeps accepting it, so this is where it is turned back on.
 * Turning it off is refused (409) until another enabled user with an active key has the built-in admin policy.
 */
@RestController
@RequestMapping("/api/v1/admin/iam/root")
class RootCredentialController {
    private final ApplianceStore store;

    RootCredentialController(ApplianceStore store) {
        this.store = store;
    }

    /** Whether the root credential signs S3 requests; in a PUT, null is refused (not read as false). */
    record RootView(Boolean s3Enabled) {}

    @AdminOperation(AdminAction.GET_CONFIG)
    @GetMapping
    RootView root() {
        return new RootView(store.identity().rootS3Enabled());
    }

    @AdminOperation(AdminAction.PUT_CONFIG)
    @PutMapping
    RootView setRoot(@RequestBody RootView body) {
        if (body.s3Enabled() == null) {
            throw new BadField(400, "s3Enabled", "s3Enabled: missing (expected true or false)");
        }
        store.identity().setRootS3Enabled(body.s3Enabled());
        return new RootView(store.identity().rootS3Enabled());
    }

    @ExceptionHandler(IdentityException.class)
    ResponseEntity<Problem> identityError(IdentityException e) {
        String field = e.kind().httpStatus() == 409 ? "s3Enabled" : null;
        return AdminTokensController.problem(
                Problem.of(e.kind().httpStatus(), e.kind().code(), field, String.valueOf(e.getMessage())));
    }
}
