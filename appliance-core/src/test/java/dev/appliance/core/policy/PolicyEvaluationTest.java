package dev.appliance.core.policy;

import static dev.appliance.core.policy.Decision.Outcome.ALLOW;
import static dev.appliance.core.policy.Decision.Outcome.EXPLICIT_DENY;
import static dev.appliance.core.policy.Decision.Outcome.IMPLICIT_DENY;
import static dev.appliance.core.policy.PolicyTestSupport.ACCOUNT;
import static dev.appliance.core.policy.PolicyTestSupport.alice;
import static dev.appliance.core.policy.PolicyTestSupport.anonymous;
import static dev.appliance.core.policy.PolicyTestSupport.bucket;
import static dev.appliance.core.policy.PolicyTestSupport.decide;
import static dev.appliance.core.policy.PolicyTestSupport.identity;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * AWS's documented evaluation semantics, one row per rule: explicit deny wins, NotAction, NotResource, wildcards,
 * each condition operator (with IfExists and the set qualifiers), missing keys, policy variables. Each row is decided
 * by the compiled {@link PolicySet} and by {@link ReferenceEvaluator}, which must agree.
 */
class PolicyEvaluationTest {
    private static final String OBJ = "arn:aws:s3:::b/k";

    /** A row: an identity policy of {@code statements}, a request, and the outcome AWS documents. */
    record Row(String name, String[] statements, RequestContext context, Decision.Outcome expected) {
        @Override
        public String toString() {
            return name;
        }
    }

    private static final List<Row> ROWS = new ArrayList<>();

    private static void row(String name, Decision.Outcome expected, RequestContext context, String... statements) {
        ROWS.add(new Row(name, statements, context, expected));
    }

    private static String allow(String action, String resource) {
        return "{\"Effect\": \"Allow\", \"Action\": \"" + action + "\", \"Resource\": \"" + resource + "\"}";
    }

    /** Allow s3:GetObject on everything when {@code condition} (a Condition object) holds. */
    private static String allowIf(String condition) {
        return "{\"Effect\": \"Allow\", \"Action\": \"s3:GetObject\", \"Resource\": \"*\", \"Condition\": " + condition
                + "}";
    }

    private static RequestContext get(UnaryOperator<RequestContext.Builder> keys) {
        return keys.apply(alice("s3:GetObject", OBJ)).build();
    }

    private static RequestContext get() {
        return get(b -> b);
    }

    static {
        // actions
        row("exact action allows", ALLOW, get(), allow("s3:GetObject", "arn:aws:s3:::b/*"));
        row(
                "other action is denied by default",
                IMPLICIT_DENY,
                alice("s3:PutObject", OBJ).build(),
                allow("s3:GetObject", "arn:aws:s3:::b/*"));
        row("actions ignore case", ALLOW, get(), allow("S3:getOBJECT", "*"));
        row("action * wildcard", ALLOW, alice("s3:GetObjectVersion", OBJ).build(), allow("s3:Get*", "*"));
        row("action ? wildcard", ALLOW, get(), allow("s3:Get?bject", "*"));
        row(
                "action wildcard does not stretch",
                IMPLICIT_DENY,
                alice("s3:ListBucket", "arn:aws:s3:::b").build(),
                allow("s3:Get*", "*"));
        row("* is every action", ALLOW, alice("admin:ListUsers", "*").build(), allow("*", "*"));
        row(
                "unknown action name still matches by pattern",
                ALLOW,
                alice("s3:FutureAction", OBJ).build(),
                allow("s3:Future*", "*"));
        // resources
        row("resources are case-sensitive", IMPLICIT_DENY, get(), allow("s3:GetObject", "arn:aws:s3:::B/*"));
        row(
                "resource ? is one character",
                ALLOW,
                alice("s3:GetObject", "arn:aws:s3:::b/k1").build(),
                allow("s3:GetObject", "arn:aws:s3:::b/k?"));
        row(
                "resource ? is not two",
                IMPLICIT_DENY,
                alice("s3:GetObject", "arn:aws:s3:::b/k12").build(),
                allow("s3:GetObject", "arn:aws:s3:::b/k?"));
        row(
                "resource * spans slashes",
                ALLOW,
                alice("s3:GetObject", "arn:aws:s3:::b/a/b/c").build(),
                allow("s3:GetObject", "arn:aws:s3:::b/*"));
        row(
                "bucket ARN is not its objects",
                IMPLICIT_DENY,
                alice("s3:ListBucket", "arn:aws:s3:::b").build(),
                allow("s3:ListBucket", "arn:aws:s3:::b/*"));
        // explicit deny
        row(
                "explicit deny wins over allow",
                EXPLICIT_DENY,
                alice("s3:DeleteObject", OBJ).build(),
                allow("s3:*", "*"),
                "{\"Effect\": \"Deny\", \"Action\": \"s3:DeleteObject\", \"Resource\": \"*\"}");
        row(
                "deny of another action leaves the allow",
                ALLOW,
                get(),
                allow("s3:*", "*"),
                "{\"Effect\": \"Deny\", \"Action\": \"s3:DeleteObject\", \"Resource\": \"*\"}");
        row(
                "deny alone is still a deny",
                EXPLICIT_DENY,
                get(),
                "{\"Effect\": \"Deny\", \"Action\": \"s3:*\", \"Resource\": \"*\"}");
        // CVE-2023-25812 (reliability-security.md B.4): a Deny on the governance bypass is honoured under s3:*
        row(
                "Deny of s3:BypassGovernanceRetention wins over s3:*",
                EXPLICIT_DENY,
                alice("s3:BypassGovernanceRetention", OBJ).build(),
                allow("s3:*", "*"),
                "{\"Effect\": \"Deny\", \"Action\": \"s3:BypassGovernanceRetention\", \"Resource\": \"*\"}");
        row(
                "the Deny on the bypass leaves version deletes allowed",
                ALLOW,
                alice("s3:DeleteObjectVersion", OBJ).build(),
                allow("s3:*", "*"),
                "{\"Effect\": \"Deny\", \"Action\": \"s3:BypassGovernanceRetention\", \"Resource\": \"*\"}");
        // NotAction / NotResource
        row(
                "NotAction allows the rest",
                ALLOW,
                get(),
                "{\"Effect\": \"Allow\", \"NotAction\": \"s3:Delete*\", \"Resource\": \"*\"}");
        row(
                "NotAction does not allow what it names",
                IMPLICIT_DENY,
                alice("s3:DeleteObject", OBJ).build(),
                "{\"Effect\": \"Allow\", \"NotAction\": \"s3:Delete*\", \"Resource\": \"*\"}");
        row(
                "Deny with NotAction denies everything else",
                EXPLICIT_DENY,
                alice("s3:PutObject", OBJ).build(),
                allow("s3:*", "*"),
                "{\"Effect\": \"Deny\", \"NotAction\": \"s3:GetObject\", \"Resource\": \"*\"}");
        row(
                "Deny with NotAction spares what it names",
                ALLOW,
                get(),
                allow("s3:*", "*"),
                "{\"Effect\": \"Deny\", \"NotAction\": \"s3:GetObject\", \"Resource\": \"*\"}");
        row(
                "NotResource allows elsewhere",
                ALLOW,
                get(),
                "{\"Effect\": \"Allow\", \"Action\": \"s3:*\", \"NotResource\": \"arn:aws:s3:::secret/*\"}");
        row(
                "NotResource excludes what it names",
                IMPLICIT_DENY,
                alice("s3:GetObject", "arn:aws:s3:::secret/x").build(),
                "{\"Effect\": \"Allow\", \"Action\": \"s3:*\", \"NotResource\": \"arn:aws:s3:::secret/*\"}");
        // string operators
        row(
                "StringEquals matches",
                ALLOW,
                get(b -> b.key("s3:prefix", "home/")),
                allowIf("{\"StringEquals\": {\"s3:prefix\": \"home/\"}}"));
        row(
                "StringEquals is case-sensitive",
                IMPLICIT_DENY,
                get(b -> b.key("s3:prefix", "HOME/")),
                allowIf("{\"StringEquals\": {\"s3:prefix\": \"home/\"}}"));
        row(
                "StringEquals has no wildcards",
                IMPLICIT_DENY,
                get(b -> b.key("s3:prefix", "home/x")),
                allowIf("{\"StringEquals\": {\"s3:prefix\": \"home/*\"}}"));
        row(
                "StringEquals on a missing key is false",
                IMPLICIT_DENY,
                get(),
                allowIf("{\"StringEquals\": {\"s3:prefix\": \"home/\"}}"));
        row(
                "StringNotEquals on a missing key is true",
                ALLOW,
                get(),
                allowIf("{\"StringNotEquals\": {\"s3:prefix\": \"home/\"}}"));
        row(
                "values of one key are ORed",
                ALLOW,
                get(b -> b.key("s3:prefix", "b")),
                allowIf("{\"StringEquals\": {\"s3:prefix\": [\"a\", \"b\"]}}"));
        row(
                "negated values are NORed (one matches)",
                IMPLICIT_DENY,
                get(b -> b.key("s3:prefix", "a")),
                allowIf("{\"StringNotEquals\": {\"s3:prefix\": [\"a\", \"b\"]}}"));
        row(
                "negated values are NORed (none matches)",
                ALLOW,
                get(b -> b.key("s3:prefix", "c")),
                allowIf("{\"StringNotEquals\": {\"s3:prefix\": [\"a\", \"b\"]}}"));
        row(
                "StringEqualsIgnoreCase",
                ALLOW,
                get(b -> b.key("s3:x-amz-acl", "PRIVATE")),
                allowIf("{\"StringEqualsIgnoreCase\": {\"s3:x-amz-acl\": \"private\"}}"));
        row(
                "StringNotEqualsIgnoreCase",
                IMPLICIT_DENY,
                get(b -> b.key("s3:x-amz-acl", "PRIVATE")),
                allowIf("{\"StringNotEqualsIgnoreCase\": {\"s3:x-amz-acl\": \"private\"}}"));
        row(
                "StringLike wildcard",
                ALLOW,
                get(b -> b.key("s3:prefix", "home/alice/docs")),
                allowIf("{\"StringLike\": {\"s3:prefix\": \"home/*/docs\"}}"));
        row(
                "StringNotLike",
                IMPLICIT_DENY,
                get(b -> b.key("s3:prefix", "home/alice")),
                allowIf("{\"StringNotLike\": {\"s3:prefix\": \"home/*\"}}"));
        row(
                "StringNotLike on a missing key is true",
                ALLOW,
                get(),
                allowIf("{\"StringNotLike\": {\"s3:prefix\": \"home/*\"}}"));
        row(
                "keys under one operator are ANDed",
                IMPLICIT_DENY,
                get(b -> b.key("s3:prefix", "home/").key("s3:delimiter", "|")),
                allowIf("{\"StringEquals\": {\"s3:prefix\": \"home/\", \"s3:delimiter\": \"/\"}}"));
        row(
                "operators are ANDed",
                ALLOW,
                get(b -> b.key("s3:prefix", "home/").key("s3:max-keys", "10")),
                allowIf("{\"StringEquals\": {\"s3:prefix\": \"home/\"}, \"NumericLessThanEquals\": {\"s3:max-keys\":"
                        + " \"100\"}}"));
        row(
                "condition keys ignore case",
                ALLOW,
                get(),
                allowIf("{\"IpAddress\": {\"AWS:SOURCEIP\": \"203.0.113.0/24\"}}"));
        // numeric
        row(
                "NumericLessThanEquals at the bound",
                ALLOW,
                get(b -> b.key("s3:max-keys", "10")),
                allowIf("{\"NumericLessThanEquals\": {\"s3:max-keys\": \"10\"}}"));
        row(
                "NumericLessThanEquals above the bound",
                IMPLICIT_DENY,
                get(b -> b.key("s3:max-keys", "11")),
                allowIf("{\"NumericLessThanEquals\": {\"s3:max-keys\": \"10\"}}"));
        row(
                "NumericLessThan",
                IMPLICIT_DENY,
                get(b -> b.key("s3:max-keys", "10")),
                allowIf("{\"NumericLessThan\": {\"s3:max-keys\": 10}}"));
        row(
                "NumericGreaterThan",
                ALLOW,
                get(b -> b.key("s3:object-lock-remaining-retention-days", "31")),
                allowIf("{\"NumericGreaterThan\": {\"s3:object-lock-remaining-retention-days\": \"30\"}}"));
        row(
                "NumericGreaterThanEquals",
                ALLOW,
                get(b -> b.key("s3:object-lock-remaining-retention-days", "30")),
                allowIf("{\"NumericGreaterThanEquals\": {\"s3:object-lock-remaining-retention-days\": \"30\"}}"));
        row(
                "NumericEquals compares values, not text",
                ALLOW,
                get(b -> b.key("s3:max-keys", "10.0")),
                allowIf("{\"NumericEquals\": {\"s3:max-keys\": \"10\"}}"));
        row(
                "NumericNotEquals",
                ALLOW,
                get(b -> b.key("s3:max-keys", "9")),
                allowIf("{\"NumericNotEquals\": {\"s3:max-keys\": \"10\"}}"));
        row(
                "NumericNotEquals on a missing key is true",
                ALLOW,
                get(),
                allowIf("{\"NumericNotEquals\": {\"s3:max-keys\": \"10\"}}"));
        row(
                "a request value that is no number matches nothing",
                IMPLICIT_DENY,
                get(b -> b.key("s3:max-keys", "ten")),
                allowIf("{\"NumericLessThan\": {\"s3:max-keys\": \"100\"}}"));
        // dates
        row(
                "DateLessThan on aws:CurrentTime",
                ALLOW,
                get(),
                allowIf("{\"DateLessThan\": {\"aws:CurrentTime\": \"2027-01-01T00:00:00Z\"}}"));
        row(
                "DateGreaterThan on aws:CurrentTime",
                IMPLICIT_DENY,
                get(),
                allowIf("{\"DateGreaterThan\": {\"aws:CurrentTime\": \"2027-01-01T00:00:00Z\"}}"));
        row(
                "DateEquals at the request time",
                ALLOW,
                get(),
                allowIf("{\"DateEquals\": {\"aws:CurrentTime\": \"2026-06-01T12:00:00Z\"}}"));
        row(
                "DateNotEquals",
                IMPLICIT_DENY,
                get(),
                allowIf("{\"DateNotEquals\": {\"aws:CurrentTime\": \"2026-06-01T12:00:00Z\"}}"));
        row(
                "DateLessThanEquals with an offset",
                ALLOW,
                get(),
                allowIf("{\"DateLessThanEquals\": {\"aws:CurrentTime\": \"2026-06-01T14:00:00+02:00\"}}"));
        row(
                "DateGreaterThanEquals with epoch seconds",
                ALLOW,
                get(),
                allowIf("{\"DateGreaterThanEquals\": {\"aws:EpochTime\": \"1780315200\"}}"));
        row(
                "a plain date is midnight UTC",
                ALLOW,
                get(),
                allowIf("{\"DateGreaterThan\": {\"aws:CurrentTime\": \"2026-06-01\"}}"));
        row(
                "Date on a request key",
                ALLOW,
                get(b -> b.key("s3:object-lock-retain-until-date", "2026-07-01T00:00:00Z")),
                allowIf("{\"DateGreaterThan\": {\"s3:object-lock-retain-until-date\": \"2026-06-30T00:00:00Z\"}}"));
        // bool
        row("Bool true", ALLOW, get(), allowIf("{\"Bool\": {\"aws:SecureTransport\": \"true\"}}"));
        row("Bool false", IMPLICIT_DENY, get(), allowIf("{\"Bool\": {\"aws:SecureTransport\": false}}"));
        row(
                "Deny unless TLS",
                EXPLICIT_DENY,
                alice("s3:GetObject", OBJ).secureTransport(false).build(),
                allow("s3:*", "*"),
                "{\"Effect\": \"Deny\", \"Action\": \"s3:*\", \"Resource\": \"*\", \"Condition\": {\"Bool\":"
                        + " {\"aws:SecureTransport\": \"false\"}}}");
        // addresses
        row("IpAddress v4 in block", ALLOW, get(), allowIf("{\"IpAddress\": {\"aws:SourceIp\": \"203.0.113.0/24\"}}"));
        row(
                "IpAddress v4 outside block",
                IMPLICIT_DENY,
                get(),
                allowIf("{\"IpAddress\": {\"aws:SourceIp\": \"198.51.100.0/24\"}}"));
        row("IpAddress single address", ALLOW, get(), allowIf("{\"IpAddress\": {\"aws:SourceIp\": \"203.0.113.7\"}}"));
        row(
                "IpAddress v6",
                ALLOW,
                alice("s3:GetObject", OBJ).sourceIp("2001:db8::1").build(),
                allowIf("{\"IpAddress\": {\"aws:SourceIp\": [\"203.0.113.0/24\", \"2001:DB8::/32\"]}}"));
        row(
                "NotIpAddress",
                IMPLICIT_DENY,
                get(),
                allowIf("{\"NotIpAddress\": {\"aws:SourceIp\": \"203.0.113.0/24\"}}"));
        row(
                "IpAddress without a source address",
                IMPLICIT_DENY,
                alice("s3:GetObject", OBJ).sourceIp(null).build(),
                allowIf("{\"IpAddress\": {\"aws:SourceIp\": \"0.0.0.0/0\"}}"));
        row(
                "NotIpAddress without a source address",
                ALLOW,
                alice("s3:GetObject", OBJ).sourceIp(null).build(),
                allowIf("{\"NotIpAddress\": {\"aws:SourceIp\": \"0.0.0.0/0\"}}"));
        // ARNs
        row(
                "ArnLike per component",
                ALLOW,
                get(),
                allowIf("{\"ArnLike\": {\"aws:PrincipalArn\": \"arn:aws:iam::*:user/al*\"}}"));
        row(
                "ArnEquals",
                ALLOW,
                get(),
                allowIf("{\"ArnEquals\": {\"aws:PrincipalArn\": \"arn:aws:iam::" + ACCOUNT + ":user/alice\"}}"));
        row(
                "ArnNotEquals",
                IMPLICIT_DENY,
                get(),
                allowIf("{\"ArnNotEquals\": {\"aws:PrincipalArn\": \"arn:aws:iam::" + ACCOUNT + ":user/alice\"}}"));
        row(
                "ArnNotLike",
                ALLOW,
                get(),
                allowIf("{\"ArnNotLike\": {\"aws:PrincipalArn\": \"arn:aws:iam::*:user/bob\"}}"));
        row(
                "ArnLike * stays in its component",
                IMPLICIT_DENY,
                get(b -> b.key("aws:SourceArn", "arn:aws:iam::123456789012:user/a:b")),
                allowIf("{\"ArnLike\": {\"aws:SourceArn\": \"arn:aws:iam::*:b\"}}"));
        row(
                "ArnLike: the last component keeps its colons",
                ALLOW,
                get(b -> b.key("aws:SourceArn", "arn:aws:iam::123456789012:user/a:b")),
                allowIf("{\"ArnLike\": {\"aws:SourceArn\": \"arn:aws:iam::*:*:b\"}}"));
        // Null
        row("Null true on a missing key", ALLOW, get(), allowIf("{\"Null\": {\"s3:x-amz-acl\": \"true\"}}"));
        row(
                "Null true on a present key",
                IMPLICIT_DENY,
                get(b -> b.key("s3:x-amz-acl", "private")),
                allowIf("{\"Null\": {\"s3:x-amz-acl\": \"true\"}}"));
        row(
                "Null false on a present key",
                ALLOW,
                get(b -> b.key("s3:x-amz-acl", "private")),
                allowIf("{\"Null\": {\"s3:x-amz-acl\": \"false\"}}"));
        row("Null false on a missing key", IMPLICIT_DENY, get(), allowIf("{\"Null\": {\"s3:x-amz-acl\": \"false\"}}"));
        // IfExists
        row(
                "IfExists on a missing key is true",
                ALLOW,
                get(),
                allowIf("{\"StringEqualsIfExists\": {\"s3:x-amz-acl\": \"private\"}}"));
        row(
                "IfExists on a present matching key",
                ALLOW,
                get(b -> b.key("s3:x-amz-acl", "private")),
                allowIf("{\"StringEqualsIfExists\": {\"s3:x-amz-acl\": \"private\"}}"));
        row(
                "IfExists on a present other key",
                IMPLICIT_DENY,
                get(b -> b.key("s3:x-amz-acl", "public-read")),
                allowIf("{\"StringEqualsIfExists\": {\"s3:x-amz-acl\": \"private\"}}"));
        row(
                "NumericLessThanIfExists",
                ALLOW,
                get(),
                allowIf("{\"NumericLessThanIfExists\": {\"s3:max-keys\": \"10\"}}"));
        row(
                "object-lock mode IfExists",
                IMPLICIT_DENY,
                get(b -> b.key("s3:object-lock-mode", "GOVERNANCE")),
                allowIf("{\"StringEqualsIfExists\": {\"s3:object-lock-mode\": \"COMPLIANCE\"}}"));
        // set qualifiers
        row(
                "ForAnyValue: one request value matches",
                ALLOW,
                get(b -> b.key("s3:RequestObjectTagKeys", "a", "b")),
                allowIf("{\"ForAnyValue:StringEquals\": {\"s3:RequestObjectTagKeys\": [\"b\", \"x\"]}}"));
        row(
                "ForAnyValue: none matches",
                IMPLICIT_DENY,
                get(b -> b.key("s3:RequestObjectTagKeys", "a", "b")),
                allowIf("{\"ForAnyValue:StringEquals\": {\"s3:RequestObjectTagKeys\": [\"x\"]}}"));
        row(
                "ForAnyValue on a missing key is false",
                IMPLICIT_DENY,
                get(),
                allowIf("{\"ForAnyValue:StringEquals\": {\"s3:RequestObjectTagKeys\": [\"x\"]}}"));
        row(
                "ForAllValues: every request value listed",
                ALLOW,
                get(b -> b.key("s3:RequestObjectTagKeys", "a", "b")),
                allowIf("{\"ForAllValues:StringEquals\": {\"s3:RequestObjectTagKeys\": [\"a\", \"b\", \"c\"]}}"));
        row(
                "ForAllValues: one request value not listed",
                IMPLICIT_DENY,
                get(b -> b.key("s3:RequestObjectTagKeys", "a", "z")),
                allowIf("{\"ForAllValues:StringEquals\": {\"s3:RequestObjectTagKeys\": [\"a\", \"b\"]}}"));
        row(
                "ForAllValues on a missing key is true",
                ALLOW,
                get(),
                allowIf("{\"ForAllValues:StringEquals\": {\"s3:RequestObjectTagKeys\": [\"a\"]}}"));
        row(
                "ForAllValues:StringNotLike",
                ALLOW,
                get(b -> b.key("s3:RequestObjectTagKeys", "a", "b")),
                allowIf("{\"ForAllValues:StringNotLike\": {\"s3:RequestObjectTagKeys\": [\"secret*\"]}}"));
        row(
                "ForAnyValue:StringNotEquals",
                ALLOW,
                get(b -> b.key("s3:RequestObjectTagKeys", "a", "b")),
                allowIf("{\"ForAnyValue:StringNotEquals\": {\"s3:RequestObjectTagKeys\": [\"a\"]}}"));
        row(
                "ForAnyValue IfExists on a missing key",
                ALLOW,
                get(),
                allowIf("{\"ForAnyValue:StringEqualsIfExists\": {\"s3:RequestObjectTagKeys\": [\"x\"]}}"));
        row(
                "tag condition key",
                ALLOW,
                get(b -> b.key("s3:ExistingObjectTag/project", "veeam")),
                allowIf("{\"StringEquals\": {\"s3:ExistingObjectTag/Project\": \"veeam\"}}"));
        // policy variables
        row(
                "${aws:username} in a resource",
                ALLOW,
                alice("s3:GetObject", "arn:aws:s3:::home/alice/x").build(),
                allow("s3:GetObject", "arn:aws:s3:::home/${aws:username}/*"));
        row(
                "${aws:username} is this user only",
                IMPLICIT_DENY,
                alice("s3:GetObject", "arn:aws:s3:::home/bob/x").build(),
                allow("s3:GetObject", "arn:aws:s3:::home/${aws:username}/*"));
        row(
                "${aws:userid} in a condition",
                ALLOW,
                get(b -> b.key("s3:prefix", "AIDAALICE/")),
                allowIf("{\"StringLike\": {\"s3:prefix\": \"${aws:userid}/*\"}}"));
        row(
                "a variable without a value matches nothing",
                IMPLICIT_DENY,
                anonymous("s3:GetObject", "arn:aws:s3:::home/${aws:username}/x").build(),
                allow("s3:GetObject", "arn:aws:s3:::home/${aws:username}/*"));
        row(
                "a variable's default value",
                ALLOW,
                alice("s3:GetObject", "arn:aws:s3:::b/shared/x").build(),
                allow("s3:GetObject", "arn:aws:s3:::b/${s3:prefix, 'shared'}/*"));
        row(
                "${*} is a literal star",
                ALLOW,
                alice("s3:GetObject", "arn:aws:s3:::b/*").build(),
                allow("s3:GetObject", "arn:aws:s3:::b/${*}"));
        row("${*} is no wildcard", IMPLICIT_DENY, get(), allow("s3:GetObject", "arn:aws:s3:::b/${*}"));
        row(
                "${?} and ${$} are literal",
                ALLOW,
                alice("s3:GetObject", "arn:aws:s3:::b/?$").build(),
                allow("s3:GetObject", "arn:aws:s3:::b/${?}${$}"));
    }

    static Stream<Row> rows() {
        return ROWS.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void identityPolicy_decidesAsAwsDocuments(Row row) {
        Decision d = decide(identity(row.statements()), row.context());
        assertThat(d.outcome()).as(row.name()).isEqualTo(row.expected());
    }

    @Test
    void version2008_treatsVariablesAsText() {
        PolicyDocument old = PolicyDocument.parse(
                "{\"Version\": \"2008-10-17\", \"Statement\": "
                        + allow("s3:GetObject", "arn:aws:s3:::home/${aws:username}/*") + "}",
                PolicyKind.MANAGED);
        assertThat(decide(
                                old,
                                alice("s3:GetObject", "arn:aws:s3:::home/alice/x")
                                        .build())
                        .outcome())
                .isEqualTo(IMPLICIT_DENY);
        assertThat(decide(
                                old,
                                alice("s3:GetObject", "arn:aws:s3:::home/${aws:username}/x")
                                        .build())
                        .outcome())
                .isEqualTo(ALLOW);
    }

    @Test
    void decision_namesTheDecidingStatement() {
        PolicyDocument user = identity(
                "{\"Sid\": \"All\", \"Effect\": \"Allow\", \"Action\": \"s3:*\", \"Resource\": \"*\"}",
                "{\"Sid\": \"NoDelete\", \"Effect\": \"Deny\", \"Action\": \"s3:DeleteObject*\", \"Resource\": \"*\"}");
        List<NamedPolicy> policies = List.of(new NamedPolicy("user/alice/inline", user));
        Decision denied =
                decide(policies, null, alice("s3:DeleteObjectVersion", OBJ).build());
        assertThat(denied).isEqualTo(new Decision(EXPLICIT_DENY, "user/alice/inline", "NoDelete", 1));
        Decision allowed = decide(policies, null, alice("s3:PutObject", OBJ).build());
        assertThat(allowed).isEqualTo(new Decision(ALLOW, "user/alice/inline", "All", 0));
        assertThat(decide(List.of(), null, alice("s3:PutObject", OBJ).build())).isSameAs(Decision.IMPLICIT_DENY);
    }

    @Test
    void denyInAnyIdentityPolicy_winsOverAllowInAnother() {
        List<NamedPolicy> policies = List.of(
                new NamedPolicy("readwrite", identity(allow("s3:*", "*"))),
                new NamedPolicy(
                        "group/no-delete",
                        identity("{\"Effect\": \"Deny\", \"Action\": \"s3:DeleteBucket\", \"Resource\": \"*\"}")));
        Decision d = decide(
                policies, null, alice("s3:DeleteBucket", "arn:aws:s3:::b").build());
        assertThat(d.outcome()).isEqualTo(EXPLICIT_DENY);
        assertThat(d.policyName()).isEqualTo("group/no-delete");
    }

    @Test
    void bucketPolicy_grantsAnonymousReadOnlyWhereItSaysSo() {
        NamedPolicy publicRead = new NamedPolicy(
                "bucket/b",
                bucket(
                        "b",
                        "{\"Sid\": \"PublicRead\", \"Effect\": \"Allow\", \"Principal\": \"*\", \"Action\": \"s3:GetObject\","
                                + " \"Resource\": \"arn:aws:s3:::b/public/*\"}"));
        assertThat(decide(
                        List.of(),
                        publicRead,
                        anonymous("s3:GetObject", "arn:aws:s3:::b/public/x").build()))
                .isEqualTo(new Decision(ALLOW, "bucket/b", "PublicRead", 0));
        assertThat(decide(
                                List.of(),
                                publicRead,
                                anonymous("s3:GetObject", "arn:aws:s3:::b/private/x")
                                        .build())
                        .outcome())
                .isEqualTo(IMPLICIT_DENY);
        assertThat(decide(
                                List.of(),
                                publicRead,
                                anonymous("s3:PutObject", "arn:aws:s3:::b/public/x")
                                        .build())
                        .outcome())
                .isEqualTo(IMPLICIT_DENY);
    }

    @Test
    void identityPolicies_neverApplyToAnonymousRequests() {
        List<NamedPolicy> policies = List.of(new NamedPolicy("all", identity(allow("*", "*"))));
        assertThat(decide(policies, null, anonymous("s3:GetObject", OBJ).build())
                        .outcome())
                .isEqualTo(IMPLICIT_DENY);
    }

    @Test
    void bucketPolicy_principalsByArnAndByAccount() {
        NamedPolicy forAlice = new NamedPolicy(
                "bucket/b",
                bucket(
                        "b",
                        "{\"Effect\": \"Allow\", \"Principal\": {\"AWS\": \"arn:aws:iam::" + ACCOUNT + ":user/alice\"},"
                                + " \"Action\": \"s3:GetObject\", \"Resource\": \"arn:aws:s3:::b/*\"}"));
        assertThat(decide(List.of(), forAlice, alice("s3:GetObject", OBJ).build())
                        .outcome())
                .isEqualTo(ALLOW);
        RequestContext bob = RequestContext.builder("s3:GetObject", OBJ)
                .user(ACCOUNT, "bob", "AIDABOB")
                .time(PolicyTestSupport.NOW)
                .build();
        assertThat(decide(List.of(), forAlice, bob).outcome()).isEqualTo(IMPLICIT_DENY);
        assertThat(decide(List.of(), forAlice, anonymous("s3:GetObject", OBJ).build())
                        .outcome())
                .isEqualTo(IMPLICIT_DENY);

        for (String account : List.of(ACCOUNT, "arn:aws:iam::" + ACCOUNT + ":root")) {
            NamedPolicy forAccount = new NamedPolicy(
                    "bucket/b",
                    bucket(
                            "b",
                            "{\"Effect\": \"Allow\", \"Principal\": {\"AWS\": [\"" + account
                                    + "\"]}, \"Action\": \"s3:GetObject\"," + " \"Resource\": \"arn:aws:s3:::b/*\"}"));
            assertThat(decide(List.of(), forAccount, bob).outcome()).as(account).isEqualTo(ALLOW);
            assertThat(decide(
                                    List.of(),
                                    forAccount,
                                    anonymous("s3:GetObject", OBJ).build())
                            .outcome())
                    .as(account)
                    .isEqualTo(IMPLICIT_DENY);
        }
    }

    @Test
    void bucketPolicy_notPrincipalDeniesEveryoneElse() {
        NamedPolicy onlyAlice = new NamedPolicy(
                "bucket/b",
                bucket(
                        "b",
                        "{\"Effect\": \"Deny\", \"NotPrincipal\": {\"AWS\": \"arn:aws:iam::" + ACCOUNT
                                + ":user/alice\"},"
                                + " \"Action\": \"s3:*\", \"Resource\": [\"arn:aws:s3:::b\", \"arn:aws:s3:::b/*\"]}"));
        List<NamedPolicy> readwrite = List.of(BuiltinPolicies.get(BuiltinPolicies.READ_WRITE));
        assertThat(decide(readwrite, onlyAlice, alice("s3:GetObject", OBJ).build())
                        .outcome())
                .isEqualTo(ALLOW);
        RequestContext bob = RequestContext.builder("s3:GetObject", OBJ)
                .user(ACCOUNT, "bob", "AIDABOB")
                .time(PolicyTestSupport.NOW)
                .build();
        assertThat(decide(readwrite, onlyAlice, bob).outcome()).isEqualTo(EXPLICIT_DENY);
    }

    @Test
    void sameAccount_allowFromEitherSide_denyFromEitherSideWins() {
        String bucketAllowsGet = "{\"Effect\": \"Allow\", \"Principal\": {\"AWS\": \"" + ACCOUNT + "\"},"
                + " \"Action\": \"s3:GetObject\", \"Resource\": \"arn:aws:s3:::b/*\"}";
        String bucketDeniesPut = "{\"Effect\": \"Deny\", \"Principal\": \"*\", \"Action\": \"s3:PutObject\","
                + " \"Resource\": \"arn:aws:s3:::b/*\"}";
        NamedPolicy bucketPolicy = new NamedPolicy("bucket/b", bucket("b", bucketAllowsGet, bucketDeniesPut));
        NamedPolicy userPut =
                new NamedPolicy("user-put", identity(allow("s3:PutObject", "*"), allow("s3:ListBucket", "*")));
        NamedPolicy userDeniesGet = new NamedPolicy(
                "user-deny-get", identity("{\"Effect\": \"Deny\", \"Action\": \"s3:GetObject\", \"Resource\": \"*\"}"));

        // allowed by the bucket policy alone
        assertThat(decide(List.of(), bucketPolicy, alice("s3:GetObject", OBJ).build())
                        .policyName())
                .isEqualTo("bucket/b");
        // allowed by the identity policy alone
        assertThat(decide(
                                List.of(userPut),
                                bucketPolicy,
                                alice("s3:ListBucket", "arn:aws:s3:::b").build())
                        .policyName())
                .isEqualTo("user-put");
        // the bucket policy's deny beats the identity allow
        assertThat(decide(
                        List.of(userPut),
                        bucketPolicy,
                        alice("s3:PutObject", OBJ).build()))
                .isEqualTo(new Decision(EXPLICIT_DENY, "bucket/b", "", 1));
        // the identity deny beats the bucket allow
        assertThat(decide(
                                List.of(userDeniesGet),
                                bucketPolicy,
                                alice("s3:GetObject", OBJ).build())
                        .outcome())
                .isEqualTo(EXPLICIT_DENY);
    }

    @Test
    void unrestricted_allowsWithoutEvaluating() {
        Decision d = PolicySet.unrestricted("root")
                .evaluate(alice("s3:DeleteBucket", "arn:aws:s3:::b").build());
        assertThat(d.allowed()).isTrue();
        assertThat(d.policyName()).isEqualTo("root");
    }
}
