package dev.appliance.app.console;

import dev.appliance.core.admin.ApplianceStore;
import dev.appliance.core.identity.AdminToken;
import dev.appliance.core.identity.IdentityException;
import dev.appliance.core.identity.IdentityStore;
import dev.appliance.core.identity.NewAdminToken;
import dev.appliance.core.policy.AdminAction;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Optional;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.security.core.annotation.AuthenticationPrincipal;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * Admin bearer tokens for scripts under {@code /api/v1/admin/tokens} (docs/admin-api.md): list (never a secret),
 * create (the secret is in that one answer; the store keeps its SHA-256 only), revoke. Access is decided by the console
 * guard ({@code admin:<METHOD> <path>}) as for every admin route.
 *
 * <p><b>Owner.</b> A token belongs to the caller unless {@code owner} names someone else, which only the root
 * credential may do: an IAM user cannot mint a token for root or for another user (whose rights may exceed its own).
 * The caller is who signed the request or opened the console session: an IAM user, or {@code root} for the root
 * credential ({@link AdminPrincipal}); a token is refused, so that no token outlives itself by minting another.
 */
@RestController
@RequestMapping("/api/v1/admin/tokens")
class AdminTokensController {
    /** A token's lifetime when the request names none. */
    static final Duration DEFAULT_LIFETIME = Duration.ofDays(30);

    private final ApplianceStore store;
    private final Clock clock = Clock.systemUTC();

    AdminTokensController(ApplianceStore store) {
        this.store = store;
    }

    /** A token as listed: never its secret. {@code expired}: it no longer resolves (dropped at the next create). */
    record TokenView(
            String id,
            String name,
            String owner,
            List<String> policyArns,
            String createdAt,
            String expiresAt,
            boolean expired) {
        static TokenView of(AdminToken t, Instant now) {
            return new TokenView(
                    t.id(),
                    t.name(),
                    t.owner(),
                    t.policyArns(),
                    t.createdAt().toString(),
                    t.expiresAt().toString(),
                    t.expiredAt(now));
        }
    }

    /**
     * A token to create: {@code owner} defaults to the caller; at most one of {@code expiresAt} (ISO-8601 instant) and
     * {@code expiresInDays} (1 to 365); neither: {@link #DEFAULT_LIFETIME}.
     */
    record NewToken(String name, String owner, List<String> policyArns, String expiresAt, Integer expiresInDays) {}

    /** A token just created, with its secret ({@code apt_...}), shown this once. */
    record NewTokenView(
            String id,
            String name,
            String owner,
            List<String> policyArns,
            String createdAt,
            String expiresAt,
            String secret) {
        static NewTokenView of(NewAdminToken n) {
            AdminToken t = n.token();
            return new NewTokenView(
                    t.id(),
                    t.name(),
                    t.owner(),
                    t.policyArns(),
                    t.createdAt().toString(),
                    t.expiresAt().toString(),
                    n.secret());
        }

        @Override
        public String toString() {
            return "NewTokenView[id=" + id + ", owner=" + owner + ", secret=<redacted>]";
        }
    }

    private IdentityStore identity() {
        return store.identity();
    }

    @AdminOperation(AdminAction.LIST_TOKENS)
    @GetMapping
    List<TokenView> tokens() {
        Instant now = clock.instant();
        return identity().adminTokens().stream().map(t -> TokenView.of(t, now)).toList();
    }

    @AdminOperation(AdminAction.CREATE_TOKEN)
    @PostMapping
    @ResponseStatus(HttpStatus.CREATED)
    NewTokenView create(@RequestBody NewToken body, @AuthenticationPrincipal AdminPrincipal principal) {
        String caller = caller(principal)
                .orElseThrow(() -> new BadField(
                        403,
                        "owner",
                        "owner: only the root credential or an IAM user (by key or console session) creates tokens;"
                                + " a token cannot create tokens"));
        String owner = body.owner() == null ? caller : body.owner();
        if (!caller.equals(AdminToken.ROOT_OWNER) && !owner.equalsIgnoreCase(caller)) {
            throw new BadField(
                    403, "owner", "owner: " + owner + " (only the root credential creates tokens for another owner)");
        }
        if (body.name() == null) {
            throw new BadField(400, "name", "name: missing (expected the token's name)");
        }
        if (body.policyArns() == null || body.policyArns().isEmpty()) {
            throw new BadField(
                    400, "policyArns", "policyArns: missing (expected the ARNs of the policies the token may use)");
        }
        return NewTokenView.of(identity().createAdminToken(owner, body.name(), body.policyArns(), expiry(body)));
    }

    @AdminOperation(AdminAction.REVOKE_TOKEN)
    @DeleteMapping("/{id}")
    ResponseEntity<Void> revoke(@PathVariable("id") String id) {
        identity().revokeAdminToken(id);
        return ResponseEntity.noContent().build();
    }

    private Instant expiry(NewToken body) {
        if (body.expiresAt() != null && body.expiresInDays() != null) {
            throw new BadField(400, "expiresAt", "expiresAt: give either expiresAt or expiresInDays, not both");
        }
        if (body.expiresAt() != null) {
            try {
                return Instant.parse(body.expiresAt());
            } catch (DateTimeParseException e) {
                throw new BadField(
                        400,
                        "expiresAt",
                        "expiresAt: " + body.expiresAt()
                                + " (expected an ISO-8601 instant, e.g. 2027-01-31T00:00:00Z)");
            }
        }
        if (body.expiresInDays() != null) {
            int days = body.expiresInDays();
            long max = IdentityStore.MAX_ADMIN_TOKEN_LIFETIME.toDays();
            if (days < 1 || days > max) {
                throw new BadField(400, "expiresInDays", "expiresInDays: " + days + " (expected 1 to " + max + ")");
            }
            return clock.instant().plus(Duration.ofDays(days));
        }
        return clock.instant().plus(DEFAULT_LIFETIME);
    }

    /**
     * {@code root} for the root credential, the user's name for an IAM user, by key or console session; empty for a
     * token, so that a token cannot outlive itself by minting another.
     */
    private static Optional<String> caller(AdminPrincipal p) {
        if (p == null || (p.via() != AdminPrincipal.Via.SIGNATURE && p.via() != AdminPrincipal.Via.SESSION)) {
            return Optional.empty();
        }
        return Optional.of(p.name());
    }

    @ExceptionHandler(IdentityException.class)
    ResponseEntity<Problem> identityError(IdentityException e) {
        String message = String.valueOf(e.getMessage());
        int colon = message.indexOf(": ");
        String field = null;
        if (colon > 0 && List.of("name", "owner", "policyArns", "expiresAt").contains(message.substring(0, colon))) {
            field = message.substring(0, colon);
        } else if (message.startsWith("The user with name")) {
            field = "owner";
        }
        return problem(Problem.of(e.kind().httpStatus(), e.kind().code(), field, message));
    }

    static ResponseEntity<Problem> problem(Problem p) {
        return ResponseEntity.status(p.status())
                .contentType(MediaType.APPLICATION_PROBLEM_JSON)
                .body(p);
    }
}
