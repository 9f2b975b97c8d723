package dev.appliance.core.policy;

import static dev.appliance.core.policy.PolicyTestSupport.document;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** What the parser accepts and what it refuses, with the element and value it names. */
class PolicyDocumentTest {
    private static final String OK = "{\"Effect\": \"Allow\", \"Action\": \"s3:GetObject\", \"Resource\": \"*\"}";

    static Stream<Arguments> malformed() {
        return Stream.of(
                Arguments.of("not JSON", "{\"Version\": ", "Policy", "not valid JSON"),
                Arguments.of("not an object", "[1]", "Policy", "expected a JSON object"),
                Arguments.of("trailing garbage", document(OK) + " x", "Policy", "not valid JSON"),
                Arguments.of("duplicate key", "{\"Statement\": [], \"Statement\": []}", "Policy", "Duplicate"),
                Arguments.of(
                        "unknown top-level key",
                        "{\"Version\": \"2012-10-17\", \"Statment\": []}",
                        "Policy",
                        "unknown element 'Statment'"),
                Arguments.of(
                        "bad version",
                        "{\"Version\": \"2020-01-01\", \"Statement\": " + OK + "}",
                        "Version",
                        "\"2020-01-01\""),
                Arguments.of("no statement", "{\"Version\": \"2012-10-17\"}", "Statement", "missing"),
                Arguments.of(
                        "empty statement list",
                        "{\"Version\": \"2012-10-17\", \"Statement\": []}",
                        "Statement",
                        "non-empty"),
                Arguments.of(
                        "unknown statement key",
                        document("{\"Effect\": \"Allow\", \"Actions\": \"s3:*\", \"Resource\": \"*\"}"),
                        "Statement[0]",
                        "unknown element 'Actions'"),
                Arguments.of(
                        "unknown effect",
                        document("{\"Effect\": \"Permit\", \"Action\": \"s3:*\", \"Resource\": \"*\"}"),
                        "Statement[0].Effect",
                        "\"Permit\""),
                Arguments.of(
                        "effect is case-sensitive",
                        document("{\"Effect\": \"allow\", \"Action\": \"s3:*\", \"Resource\": \"*\"}"),
                        "Statement[0].Effect",
                        "\"allow\""),
                Arguments.of(
                        "no effect",
                        document("{\"Action\": \"s3:*\", \"Resource\": \"*\"}"),
                        "Statement[0].Effect",
                        "missing"),
                Arguments.of(
                        "neither Action nor NotAction",
                        document("{\"Effect\": \"Allow\", \"Resource\": \"*\"}"),
                        "Statement[0]",
                        "neither Action nor NotAction"),
                Arguments.of(
                        "both Action and NotAction",
                        document("{\"Effect\": \"Allow\", \"Action\": \"s3:*\", \"NotAction\": \"s3:Get*\","
                                + " \"Resource\": \"*\"}"),
                        "Statement[0]",
                        "both Action and NotAction"),
                Arguments.of(
                        "action without service",
                        document("{\"Effect\": \"Allow\", \"Action\": \"GetObject\", \"Resource\": \"*\"}"),
                        "Statement[0].Action",
                        "'GetObject'"),
                Arguments.of(
                        "action with a space",
                        document(OK, "{\"Effect\": \"Allow\", \"Action\": [\"s3:Get Object\"], \"Resource\": \"*\"}"),
                        "Statement[1].Action",
                        "'s3:Get Object'"),
                Arguments.of(
                        "empty action list",
                        document("{\"Effect\": \"Allow\", \"Action\": [], \"Resource\": \"*\"}"),
                        "Statement[0].Action",
                        "[]"),
                Arguments.of(
                        "action of the wrong type",
                        document("{\"Effect\": \"Allow\", \"Action\": {\"a\": 1}, \"Resource\": \"*\"}"),
                        "Statement[0].Action",
                        "expected a string"),
                Arguments.of(
                        "no resource",
                        document("{\"Effect\": \"Allow\", \"Action\": \"s3:*\"}"),
                        "Statement[0]",
                        "neither Resource nor NotResource"),
                Arguments.of(
                        "resource not an ARN",
                        document("{\"Effect\": \"Allow\", \"Action\": \"s3:*\", \"Resource\": \"bucket/*\"}"),
                        "Statement[0].Resource",
                        "'bucket/*'"),
                Arguments.of(
                        "principal in an identity policy",
                        document(
                                "{\"Effect\": \"Allow\", \"Principal\": \"*\", \"Action\": \"s3:*\", \"Resource\": \"*\"}"),
                        "Statement[0].Principal",
                        "must not name a principal"),
                Arguments.of(
                        "unknown condition operator",
                        document("{\"Effect\": \"Allow\", \"Action\": \"s3:*\", \"Resource\": \"*\", \"Condition\":"
                                + " {\"StringEqualz\": {\"s3:prefix\": \"a\"}}}"),
                        "Statement[0].Condition.StringEqualz",
                        "unknown condition operator 'StringEqualz'"),
                Arguments.of(
                        "unknown set qualifier",
                        document("{\"Effect\": \"Allow\", \"Action\": \"s3:*\", \"Resource\": \"*\", \"Condition\":"
                                + " {\"ForSomeValues:StringEquals\": {\"s3:prefix\": \"a\"}}}"),
                        "Statement[0].Condition.ForSomeValues:StringEquals",
                        "unknown condition operator"),
                Arguments.of(
                        "Null with IfExists",
                        document("{\"Effect\": \"Allow\", \"Action\": \"s3:*\", \"Resource\": \"*\", \"Condition\":"
                                + " {\"NullIfExists\": {\"s3:prefix\": \"true\"}}}"),
                        "Statement[0].Condition.NullIfExists",
                        "Null takes neither"),
                Arguments.of(
                        "numeric value not a number",
                        document("{\"Effect\": \"Allow\", \"Action\": \"s3:*\", \"Resource\": \"*\", \"Condition\":"
                                + " {\"NumericLessThan\": {\"s3:max-keys\": \"ten\"}}}"),
                        "Statement[0].Condition.NumericLessThan.s3:max-keys",
                        "'ten'"),
                Arguments.of(
                        "date value not a date",
                        document("{\"Effect\": \"Allow\", \"Action\": \"s3:*\", \"Resource\": \"*\", \"Condition\":"
                                + " {\"DateLessThan\": {\"aws:CurrentTime\": \"tomorrow\"}}}"),
                        "Statement[0].Condition.DateLessThan.aws:CurrentTime",
                        "'tomorrow'"),
                Arguments.of(
                        "bad CIDR",
                        document("{\"Effect\": \"Allow\", \"Action\": \"s3:*\", \"Resource\": \"*\", \"Condition\":"
                                + " {\"IpAddress\": {\"aws:SourceIp\": \"10.0.0.0/33\"}}}"),
                        "Statement[0].Condition.IpAddress.aws:SourceIp",
                        "'10.0.0.0/33'"),
                Arguments.of(
                        "bool not a bool",
                        document("{\"Effect\": \"Allow\", \"Action\": \"s3:*\", \"Resource\": \"*\", \"Condition\":"
                                + " {\"Bool\": {\"aws:SecureTransport\": \"yes\"}}}"),
                        "Statement[0].Condition.Bool.aws:SecureTransport",
                        "'yes'"),
                Arguments.of(
                        "condition value an object",
                        document("{\"Effect\": \"Allow\", \"Action\": \"s3:*\", \"Resource\": \"*\", \"Condition\":"
                                + " {\"StringEquals\": {\"s3:prefix\": {\"a\": \"b\"}}}}"),
                        "Statement[0].Condition.StringEquals.s3:prefix",
                        "expected a string"),
                Arguments.of(
                        "duplicate Sid",
                        document(
                                "{\"Sid\": \"A\", \"Effect\": \"Allow\", \"Action\": \"s3:*\", \"Resource\": \"*\"}",
                                "{\"Sid\": \"A\", \"Effect\": \"Deny\", \"Action\": \"s3:*\", \"Resource\": \"*\"}"),
                        "Statement[1].Sid",
                        "'A' is used twice"),
                Arguments.of(
                        "IAM Sid with punctuation",
                        document(
                                "{\"Sid\": \"a-b\", \"Effect\": \"Allow\", \"Action\": \"s3:*\", \"Resource\": \"*\"}"),
                        "Statement[0].Sid",
                        "'a-b'"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("malformed")
    void parse_refusesMalformed_namingElementAndValue(String name, String json, String element, String message) {
        assertThatThrownBy(() -> PolicyDocument.parse(json, PolicyKind.MANAGED))
                .isInstanceOfSatisfying(MalformedPolicyException.class, e -> {
                    assertThat(e.reason()).isEqualTo(MalformedPolicyException.Reason.MALFORMED);
                    assertThat(e.element()).isEqualTo(element);
                    assertThat(e.getMessage()).startsWith(element + ":").contains(message);
                });
    }

    @Test
    void parse_acceptsSingleStatementObjectAndScalars() {
        PolicyDocument d = PolicyDocument.parse(
                "{\"Version\": \"2012-10-17\", \"Id\": \"p1\", \"Statement\": {\"Sid\": \"One\", \"Effect\": \"Deny\","
                        + " \"NotAction\": \"s3:GetObject\", \"NotResource\": [\"arn:aws:s3:::b/*\"], \"Condition\":"
                        + " {\"ForAllValues:StringLikeIfExists\": {\"s3:RequestObjectTagKeys\": [\"a*\", 1, true]}}}}",
                PolicyKind.USER_INLINE);
        assertThat(d.version()).isEqualTo(PolicyDocument.VERSION_2012);
        assertThat(d.id()).isEqualTo("p1");
        assertThat(d.sids()).containsExactly("One");
        assertThat(d.warnings()).isEmpty();
    }

    @Test
    void parse_withoutVersion_isThe2008Language() {
        PolicyDocument d = PolicyDocument.parse("{\"Statement\": " + OK + "}", PolicyKind.MANAGED);
        assertThat(d.version()).isEqualTo(PolicyDocument.VERSION_2008);
    }

    @Test
    void parse_unknownActionInIdentityPolicy_isAcceptedWithAWarning() {
        PolicyDocument d = PolicyDocument.parse(
                document("{\"Effect\": \"Allow\", \"Action\": [\"s3:GetObjectt\", \"ec2:RunInstances\","
                        + " \"s3:Get*\"], \"Resource\": \"*\"}"),
                PolicyKind.MANAGED);
        assertThat(d.warnings()).hasSize(2);
        assertThat(d.warnings().get(0)).contains("'s3:GetObjectt'");
        assertThat(d.warnings().get(1)).contains("'ec2:RunInstances'");
    }

    @Test
    void parseBucketPolicy_refusesUnknownActionsOtherServicesAndForeignResources() {
        String principal = "\"Principal\": \"*\", ";
        assertThatThrownBy(() -> PolicyDocument.parseBucketPolicy(
                        document("{\"Effect\": \"Allow\", " + principal
                                + "\"Action\": \"s3:GetObjectt\", \"Resource\": \"arn:aws:s3:::b/*\"}"),
                        "b"))
                .isInstanceOf(MalformedPolicyException.class)
                .hasMessageContaining("'s3:GetObjectt' is no S3 action");
        assertThatThrownBy(() -> PolicyDocument.parseBucketPolicy(
                        document("{\"Effect\": \"Allow\", " + principal
                                + "\"Action\": \"s3:Frob*\", \"Resource\": \"arn:aws:s3:::b/*\"}"),
                        "b"))
                .hasMessageContaining("matches no S3 action");
        assertThatThrownBy(() -> PolicyDocument.parseBucketPolicy(
                        document("{\"Effect\": \"Allow\", " + principal
                                + "\"Action\": \"iam:CreateUser\", \"Resource\": \"arn:aws:s3:::b/*\"}"),
                        "b"))
                .hasMessageContaining("S3 actions only");
        assertThatThrownBy(() -> PolicyDocument.parseBucketPolicy(
                        document("{\"Effect\": \"Allow\", " + principal
                                + "\"Action\": \"s3:GetObject\", \"Resource\": \"arn:aws:s3:::other/*\"}"),
                        "b"))
                .isInstanceOfSatisfying(MalformedPolicyException.class, e -> assertThat(e.element())
                        .isEqualTo("Statement[0].Resource"))
                .hasMessageContaining("outside bucket b");
        assertThatThrownBy(() -> PolicyDocument.parseBucketPolicy(
                        document(
                                "{\"Effect\": \"Allow\", \"Action\": \"s3:GetObject\", \"Resource\": \"arn:aws:s3:::b/*\"}"),
                        "b"))
                .hasMessageContaining("exactly one of Principal and NotPrincipal");
        assertThatThrownBy(() -> PolicyDocument.parseBucketPolicy(
                        document("{\"Effect\": \"Allow\", \"Principal\":"
                                + " {\"AWS\": \"arn:aws:iam::*:user/x\"}, \"Action\": \"s3:GetObject\", \"Resource\":"
                                + " \"arn:aws:s3:::b/*\"}"),
                        "b"))
                .hasMessageContaining("without wildcards");
        PolicyDocument ok = PolicyDocument.parseBucketPolicy(
                document("{\"Sid\": \"Public read\", \"Effect\": \"Allow\","
                        + principal + "\"Action\": [\"s3:Get*\", \"s3:ListBucket\"], \"Resource\": [\"arn:aws:s3:::b\","
                        + " \"arn:aws:s3:::b/*\"]}"),
                "b");
        assertThat(ok.sids()).containsExactly("Public read");
    }

    @Test
    void sizeLimits_areAwsLimits_whiteSpaceNotCountedForIam() {
        assertThat(PolicyKind.USER_INLINE.maxChars()).isEqualTo(2048);
        assertThat(PolicyKind.GROUP_INLINE.maxChars()).isEqualTo(5120);
        assertThat(PolicyKind.MANAGED.maxChars()).isEqualTo(6144);
        assertThat(PolicyKind.BUCKET.maxChars()).isEqualTo(20480);

        String statement = "{\"Effect\":\"Allow\",\"Action\":\"s3:GetObject\",\"Resource\":\"arn:aws:s3:::b/%04d\"}";
        StringBuilder many = new StringBuilder();
        for (int i = 0; i < 40; i++) {
            many.append(i == 0 ? "" : ",").append(statement.formatted(i));
        }
        String big = "{\"Version\":\"2012-10-17\",\"Statement\":[" + many + "]}";
        assertThat(big.length()).isBetween(2049, 6144);
        assertThatThrownBy(() -> PolicyDocument.parse(big, PolicyKind.USER_INLINE))
                .isInstanceOfSatisfying(MalformedPolicyException.class, e -> assertThat(e.reason())
                        .isEqualTo(MalformedPolicyException.Reason.TOO_LARGE))
                .hasMessageContaining("at most 2048");
        assertThat(PolicyDocument.parse(big, PolicyKind.MANAGED).statementCount())
                .isEqualTo(40);
        // white space does not count against IAM's limits
        String padded = big.replace(",", ",                                        ");
        assertThat(padded.length()).isGreaterThan(6144);
        assertThat(PolicyDocument.parse(padded, PolicyKind.MANAGED).statementCount())
                .isEqualTo(40);
    }

    @Test
    void isPublic_asS3DefinesIt() {
        String everyone = "{\"Effect\": \"Allow\", \"Principal\": \"*\", \"Action\": \"s3:GetObject\","
                + " \"Resource\": \"arn:aws:s3:::b/*\"";
        assertThat(bucketPolicy(everyone + "}").isPublic()).isTrue();
        assertThat(bucketPolicy(everyone.replace("\"*\"", "{\"AWS\": \"*\"}") + "}")
                        .isPublic())
                .isTrue();
        assertThat(bucketPolicy(everyone.replace("Allow", "Deny") + "}").isPublic())
                .isFalse();
        assertThat(bucketPolicy(everyone.replace("\"*\"", "{\"AWS\": \"123456789012\"}") + "}")
                        .isPublic())
                .isFalse();
        assertThat(bucketPolicy(everyone.replace(
                                        "\"Principal\": \"*\"", "\"NotPrincipal\": {\"AWS\": \"123456789012\"}")
                                + "}")
                        .isPublic())
                .isTrue();
        // pinned down by a source network or a fixed caller
        assertThat(bucketPolicy(everyone + ", \"Condition\": {\"IpAddress\": {\"aws:SourceIp\": \"10.0.0.0/8\"}}}")
                        .isPublic())
                .isFalse();
        assertThat(bucketPolicy(everyone + ", \"Condition\": {\"IpAddress\": {\"aws:SourceIp\": \"0.0.0.0/0\"}}}")
                        .isPublic())
                .isTrue();
        assertThat(bucketPolicy(everyone
                                + ", \"Condition\": {\"StringEquals\": {\"aws:PrincipalAccount\": \"123456789012\"}}}")
                        .isPublic())
                .isFalse();
        // not pinned down: wildcards, IfExists, negations, other keys
        for (String condition : List.of(
                "{\"StringLike\": {\"aws:PrincipalAccount\": \"1234*\"}}",
                "{\"StringEquals\": {\"aws:PrincipalArn\": \"arn:aws:iam::1:user/${aws:username}\"}}",
                "{\"StringEqualsIfExists\": {\"aws:PrincipalAccount\": \"123456789012\"}}",
                "{\"NotIpAddress\": {\"aws:SourceIp\": \"10.0.0.0/8\"}}",
                "{\"Bool\": {\"aws:SecureTransport\": \"true\"}}")) {
            assertThat(bucketPolicy(everyone + ", \"Condition\": " + condition + "}")
                            .isPublic())
                    .as(condition)
                    .isTrue();
        }
        assertThat(BuiltinPolicies.get(BuiltinPolicies.READ_ONLY).document().isPublic())
                .isFalse();
    }

    private static PolicyDocument bucketPolicy(String statement) {
        return PolicyDocument.parseBucketPolicy(document(statement), "b");
    }

    @Test
    void parse_kindBucketNeedsTheBucket() {
        assertThatThrownBy(() -> PolicyDocument.parse(document(OK), PolicyKind.BUCKET))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("parseBucketPolicy");
    }

    @Test
    void documents_equalByTextAndKind() {
        assertThat(PolicyDocument.parse(document(OK), PolicyKind.MANAGED))
                .isEqualTo(PolicyDocument.parse(document(OK), PolicyKind.MANAGED))
                .hasSameHashCodeAs(PolicyDocument.parse(document(OK), PolicyKind.MANAGED))
                .isNotEqualTo(PolicyDocument.parse(document(OK), PolicyKind.USER_INLINE));
    }
}
