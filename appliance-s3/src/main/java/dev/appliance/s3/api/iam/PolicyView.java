package dev.appliance.s3.api.iam;

import static java.util.Objects.requireNonNull;

import dev.appliance.core.identity.ManagedPolicy;
import dev.appliance.core.policy.BuiltinPolicies;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;

/**
 * A managed policy as the IAM API shows it: a customer managed policy of the identity store, or one of the policy
 * engine's built-in policies shown as AWS managed ({@code arn:aws:iam::aws:policy/<name>}).
 */
record PolicyView(String name, String id, String arn, String document, Instant created, Instant updated) {
    static final String BUILTIN_ARN_PREFIX = "arn:aws:iam::aws:policy/";
    /** Only one version of a policy is kept: IAM's first version id names it. */
    static final String VERSION = "v1";
    /** The built-ins have no creation time of their own; a fixed one keeps answers stable. */
    private static final Instant BUILTIN_DATE = Instant.parse("2026-01-01T00:00:00Z");

    PolicyView {
        requireNonNull(name, "name");
        requireNonNull(id, "id");
        requireNonNull(arn, "arn");
        requireNonNull(document, "document");
        requireNonNull(created, "created");
        requireNonNull(updated, "updated");
    }

    static PolicyView of(ManagedPolicy p) {
        return new PolicyView(p.name(), p.id(), p.arn(), p.document(), p.created(), p.updated());
    }

    static boolean isBuiltinArn(String arn) {
        return arn.startsWith(BUILTIN_ARN_PREFIX);
    }

    /** The built-in policy {@code arn} names; NoSuchEntity when there is none of that name. */
    static PolicyView builtin(String arn) {
        String name = arn.substring(BUILTIN_ARN_PREFIX.length());
        if (!BuiltinPolicies.names().contains(name)) {
            throw IamError.noSuchEntity("Policy " + arn + " does not exist or is not attachable.");
        }
        return new PolicyView(
                name, builtinId(name), arn, BuiltinPolicies.get(name).document().json(), BUILTIN_DATE, BUILTIN_DATE);
    }

    static List<PolicyView> builtins() {
        return BuiltinPolicies.names().stream()
                .map(n -> builtin(BUILTIN_ARN_PREFIX + n))
                .toList();
    }

    /** A stable id in IAM's policy id form ({@code ANPA} and 17 more characters) derived from the name. */
    private static String builtinId(String name) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(name.getBytes(StandardCharsets.UTF_8));
            return "ANPA" + HexFormat.of().withUpperCase().formatHex(digest).substring(0, 17);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }
}
