package dev.appliance.s3.auth;

import static java.util.Objects.requireNonNull;

import dev.appliance.core.identity.AdminToken;
import dev.appliance.core.identity.Credential;
import dev.appliance.core.identity.IdentityStore;
import dev.appliance.core.identity.User;
import dev.appliance.core.identity.UserPolicies;
import dev.appliance.core.policy.NamedPolicy;
import dev.appliance.core.policy.RequestContext;
import dev.appliance.core.policy.S3Action;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Authorizes S3 requests with AWS-style policies. The root credential is allowed everything without evaluating
 * anything; an IAM user's request is evaluated against the user's policies (inline, attached, its groups', see {@link
 * UserPolicies}) and the bucket's policy when one is given: an explicit Deny wins, then an Allow, else the request is
 * denied. A key that is unknown, inactive or whose user is disabled is denied too (it may have been deactivated
 * between authentication and this check).
 *
 * <p>An anonymous request (no credentials) is evaluated against the bucket's policy alone: only a statement whose
 * principal is everyone can allow it, and when the policy is public (S3's meaning, {@link
 * dev.appliance.core.policy.PolicyDocument#isPublic()}) while the bucket's public access block has
 * RestrictPublicBuckets, the policy grants an anonymous caller nothing. A request naming no bucket is denied.
 */
public final class PolicyAuthorizer implements Authorizer {
    private final String rootAccessKey;
    private final IdentityStore identity;
    private final UserPolicies policies;
    private final Function<String, NamedPolicy> bucketPolicies;
    private final Predicate<String> restrictsPublicBuckets;

    /**
     * Without public access: every bucket counts as restricting public policies, so no anonymous request is allowed.
     *
     * @param bucketPolicies the policy of a bucket, or null when it has none
     */
    public PolicyAuthorizer(
            String rootAccessKey,
            IdentityStore identity,
            UserPolicies policies,
            Function<String, NamedPolicy> bucketPolicies) {
        this(rootAccessKey, identity, policies, bucketPolicies, bucket -> true);
    }

    /**
     * @param bucketPolicies the policy of a bucket, or null when it has none (or does not exist)
     * @param restrictsPublicBuckets whether a bucket's public access block has RestrictPublicBuckets (true for a
     *     bucket that does not exist)
     */
    public PolicyAuthorizer(
            String rootAccessKey,
            IdentityStore identity,
            UserPolicies policies,
            Function<String, NamedPolicy> bucketPolicies,
            Predicate<String> restrictsPublicBuckets) {
        this.rootAccessKey = requireNonNull(rootAccessKey, "rootAccessKey");
        this.identity = requireNonNull(identity, "identity");
        this.policies = requireNonNull(policies, "policies");
        this.bucketPolicies = requireNonNull(bucketPolicies, "bucketPolicies");
        this.restrictsPublicBuckets = requireNonNull(restrictsPublicBuckets, "restrictsPublicBuckets");
    }

    /** A bucket-policy lookup and public access blocks from the store (see {@link StoreBucketPolicies}). */
    public PolicyAuthorizer(
            String rootAccessKey, IdentityStore identity, UserPolicies policies, StoreBucketPolicies bucketPolicies) {
        this(rootAccessKey, identity, policies, bucketPolicies::policy, bucketPolicies::restrictsPublicBuckets);
    }

    @Override
    public boolean decidesAnonymous() {
        return true;
    }

    @Override
    public boolean allowed(AccessRequest request) {
        if (request.anonymous()) {
            return allowedAnonymous(request);
        }
        if (rootAccessKey.equals(request.accessKey())) {
            return true;
        }
        Credential c = identity.credential(request.accessKey()).orElse(null);
        String account = policies.accountId();
        if (c == null || !c.active() || account == null) {
            return false;
        }
        RequestContext context = context(request, account, c.userName(), c.userId());
        NamedPolicy bucketPolicy = request.bucket() == null ? null : bucketPolicies.apply(request.bucket());
        return policies.evaluate(c.userName(), context, bucketPolicy).allowed();
    }

    @Override
    public boolean allowedAsUser(String userName, String action) {
        String account = policies.accountId();
        User user = account == null ? null : identity.findUser(userName).orElse(null);
        if (user == null || !user.enabled()) {
            return false;
        }
        return policies.evaluate(
                        user.name(),
                        adminContext(action)
                                .user(account, user.name(), user.id())
                                .build(),
                        null)
                .allowed();
    }

    @Override
    public boolean allowedByScope(String owner, List<String> policyArns, String action) {
        String account = policies.accountId();
        if (account == null) {
            return false;
        }
        // the scope's policies are evaluated as identity policies of the token's owner
        RequestContext.Builder b = adminContext(action);
        if (AdminToken.ROOT_OWNER.equals(owner)) {
            b.root(account);
        } else {
            User user = identity.findUser(owner).orElse(null);
            if (user == null) {
                return false;
            }
            b.user(account, user.name(), user.id());
        }
        return policies.scopeSet(policyArns).evaluate(b.build()).allowed();
    }

    /** An appliance action on resource {@code *}, now, with no request context: the console's decisions. */
    private static RequestContext.Builder adminContext(String action) {
        return RequestContext.builder(action, "*").time(java.time.Instant.now());
    }

    private boolean allowedAnonymous(AccessRequest request) {
        String account = policies.accountId();
        if (request.bucket() == null || account == null) {
            return false;
        }
        NamedPolicy bucketPolicy = bucketPolicies.apply(request.bucket());
        if (bucketPolicy == null) {
            return false;
        }
        // RestrictPublicBuckets: a public policy gives callers outside the account (here: anonymous ones) nothing
        if (bucketPolicy.document().isPublic() && restrictsPublicBuckets.test(request.bucket())) {
            return false;
        }
        RequestContext context = context(request, account, null, null);
        return policies.anonymousSet(bucketPolicy).evaluate(context).allowed();
    }

    /**
     * The policy engine's view of {@code request} by the user {@code userName} of {@code account} (anonymous when
     * {@code userName} is null).
     */
    static RequestContext context(AccessRequest request, String account, String userName, String userId) {
        RequestContext.Builder b = RequestContext.builder(request.action(), resource(request));
        if (userName == null) {
            b.account(account);
        } else {
            b.user(account, userName, userId);
        }
        b.time(request.time()).secureTransport(request.secureTransport()).sourceIp(request.sourceIp());
        for (Map.Entry<String, String> e : request.conditionKeys().entrySet()) {
            b.key(e.getKey(), e.getValue());
        }
        return b.build();
    }

    /**
     * The resource ARN the action names: by the action's scope when it is a known S3 action, else by what the request
     * addresses.
     */
    static String resource(AccessRequest request) {
        S3Action action = S3Action.named(request.action());
        if (action != null && (action.scope() == S3Action.Scope.ACCOUNT || request.bucket() != null)) {
            if (action.scope() == S3Action.Scope.OBJECT && request.key() == null) {
                return "arn:aws:s3:::" + request.bucket();
            }
            return action.resourceArn(request.bucket(), request.key());
        }
        if (request.bucket() == null) {
            return "*";
        }
        return request.key() == null
                ? "arn:aws:s3:::" + request.bucket()
                : "arn:aws:s3:::" + request.bucket() + "/" + request.key();
    }
}
