package dev.appliance.s3.auth;

import static java.util.Objects.requireNonNull;

import dev.appliance.core.identity.Credential;
import dev.appliance.core.identity.IdentityStore;
import dev.appliance.core.identity.UserPolicies;
import dev.appliance.core.policy.NamedPolicy;
import dev.appliance.core.policy.RequestContext;
import dev.appliance.core.policy.S3Action;
import java.util.Map;
import java.util.function.Function;

/**
 * Authorizes S3 requests with AWS-style policies. The root credential is allowed everything without evaluating
 * anything; an IAM user's request is evaluated against the user's policies (inline, attached, its groups', see {@link
 * UserPolicies}) and the bucket's policy when one is given: an explicit Deny wins, then an Allow, else the request is
 * denied. A key that is unknown, inactive or whose user is disabled is denied too (it may have been deactivated
 * between authentication and this check).
 */
public final class PolicyAuthorizer implements Authorizer {
    private final String rootAccessKey;
    private final IdentityStore identity;
    private final UserPolicies policies;
    private final Function<String, NamedPolicy> bucketPolicies;

    /**
     * @param bucketPolicies the policy of a bucket, or null when it has none (bucket policies plug in here; {@code b
     *     -> null} until they exist)
     */
    public PolicyAuthorizer(
            String rootAccessKey,
            IdentityStore identity,
            UserPolicies policies,
            Function<String, NamedPolicy> bucketPolicies) {
        this.rootAccessKey = requireNonNull(rootAccessKey, "rootAccessKey");
        this.identity = requireNonNull(identity, "identity");
        this.policies = requireNonNull(policies, "policies");
        this.bucketPolicies = requireNonNull(bucketPolicies, "bucketPolicies");
    }

    @Override
    public boolean allowed(AccessRequest request) {
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

    /** The policy engine's view of {@code request} by the user {@code userName} of {@code account}. */
    static RequestContext context(AccessRequest request, String account, String userName, String userId) {
        RequestContext.Builder b = RequestContext.builder(request.action(), resource(request))
                .user(account, userName, userId)
                .time(request.time())
                .secureTransport(request.secureTransport())
                .sourceIp(request.sourceIp());
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
