package dev.appliance.core.identity;

import static org.assertj.core.api.Assertions.assertThat;

import dev.appliance.core.policy.Decision;
import dev.appliance.core.policy.NamedPolicy;
import dev.appliance.core.policy.PolicyDocument;
import dev.appliance.core.policy.PolicySetCache;
import dev.appliance.core.policy.RequestContext;
import dev.appliance.core.policy.S3Action;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A user's policies as the S3 front end evaluates them, on a real identity store on temp drives. */
class UserPoliciesTest {
    @TempDir
    Path tmp;

    private IdentityDrives drives;
    private IdentityStore store;
    private PolicySetCache sets;
    private UserPolicies policies;

    @BeforeEach
    void open() throws Exception {
        drives = new IdentityDrives(tmp, 4);
        store = drives.open(Clock.systemUTC(), IdentityDrives.KEY);
        sets = new PolicySetCache(100);
        policies = new UserPolicies(store, sets);
        store.createUser("alice");
    }

    @AfterEach
    void close() throws Exception {
        drives.close();
    }

    private static String statement(String effect, String action, String resource) {
        return "{\"Version\":\"2012-10-17\",\"Statement\":[{\"Effect\":\"" + effect + "\",\"Action\":\"" + action
                + "\",\"Resource\":\"" + resource + "\"}]}";
    }

    private Decision get(String user, String bucket, String key) {
        RequestContext ctx = RequestContext.builder(
                        S3Action.GET_OBJECT.iamName(), S3Action.GET_OBJECT.resourceArn(bucket, key))
                .user(store.accountId(), user, store.user(user).id())
                .time(Instant.parse("2026-11-26T12:00:00Z"))
                .build();
        return policies.evaluate(user, ctx, null);
    }

    @Test
    void inlineAttachedAndGroupPolicies_allApply_inOrder_andAnExplicitDenyWins() {
        assertThat(get("alice", "b", "k").outcome()).isEqualTo(Decision.Outcome.IMPLICIT_DENY);
        store.putUserPolicy("alice", "Own", statement("Allow", "s3:GetObject", "arn:aws:s3:::b/*"));
        store.attachUserPolicy("alice", "arn:aws:iam::aws:policy/ReadOnly"); // built-in names ignore case
        ManagedPolicy managed = store.createPolicy("Managed", statement("Allow", "s3:PutObject", "*"));
        store.attachUserPolicy("alice", managed.arn());
        store.createGroup("g");
        store.addUserToGroup("g", "alice");
        store.putGroupPolicy("g", "NoSecrets", statement("Deny", "s3:GetObject", "arn:aws:s3:::b/secret*"));

        assertThat(policies.policies("alice"))
                .extracting(NamedPolicy::name)
                .containsExactly("user/alice/Own", "readonly", "Managed", "group/g/NoSecrets");
        Decision allowed = get("alice", "b", "k");
        assertThat(allowed.allowed()).isTrue();
        assertThat(allowed.policyName()).isEqualTo("user/alice/Own");
        Decision denied = get("alice", "b", "secret.txt");
        assertThat(denied.outcome()).isEqualTo(Decision.Outcome.EXPLICIT_DENY);
        assertThat(denied.policyName()).isEqualTo("group/g/NoSecrets");

        store.removeUserFromGroup("g", "alice");
        assertThat(get("alice", "b", "secret.txt").allowed()).isTrue();
    }

    @Test
    void aStoredDocumentThatDoesNotParse_deniesEverything_ratherThanDroppingADeny() {
        store.attachUserPolicy("alice", "arn:aws:iam::aws:policy/readwrite");
        assertThat(get("alice", "b", "k").allowed()).isTrue();
        // the store keeps documents as given; this one names an unknown operator, so its Deny cannot be read
        store.putUserPolicy(
                "alice",
                "BrokenDeny",
                "{\"Version\":\"2012-10-17\",\"Statement\":[{\"Effect\":\"Deny\",\"Action\":\"s3:*\",\"Resource\":"
                        + "\"*\",\"Condition\":{\"StringEqualz\":{\"aws:username\":\"alice\"}}}]}");
        assertThat(get("alice", "b", "k").outcome()).isEqualTo(Decision.Outcome.IMPLICIT_DENY);
        assertThat(policies.policies("alice")).isEmpty();
    }

    @Test
    void unknownBuiltIns_grantNothing_andUnknownUsers_areDenied() {
        store.attachUserPolicy("alice", "arn:aws:iam::aws:policy/NoSuchPolicy");
        assertThat(policies.policies("alice")).isEmpty();
        assertThat(get("alice", "b", "k").outcome()).isEqualTo(Decision.Outcome.IMPLICIT_DENY);
        assertThat(policies.policies("nobody")).isEmpty();
    }

    @Test
    void aBucketPolicy_isEvaluatedWithTheUsersPolicies() {
        store.createUser("bob");
        NamedPolicy bucketPolicy = new NamedPolicy(
                "bucket/b",
                PolicyDocument.parseBucketPolicy(
                        "{\"Version\":\"2012-10-17\",\"Statement\":[{\"Effect\":\"Allow\",\"Principal\":{\"AWS\":"
                                + "\"arn:aws:iam::" + store.accountId() + ":user/bob\"},\"Action\":\"s3:GetObject\","
                                + "\"Resource\":\"arn:aws:s3:::b/*\"}]}",
                        "b"));
        RequestContext ctx = RequestContext.builder(
                        S3Action.GET_OBJECT.iamName(), S3Action.GET_OBJECT.resourceArn("b", "k"))
                .user(store.accountId(), "bob", store.user("bob").id())
                .time(Instant.parse("2026-11-26T12:00:00Z"))
                .build();
        assertThat(policies.evaluate("bob", ctx, null).allowed()).isFalse();
        assertThat(policies.evaluate("bob", ctx, bucketPolicy).allowed()).isTrue();
    }
}
