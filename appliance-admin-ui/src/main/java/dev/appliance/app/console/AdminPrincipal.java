package dev.appliance.app.console;

import static java.util.Objects.requireNonNull;

import java.io.Serializable;
import java.security.Principal;
import java.util.List;

/**
 * Who a console request acts for once authenticated, and how it proved it. Controllers take it as
 * {@code @AuthenticationPrincipal AdminPrincipal caller}; {@link AdminAuthorization} decides what it may do.
 *
 * @param name the IAM user name, or {@link #ROOT} for the root credential
 * @param accessKey the key that signed the request or opened the session; null for a token
 * @param tokenId the admin token's id; null unless {@code via} is {@link Via#TOKEN}
 * @param scope the token's scope (policy ARNs); empty unless {@code via} is {@link Via#TOKEN}
 */
public record AdminPrincipal(String name, String accessKey, String tokenId, List<String> scope, Via via)
        implements Principal, Serializable {
    /** The name the root credential acts under; reserved, no IAM user can take it. */
    public static final String ROOT = dev.appliance.core.identity.AdminToken.ROOT_OWNER;

    public enum Via {
        /** A SigV4 signature by an access key (scripts, the CLI). */
        SIGNATURE,
        /** A console session opened with an access key and its secret. */
        SESSION,
        /** An admin bearer token. */
        TOKEN,
        /** The Prometheus scrape token: only {@code /actuator/prometheus}. */
        SCRAPE
    }

    public AdminPrincipal {
        requireNonNull(name, "name");
        requireNonNull(via, "via");
        scope = List.copyOf(scope);
    }

    static AdminPrincipal signature(String name, String accessKey) {
        return new AdminPrincipal(name, requireNonNull(accessKey, "accessKey"), null, List.of(), Via.SIGNATURE);
    }

    static AdminPrincipal session(String name, String accessKey) {
        return new AdminPrincipal(name, requireNonNull(accessKey, "accessKey"), null, List.of(), Via.SESSION);
    }

    static AdminPrincipal token(String owner, String tokenId, List<String> scope) {
        return new AdminPrincipal(owner, null, requireNonNull(tokenId, "tokenId"), scope, Via.TOKEN);
    }

    static AdminPrincipal scraper() {
        return new AdminPrincipal("prometheus", null, null, List.of(), Via.SCRAPE);
    }

    @Override
    public String getName() {
        return name;
    }

    /** How the audit log names the caller: the access key, or the token (never its secret). */
    String auditName() {
        return via == Via.TOKEN ? "token/" + tokenId + " (" + name + ")" : accessKey;
    }
}
