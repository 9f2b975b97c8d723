package dev.appliance.app.console;

import static dev.appliance.app.console.ProblemAssertions.ok;
import static dev.appliance.app.console.ProblemAssertions.problem;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.appliance.core.admin.ApplianceStore;
import dev.appliance.core.engine.Stores;
import dev.appliance.core.identity.IdentityStore;
import dev.appliance.core.policy.AdminAction;
import dev.appliance.core.policy.BuiltinPolicies;
import dev.appliance.core.policy.MalformedPolicyException;
import dev.appliance.core.testing.TestStore;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The IAM resource under {@code /api/v1/admin/iam} through a real console over a real store with its identity state:
 * users, keys (the secret shown once), enabling, built-in and customer policies, the Veeam convenience, and errors as
 * problems naming the field. Users created here sign their own admin and S3 requests, so what they may do is checked
 * by the same authorizer the appliance runs.
 */
class IamResourceTest {
    private static final String SECRET = "root-secret-for-the-iam-test";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String IAM = "/api/v1/admin/iam";

    @TempDir
    static Path tmp;

    private static ConsoleTestAppliance app;

    @BeforeAll
    static void start() throws Exception {
        byte[] identityKey = new byte[32];
        Arrays.fill(identityKey, (byte) 3);
        ApplianceStore store = Stores.open(TestStore.on(tmp).config().withIdentityKey(identityKey));
        store.makeBucket("backups");
        app = ConsoleTestAppliance.startWithIdentity(store, SECRET);
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.close();
        }
    }

    @Test
    void aUserGetsAKeyWhoseSecretIsShownOnceAndWhatItMayDoFollowsItsPolicies() throws Exception {
        JsonNode user = ok(app.signed("POST", IAM + "/users", "{\"name\":\"alice\"}"), 201);
        assertThat(user.get("name").asText()).isEqualTo("alice");
        assertThat(user.get("enabled").asBoolean()).isTrue();
        assertThat(ok(app.signed("GET", IAM + "/users", null), 200).findValuesAsText("name"))
                .contains("alice");

        JsonNode key = ok(app.signed("POST", IAM + "/users/alice/keys", null), 201);
        String keyId = key.get("accessKeyId").asText();
        String secret = key.get("secretAccessKey").asText();
        assertThat(secret).hasSizeGreaterThan(20);
        HttpResponse<String> listed = app.signed("GET", IAM + "/users/alice/keys", null);
        JsonNode keys = ok(listed, 200);
        assertThat(keys).hasSize(1);
        assertThat(keys.get(0).get("accessKeyId").asText()).isEqualTo(keyId);
        assertThat(keys.get(0).has("secretAccessKey")).isFalse();
        assertThat(listed.body()).doesNotContain(secret);

        // no policy: refused; the built-in auditor policy grants reading the admin API
        assertThat(app.sendAs("GET", IAM + "/users", null, keyId, secret).statusCode())
                .isEqualTo(403);
        JsonNode attached = ok(
                app.signed("POST", IAM + "/users/alice/policies", "{\"policyArn\":\"arn:aws:iam::aws:policy/admin\"}"),
                200);
        assertThat(attached.get("attachedPolicies").get(0).asText()).isEqualTo("arn:aws:iam::aws:policy/admin");
        assertThat(app.sendAs("GET", IAM + "/users", null, keyId, secret).statusCode())
                .isEqualTo(200);

        // a disabled user, and an inactive key, no longer sign in
        assertThat(ok(app.signed("PUT", IAM + "/users/alice/enabled", "{\"enabled\":false}"), 200)
                        .get("enabled")
                        .asBoolean())
                .isFalse();
        assertThat(app.sendAs("GET", IAM + "/users", null, keyId, secret).statusCode())
                .isEqualTo(403);
        ok(app.signed("PUT", IAM + "/users/alice/enabled", "{\"enabled\":true}"), 200);
        assertThat(ok(app.signed("PUT", IAM + "/users/alice/keys/" + keyId, "{\"status\":\"Inactive\"}"), 200)
                        .get("status")
                        .asText())
                .isEqualTo("Inactive");
        assertThat(app.sendAs("GET", IAM + "/users", null, keyId, secret).statusCode())
                .isEqualTo(403);

        // a customer policy, attached and detached
        String doc = "{\"Version\":\"2012-10-17\",\"Statement\":[{\"Effect\":\"Allow\",\"Action\":\"s3:GetObject\","
                + "\"Resource\":\"arn:aws:s3:::backups/*\"}]}";
        JsonNode policy = ok(
                app.signed(
                        "POST",
                        IAM + "/policies",
                        JSON.writeValueAsString(JSON.createObjectNode()
                                .put("name", "read-backups")
                                .put("document", doc))),
                201);
        String arn = policy.get("arn").asText();
        assertThat(policy.get("kind").asText()).isEqualTo("customer");
        JsonNode policies = ok(app.signed("GET", IAM + "/policies", null), 200);
        assertThat(policies.findValuesAsText("arn")).contains(arn, "arn:aws:iam::aws:policy/readonly");
        // a built-in policy comes with its document, read only, for the console to show what it grants
        for (JsonNode p : policies) {
            if (p.get("name").asText().equals("readonly")) {
                assertThat(p.get("kind").asText()).isEqualTo("builtin");
                assertThat(p.get("document").asText()).contains("\"s3:Get*\"");
            }
        }
        ok(app.signed("POST", IAM + "/users/alice/policies", "{\"policyArn\":\"" + arn + "\"}"), 200);
        problem(app.signed("DELETE", IAM + "/policies/read-backups", null), 409, "DeleteConflict", null);
        assertThat(ok(app.signed("DELETE", IAM + "/users/alice/policies?policyArn=" + arn, null), 200)
                        .get("attachedPolicies"))
                .hasSize(1);
        ok(app.signed("DELETE", IAM + "/policies/read-backups", null), 204);

        // a user with a key is not deleted; without it, it is
        problem(app.signed("DELETE", IAM + "/users/alice", null), 409, "DeleteConflict", null);
        ok(app.signed("DELETE", IAM + "/users/alice/keys/" + keyId, null), 204);
        ok(app.signed("DELETE", IAM + "/users/alice/policies?policyArn=arn:aws:iam::aws:policy/admin", null), 200);
        ok(app.signed("DELETE", IAM + "/users/alice", null), 204);
        problem(app.signed("GET", IAM + "/users/alice", null), 404, "NoSuchEntity", null);
    }

    @Test
    void theVeeamUserGetsAPolicyOnItsBucketsAndAKeyThatWritesThere() throws Exception {
        problem(
                app.signed("POST", IAM + "/users/veeam", "{\"name\":\"vbr\",\"buckets\":[\"backups\",\"nope\"]}"),
                404,
                "NoSuchEntity",
                "buckets");
        assertThat(app.store.identity().findUser("vbr")).isEmpty();

        JsonNode made =
                ok(app.signed("POST", IAM + "/users/veeam", "{\"name\":\"vbr\",\"buckets\":[\"backups\"]}"), 201);
        assertThat(made.get("user").get("attachedPolicies").get(0).asText())
                .isEqualTo(made.get("policy").get("arn").asText());
        assertThat(made.get("policy").get("name").asText()).isEqualTo("veeam-vbr");
        String keyId = made.get("key").get("accessKeyId").asText();
        String secret = made.get("key").get("secretAccessKey").asText();

        // the key writes into its bucket through the S3 port, and not elsewhere
        store("backups", "vbr-check", keyId, secret, 200);
        app.store.makeBucket("other");
        store("other", "vbr-check", keyId, secret, 403);
        assertThat(app.sendAs("GET", IAM + "/users", null, keyId, secret).statusCode())
                .isEqualTo(403);

        problem(
                app.signed("POST", IAM + "/users/veeam", "{\"name\":\"vbr\",\"buckets\":[\"backups\"]}"),
                409,
                "EntityAlreadyExists",
                null);
    }

    @Test
    void mutationsAreAuditedByTheConsoleGuardWithoutTheSecret() throws Exception {
        ok(app.signed("POST", IAM + "/users", "{\"name\":\"carol\"}"), 201);
        String secret = ok(app.signed("POST", IAM + "/users/carol/keys", null), 201)
                .get("secretAccessKey")
                .asText();
        ok(app.signed("PUT", IAM + "/users/carol/enabled", "{\"enabled\":false}"), 200);
        HttpResponse<String> export = app.signed("GET", "/api/v1/admin/audit/export?action=admin:", null);
        assertThat(export.statusCode()).isEqualTo(200);
        assertThat(export.body())
                .contains(
                        "admin:POST /api/v1/admin/iam/users\"",
                        "admin:POST /api/v1/admin/iam/users/carol/keys",
                        "admin:PUT /api/v1/admin/iam/users/carol/enabled")
                .doesNotContain(secret);
    }

    @Test
    void badInputIsAProblemNamingTheField() throws Exception {
        problem(app.signed("POST", IAM + "/users", "{\"name\":\"bad name!\"}"), 400, "ValidationError", "name");
        problem(app.signed("POST", IAM + "/users", "{}"), 400, "ValidationError", "name");
        ok(app.signed("POST", IAM + "/users", "{\"name\":\"bob\"}"), 201);
        problem(app.signed("POST", IAM + "/users", "{\"name\":\"BOB\"}"), 409, "EntityAlreadyExists", null);
        problem(
                app.signed("PUT", IAM + "/users/bob/enabled", "{\"enabled\":\"maybe\"}"),
                400,
                "InvalidInput",
                "enabled");
        problem(app.signed("PUT", IAM + "/users/bob/enabled", "{}"), 400, "InvalidInput", "enabled");
        JsonNode malformed = problem(
                app.signed("POST", IAM + "/policies", "{\"name\":\"p\",\"document\":\"{\\\"Statement\\\":7}\"}"),
                400,
                "InvalidInput",
                "document");
        assertThat(malformed.get("detail").asText()).startsWith("document: ");
        assertThat(app.store.identity().policies()).noneMatch(p -> p.name().equals("p"));
        problem(
                app.signed("POST", IAM + "/users/bob/policies", "{\"policyArn\":\"arn:aws:iam::aws:policy/nosuch\"}"),
                404,
                "NoSuchEntity",
                "policyArn");
        problem(
                app.signed("POST", IAM + "/users/bob/policies", "{\"policyArn\":\"policy\"}"),
                400,
                "InvalidInput",
                "policyArn");
        problem(app.signed("POST", IAM + "/users/nobody/keys", null), 404, "NoSuchEntity", null);
        ok(app.signed("POST", IAM + "/users/bob/keys", null), 201);
        ok(app.signed("POST", IAM + "/users/bob/keys", null), 201);
        problem(app.signed("POST", IAM + "/users/bob/keys", null), 409, "LimitExceeded", null);
        String keyId = app.store.identity().accessKeys("bob").get(0).accessKeyId();
        problem(
                app.signed("PUT", IAM + "/users/bob/keys/" + keyId, "{\"status\":\"Paused\"}"),
                400,
                "ValidationError",
                "status");
        problem(app.signed("DELETE", IAM + "/users/bob/policies", null), 400, "InvalidInput", "policyArn");
    }

    @Test
    void groupsHaveMembersAndPolicies_andAUserShowsItsGroups() throws Exception {
        ok(app.signed("POST", IAM + "/users", "{\"name\":\"gina\"}"), 201);
        JsonNode group = ok(app.signed("POST", IAM + "/groups", "{\"name\":\"operators\"}"), 201);
        assertThat(group.get("name").asText()).isEqualTo("operators");
        assertThat(group.get("members")).isEmpty();
        assertThat(ok(app.signed("GET", IAM + "/groups", null), 200).findValuesAsText("name"))
                .contains("operators");
        problem(app.signed("POST", IAM + "/groups", "{\"name\":\"OPERATORS\"}"), 409, "EntityAlreadyExists", null);
        problem(app.signed("POST", IAM + "/groups", "{\"name\":\"bad group!\"}"), 400, "ValidationError", "name");

        assertThat(ok(app.signed("PUT", IAM + "/groups/operators/members/gina", null), 200)
                        .get("members"))
                .extracting(JsonNode::asText)
                .containsExactly("gina");
        assertThat(ok(app.signed("GET", IAM + "/users/gina", null), 200).get("groups"))
                .extracting(JsonNode::asText)
                .containsExactly("operators");
        problem(app.signed("PUT", IAM + "/groups/operators/members/nobody", null), 404, "NoSuchEntity", null);
        problem(app.signed("PUT", IAM + "/groups/nogroup/members/gina", null), 404, "NoSuchEntity", null);

        // the group's policy is the member's: gina's key reads the admin API once the group has the auditor policy
        JsonNode key = ok(app.signed("POST", IAM + "/users/gina/keys", null), 201);
        String keyId = key.get("accessKeyId").asText();
        String secret = key.get("secretAccessKey").asText();
        assertThat(app.sendAs("GET", IAM + "/groups", null, keyId, secret).statusCode())
                .isEqualTo(403);
        JsonNode attached = ok(
                app.signed(
                        "POST",
                        IAM + "/groups/operators/policies",
                        "{\"policyArn\":\"arn:aws:iam::aws:policy/auditor\"}"),
                200);
        assertThat(attached.get("attachedPolicies"))
                .extracting(JsonNode::asText)
                .containsExactly("arn:aws:iam::aws:policy/auditor");
        assertThat(app.sendAs("GET", IAM + "/groups", null, keyId, secret).statusCode())
                .isEqualTo(200);
        problem(
                app.signed(
                        "POST",
                        IAM + "/groups/operators/policies",
                        "{\"policyArn\":\"arn:aws:iam::aws:policy/nosuch\"}"),
                404,
                "NoSuchEntity",
                "policyArn");

        // a group with members or policies is not deleted
        problem(app.signed("DELETE", IAM + "/groups/operators", null), 409, "DeleteConflict", null);
        assertThat(ok(app.signed("DELETE", IAM + "/groups/operators/members/gina", null), 200)
                        .get("members"))
                .isEmpty();
        assertThat(ok(app.signed("GET", IAM + "/users/gina", null), 200).get("groups"))
                .isEmpty();
        assertThat(app.sendAs("GET", IAM + "/groups", null, keyId, secret).statusCode())
                .isEqualTo(403);
        assertThat(ok(
                                app.signed(
                                        "DELETE",
                                        IAM + "/groups/operators/policies?policyArn=arn:aws:iam::aws:policy/auditor",
                                        null),
                                200)
                        .get("attachedPolicies"))
                .isEmpty();
        problem(app.signed("DELETE", IAM + "/groups/operators/policies", null), 400, "InvalidInput", "policyArn");
        ok(app.signed("DELETE", IAM + "/groups/operators", null), 204);
        problem(app.signed("GET", IAM + "/groups/operators", null), 404, "NoSuchEntity", null);
    }

    /**
     * The Veeam user's policy is refused by the identity store after the user was made (its document, pretty-printed,
     * is longer than the store takes although the policy engine, which does not count white space, accepted it): the
     * user is removed again, so the request leaves nothing behind.
     */
    @Test
    void aVeeamUserWhosePolicyIsRefused_isNotLeftBehind() throws Exception {
        List<String> buckets = new ArrayList<>();
        String document = null;
        for (int n = 1; n < 60 && document == null; n++) {
            buckets.add("veeam-many-" + "b".repeat(40) + String.format("-%03d", n));
            String json;
            try {
                json = BuiltinPolicies.veeamRepository(buckets).document().json();
            } catch (MalformedPolicyException tooLarge) {
                break;
            }
            if (json.length() > IdentityStore.MAX_POLICY_DOCUMENT_CHARS) {
                document = json;
            }
        }
        assertThat(document)
                .as("a bucket list the engine takes and the store refuses")
                .isNotNull();
        for (String b : buckets) {
            app.store.makeBucket(b);
        }
        problem(
                app.signed(
                        "POST",
                        IAM + "/users/veeam",
                        JSON.writeValueAsString(JSON.createObjectNode()
                                .put("name", "vbr-many")
                                .set("buckets", JSON.valueToTree(buckets)))),
                409,
                "LimitExceeded",
                null);
        assertThat(app.store.identity().findUser("vbr-many")).isEmpty();
        assertThat(app.store.identity().policies()).noneMatch(p -> p.name().equals("veeam-vbr-many"));
    }

    @Test
    void aVeeamUserWhoseNameStartsWithVeeam_getsAPolicyWithoutTheStackedPrefix() throws Exception {
        // the wizard suggests veeam-<bucket> as the user: its policy is not veeam-veeam-<bucket>
        JsonNode made = ok(
                app.signed("POST", IAM + "/users/veeam", "{\"name\":\"veeam-backups\",\"buckets\":[\"backups\"]}"),
                201);
        assertThat(made.get("policy").get("name").asText()).isEqualTo("veeam-backups");
        assertThat(app.store.identity().policies()).noneMatch(p -> p.name().startsWith("veeam-veeam-"));
        JsonNode other =
                ok(app.signed("POST", IAM + "/users/veeam", "{\"name\":\"Veeam-Two\",\"buckets\":[\"backups\"]}"), 201);
        assertThat(other.get("policy").get("name").asText()).isEqualTo("Veeam-Two");
    }

    @Test
    void aCustomerPolicyIsEditedInPlace_checkedAsOnCreate_builtInsAndAuditorsRefused() throws Exception {
        String readOnly = "{\"Version\":\"2012-10-17\",\"Statement\":[{\"Effect\":\"Allow\","
                + "\"Action\":\"s3:GetObject\",\"Resource\":\"arn:aws:s3:::backups/*\"}]}";
        String readWrite = readOnly.replace("\"s3:GetObject\"", "[\"s3:GetObject\",\"s3:PutObject\"]");
        ok(app.signed("POST", IAM + "/policies", body("edit-me", readOnly)), 201);
        ok(app.signed("POST", IAM + "/users", "{\"name\":\"editor-user\"}"), 201);
        JsonNode attached = ok(app.signed("GET", IAM + "/policies", null), 200);
        String arn = null;
        for (JsonNode p : attached) {
            if (p.get("name").asText().equals("edit-me")) {
                arn = p.get("arn").asText();
            }
        }
        ok(app.signed("POST", IAM + "/users/editor-user/policies", "{\"policyArn\":\"" + arn + "\"}"), 200);
        JsonNode key = ok(app.signed("POST", IAM + "/users/editor-user/keys", null), 201);
        String keyId = key.get("accessKeyId").asText();
        String secret = key.get("secretAccessKey").asText();
        store("backups", "edited", keyId, secret, 403);

        // a malformed document is refused as on create, naming the field, and the policy stays as it was
        JsonNode malformed = problem(
                app.signed("PUT", IAM + "/policies/edit-me", "{\"document\":\"{\\\"Statement\\\":7}\"}"),
                400,
                "InvalidInput",
                "document");
        assertThat(malformed.get("detail").asText()).startsWith("document: ");
        assertThat(app.store.identity().policy("edit-me").document()).isEqualTo(readOnly);

        // the new document is in force at once for the user it is attached to
        JsonNode updated = ok(
                app.signed(
                        "PUT",
                        IAM + "/policies/edit-me",
                        JSON.writeValueAsString(JSON.createObjectNode().put("document", readWrite))),
                200);
        assertThat(updated.get("kind").asText()).isEqualTo("customer");
        assertThat(updated.get("arn").asText()).isEqualTo(arn);
        assertThat(updated.get("document").asText()).isEqualTo(readWrite);
        store("backups", "edited", keyId, secret, 200);

        problem(app.signed("PUT", IAM + "/policies/auditor", body(null, readOnly)), 400, "InvalidInput", "name");
        problem(app.signed("PUT", IAM + "/policies/no-such", body(null, readOnly)), 404, "NoSuchEntity", null);

        // an auditor reads policies but may not change one
        ok(app.signed("POST", IAM + "/users", "{\"name\":\"policy-auditor\"}"), 201);
        ok(
                app.signed(
                        "POST",
                        IAM + "/users/policy-auditor/policies",
                        "{\"policyArn\":\"arn:aws:iam::aws:policy/auditor\"}"),
                200);
        JsonNode auditorKey = ok(app.signed("POST", IAM + "/users/policy-auditor/keys", null), 201);
        HttpResponse<String> refused = app.sendAs(
                "PUT",
                IAM + "/policies/edit-me",
                body(null, readOnly),
                auditorKey.get("accessKeyId").asText(),
                auditorKey.get("secretAccessKey").asText());
        assertThat(refused.statusCode()).as(refused.body()).isEqualTo(403);
        assertThat(app.store.identity().policy("edit-me").document()).isEqualTo(readWrite);
    }

    @Test
    void whoAmI_listsTheActionsTheCallerIsAllowed_soTheConsoleShowsOnlyItsControls() throws Exception {
        ok(app.signed("POST", IAM + "/users", "{\"name\":\"who-auditor\"}"), 201);
        ok(
                app.signed(
                        "POST",
                        IAM + "/users/who-auditor/policies",
                        "{\"policyArn\":\"arn:aws:iam::aws:policy/auditor\"}"),
                200);
        JsonNode key = ok(app.signed("POST", IAM + "/users/who-auditor/keys", null), 201);
        String keyId = key.get("accessKeyId").asText();
        String secret = key.get("secretAccessKey").asText();
        JsonNode auditor = ok(app.sendAs("GET", "/api/v1/session", null, keyId, secret), 200);
        assertThat(auditor.get("name").asText()).isEqualTo("who-auditor");
        List<String> allowed = new ArrayList<>();
        for (JsonNode a : auditor.get("allowed")) {
            allowed.add(a.asText());
        }
        // every read but those revealing a secret, no change
        List<String> reads = Arrays.stream(AdminAction.values())
                .filter(a -> a.read() && !a.revealsSecret())
                .map(AdminAction::iamName)
                .toList();
        assertThat(allowed).containsExactlyInAnyOrderElementsOf(reads);
        assertThat(auditor.toString()).doesNotContain(secret);

        JsonNode root = ok(app.signed("GET", "/api/v1/session", null), 200);
        assertThat(root.get("allowed")).hasSize(AdminAction.values().length);
    }

    private static String body(String name, String document) throws Exception {
        var node = JSON.createObjectNode();
        if (name != null) {
            node.put("name", name);
        }
        return JSON.writeValueAsString(node.put("document", document));
    }

    /** A PutObject on the S3 port signed by {@code accessKey}. */
    private static void store(String bucket, String key, String accessKey, String secret, int expected)
            throws Exception {
        HttpResponse<String> r = app.s3As("PUT", "/" + bucket + "/" + key, "data", accessKey, secret);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(expected);
    }
}
