package dev.appliance.app.console;

import static java.util.Objects.requireNonNull;

import dev.appliance.core.identity.IdentityStore;
import dev.appliance.core.identity.ManagedPolicy;
import dev.appliance.core.identity.NewAccessKey;
import dev.appliance.core.identity.User;
import java.util.List;

/**
 * A least-privilege user for a Veeam repository, made in four identity changes (user, customer policy {@code
 * veeam-<name>} ({@link #policyName}) rendered from the built-in Veeam template, attachment, access key) that are not one transaction: when a
 * later step fails, what the earlier ones made is removed again before the error is answered, so a refused request
 * leaves no user, policy or key behind. Used by {@code POST /iam/users/veeam} and the Veeam bucket preset.
 */
final class VeeamUsers {
    private VeeamUsers() {}

    /** What was made; the key's secret is in it this once. */
    record Made(User user, ManagedPolicy policy, NewAccessKey key) {}

    static final String POLICY_PREFIX = "veeam-";

    /**
     * The user's policy: {@code veeam-<user>}, or the user's own name when it already starts with {@code veeam-} (the
     * wizard suggests {@code veeam-<bucket>} as the user), so the prefix never stacks ({@code veeam-veeam-...}).
     */
    static String policyName(String userName) {
        return userName != null && userName.regionMatches(true, 0, POLICY_PREFIX, 0, POLICY_PREFIX.length())
                ? userName
                : POLICY_PREFIX + userName;
    }

    /**
     * Makes the user, its policy on {@code document} (the rendered Veeam policy on the user's buckets), attaches it and
     * creates a key; on a failure undoes what was made and rethrows the failure (undo failures are suppressed on it).
     */
    static Made create(IdentityStore identity, String userName, String document) {
        requireNonNull(document, "document");
        User user = null;
        ManagedPolicy policy = null;
        boolean attached = false;
        NewAccessKey key = null;
        try {
            user = identity.createUser(userName);
            policy = identity.createPolicy(policyName(user.name()), document);
            user = identity.attachUserPolicy(user.name(), policy.arn());
            attached = true;
            key = identity.createAccessKey(user.name());
            return new Made(user, policy, key);
        } catch (RuntimeException e) {
            undo(identity, user, policy, attached, key, e);
            throw e;
        }
    }

    /** Removes what {@link #create} made, when a step after it fails; failures are added to {@code cause}. */
    static void undo(IdentityStore identity, Made made, Throwable cause) {
        undo(identity, made.user(), made.policy(), true, made.key(), cause);
    }

    private static void undo(
            IdentityStore identity,
            User user,
            ManagedPolicy policy,
            boolean attached,
            NewAccessKey key,
            Throwable cause) {
        List<Runnable> steps = new java.util.ArrayList<>();
        if (key != null) {
            steps.add(() ->
                    identity.deleteAccessKey(key.key().userName(), key.key().accessKeyId()));
        }
        if (attached) {
            steps.add(() -> identity.detachUserPolicy(user.name(), policy.arn()));
        }
        if (policy != null) {
            steps.add(() -> identity.deletePolicy(policy.name()));
        }
        if (user != null) {
            steps.add(() -> identity.deleteUser(user.name()));
        }
        for (Runnable step : steps) {
            try {
                step.run();
            } catch (RuntimeException e) {
                cause.addSuppressed(e);
            }
        }
    }
}
