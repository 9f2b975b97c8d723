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

    /**
     * The switch, and whether an enabled admin user with an active key exists: the console asks root to create one
     * until it does, and the switch can be turned off only then.
     */
    record RootState(boolean s3Enabled, boolean adminUserReady) {}

    @AdminOperation(AdminAction.GET_CONFIG)
    @GetMapping
    RootState root() {
        return state();
    }

    @AdminOperation(AdminAction.PUT_CONFIG)
    @PutMapping
    RootState setRoot(@RequestBody RootView body) {
        if (body.s3Enabled() == null) {
            throw new BadField(400, "s3Enabled", "s3Enabled: missing (expected true or false)");
        }
        store.identity().setRootS3Enabled(body.s3Enabled());
        return state();
    }

    private RootState state() {
        return new RootState(store.identity().rootS3Enabled(), store.identity().adminUserCanSignIn());
    }

    @ExceptionHandler(IdentityException.class)
    ResponseEntity<Problem> identityError(IdentityException e) {
        String field = e.kind().httpStatus() == 409 ? "s3Enabled" : null;
        return AdminTokensController.problem(
                Problem.of(e.kind().httpStatus(), e.kind().code(), field, String.valueOf(e.getMessage())));
    }
}
