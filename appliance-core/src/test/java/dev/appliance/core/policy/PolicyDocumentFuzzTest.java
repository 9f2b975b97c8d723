package dev.appliance.core.policy;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.time.Instant;
import java.util.List;

/**
 * Fuzzes the policy parser with what an IAM or S3 client can send: arbitrary text, and valid documents (the built-ins
 * and the Veeam policy) with fuzzed characters overwritten, cut or inserted. Every input parses or is refused with a
 * {@link MalformedPolicyException}, never another exception; what parses evaluates a request without failing, and the
 * compiled and reference evaluators agree on it.
 */
class PolicyDocumentFuzzTest {
    private static final List<String> SEEDS = List.of(
            BuiltinPolicies.get(BuiltinPolicies.AUDITOR).document().json(),
            BuiltinPolicies.get(BuiltinPolicies.ADMIN).document().json(),
            BuiltinPolicies.veeamRepository(List.of("veeam")).document().json(),
            PolicyTestSupport.document(
                    "{\"Sid\": \"A\", \"Effect\": \"Deny\", \"NotAction\": \"s3:Get*\", \"NotResource\":"
                            + " \"arn:aws:s3:::home/${aws:username}/*\", \"Condition\": {\"ForAllValues:StringLikeIfExists\":"
                            + " {\"s3:prefix\": [\"a*\", \"${aws:userid, 'x'}\"]}, \"IpAddress\": {\"aws:SourceIp\":"
                            + " \"10.0.0.0/8\"}, \"DateLessThan\": {\"aws:CurrentTime\": \"2030-01-01\"}, \"Null\":"
                            + " {\"s3:x-amz-acl\": \"true\"}, \"ArnLike\": {\"aws:PrincipalArn\": \"arn:aws:iam::*:user/*\"}}}"));
    private static final String SPECIALS = "{}[]\":,*?$'\\ ";
    private static final RequestContext REQUEST = RequestContext.builder("s3:GetObject", "arn:aws:s3:::veeam/home/a/x")
            .user("123456789012", "a", "AIDAA")
            .time(Instant.parse("2026-06-01T12:00:00Z"))
            .sourceIp("10.1.2.3")
            .key("s3:prefix", "a1")
            .build();

    @FuzzTest
    void parseAcceptsOrRefusesAsMalformed(FuzzedDataProvider data) {
        String json;
        if (data.consumeBoolean()) {
            json = data.consumeRemainingAsString();
        } else {
            StringBuilder b = new StringBuilder(SEEDS.get(data.consumeInt(0, SEEDS.size() - 1)));
            int edits = data.consumeInt(1, 4);
            for (int i = 0; i < edits && !b.isEmpty(); i++) {
                int at = data.consumeInt(0, b.length() - 1);
                switch (data.consumeInt(0, 3)) {
                    case 0 -> b.setCharAt(at, data.consumeChar());
                    case 1 -> b.setCharAt(at, SPECIALS.charAt(data.consumeInt(0, SPECIALS.length() - 1)));
                    case 2 -> b.setLength(at);
                    default -> b.insert(at, data.consumeString(8));
                }
            }
            json = b.toString();
        }
        PolicyKind kind = data.consumeBoolean() ? PolicyKind.MANAGED : PolicyKind.BUCKET;
        PolicyDocument doc;
        try {
            doc = kind == PolicyKind.BUCKET
                    ? PolicyDocument.parseBucketPolicy(json, "veeam")
                    : PolicyDocument.parse(json, kind);
        } catch (MalformedPolicyException e) {
            assertThat(e.getMessage()).startsWith(e.element());
            return;
        }
        assertThat(doc.statementCount()).isPositive();
        NamedPolicy p = new NamedPolicy("fuzzed", doc);
        List<NamedPolicy> identity = kind == PolicyKind.BUCKET ? List.of() : List.of(p);
        NamedPolicy bucket = kind == PolicyKind.BUCKET ? p : null;
        Decision fast = PolicySet.of(identity, bucket).evaluate(REQUEST);
        assertThat(fast).isEqualTo(ReferenceEvaluator.evaluate(identity, bucket, REQUEST));
    }
}
