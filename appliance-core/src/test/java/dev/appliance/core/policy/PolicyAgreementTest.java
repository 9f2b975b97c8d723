package dev.appliance.core.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The compiled evaluator ({@link PolicySet}, {@link Glob}) and the reference ({@link ReferenceEvaluator}, regular
 * expressions) decide alike, outcome and deciding statement, on random policies and requests drawn from small
 * alphabets so that matches, near misses, missing keys and unresolvable variables all come up often.
 */
class PolicyAgreementTest {
    private static final String[] ACTIONS = {
        "*",
        "s3:*",
        "s3:Get*",
        "s3:GetObject",
        "S3:getobject",
        "s3:Put?bject",
        "s3:List*",
        "s3:Delete*Version",
        "admin:*",
        "admin:List*",
        "s3:GetObjectVersion",
        "s3:ListBucket",
        "s3:Future*",
        "s3:??tObject"
    };
    private static final String[] REQUEST_ACTIONS = {
        "s3:GetObject", "s3:PutObject", "s3:ListBucket", "s3:GetObjectVersion", "s3:DeleteObjectVersion",
        "admin:ListUsers", "admin:CreateAccessKey", "s3:FutureAction", "S3:GETOBJECT", "s3:ListAllMyBuckets"
    };
    private static final String[] KEYS = {
        "s3:prefix",
        "s3:max-keys",
        "aws:SourceIp",
        "aws:CurrentTime",
        "aws:EpochTime",
        "aws:SecureTransport",
        "aws:username",
        "s3:RequestObjectTagKeys",
        "aws:PrincipalArn",
        "s3:x-amz-acl"
    };
    private static final String[] OPERATORS = {
        "StringEquals",
        "StringNotEquals",
        "StringEqualsIgnoreCase",
        "StringNotEqualsIgnoreCase",
        "StringLike",
        "StringNotLike",
        "NumericEquals",
        "NumericNotEquals",
        "NumericLessThan",
        "NumericLessThanEquals",
        "NumericGreaterThan",
        "NumericGreaterThanEquals",
        "DateEquals",
        "DateNotEquals",
        "DateLessThan",
        "DateLessThanEquals",
        "DateGreaterThan",
        "DateGreaterThanEquals",
        "Bool",
        "IpAddress",
        "NotIpAddress",
        "ArnEquals",
        "ArnLike",
        "ArnNotEquals",
        "ArnNotLike",
        "Null",
        "BinaryEquals"
    };

    @Test
    void compiledAndReference_decideAlike_onRandomPoliciesAndRequests() {
        long seed = new Random().nextLong();
        Random random = new Random(seed);
        int decisions = 0;
        int allows = 0;
        int denies = 0;
        for (int round = 0; round < 1500; round++) {
            List<NamedPolicy> identity = new ArrayList<>();
            int policies = random.nextInt(3);
            for (int p = 0; p < policies; p++) {
                identity.add(
                        new NamedPolicy("p" + p, PolicyDocument.parse(document(random, false), PolicyKind.MANAGED)));
            }
            NamedPolicy bucketPolicy = random.nextInt(3) == 0
                    ? new NamedPolicy("bucket/b", PolicyDocument.parseBucketPolicy(document(random, true), "b"))
                    : null;
            PolicySet compiled = PolicySet.of(identity, bucketPolicy);
            for (int r = 0; r < 20; r++) {
                RequestContext context = request(random);
                Decision fast = compiled.evaluate(context);
                Decision reference = ReferenceEvaluator.evaluate(identity, bucketPolicy, context);
                assertThat(fast)
                        .as("seed %d, round %d: %s with %s / %s", seed, round, context, identity, bucketPolicy)
                        .isEqualTo(reference);
                decisions++;
                allows += fast.outcome() == Decision.Outcome.ALLOW ? 1 : 0;
                denies += fast.outcome() == Decision.Outcome.EXPLICIT_DENY ? 1 : 0;
            }
        }
        // the generator must exercise every outcome, or agreement proves little
        assertThat(allows).as("allows of %d", decisions).isGreaterThan(decisions / 50);
        assertThat(denies).as("explicit denies of %d", decisions).isGreaterThan(decisions / 50);
    }

    @Test
    void glob_agreesWithRegex_onRandomPatterns() {
        long seed = new Random().nextLong();
        Random random = new Random(seed);
        for (int i = 0; i < 20_000; i++) {
            String pattern = text(random, "ab*?A", 8);
            String text = text(random, "abAB", 10);
            boolean ignoreCase = random.nextBoolean();
            Template t = Template.parse(pattern, true, false);
            StringBuilder regex = new StringBuilder();
            for (char c : pattern.toCharArray()) {
                regex.append(c == '*' ? ".*" : c == '?' ? "." : Pattern.quote(String.valueOf(c)));
            }
            boolean expected = Pattern.compile(regex.toString(), ignoreCase ? Pattern.CASE_INSENSITIVE : 0)
                    .matcher(text)
                    .matches();
            assertThat(Glob.of(t.tokens(), ignoreCase, true).matches(text))
                    .as("seed %d: '%s' ~ '%s' ignoreCase %s", seed, pattern, text, ignoreCase)
                    .isEqualTo(expected);
            assertThat(Glob.of(t.tokens(), ignoreCase, false).matches(text))
                    .as("seed %d (plain search): '%s' ~ '%s'", seed, pattern, text)
                    .isEqualTo(expected);
        }
    }

    private static String text(Random random, String alphabet, int maxLength) {
        int n = random.nextInt(maxLength + 1);
        StringBuilder b = new StringBuilder(n);
        for (int i = 0; i < n; i++) {
            b.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return b.toString();
    }

    private static <T> T pick(Random random, T[] values) {
        return values[random.nextInt(values.length)];
    }

    private static String quote(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    private static String list(Random random, List<String> values) {
        if (values.size() == 1 && random.nextBoolean()) {
            return quote(values.getFirst());
        }
        return "["
                + String.join(
                        ", ", values.stream().map(PolicyAgreementTest::quote).toList()) + "]";
    }

    static String document(Random random, boolean bucketPolicy) {
        int n = 1 + random.nextInt(4);
        List<String> statements = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            statements.add(statement(random, bucketPolicy, i));
        }
        String version = random.nextInt(5) == 0 ? "2008-10-17" : "2012-10-17";
        return "{\"Version\": \"" + version + "\", \"Statement\": [" + String.join(", ", statements) + "]}";
    }

    private static String statement(Random random, boolean bucketPolicy, int index) {
        StringBuilder s = new StringBuilder("{");
        if (random.nextBoolean()) {
            s.append("\"Sid\": \"S").append(index).append("\", ");
        }
        s.append("\"Effect\": \"")
                .append(random.nextInt(3) == 0 ? "Deny" : "Allow")
                .append("\", ");
        if (bucketPolicy) {
            String principal =
                    switch (random.nextInt(4)) {
                        case 0 -> "\"*\"";
                        case 1 -> "{\"AWS\": \"*\"}";
                        case 2 -> "{\"AWS\": \"arn:aws:iam::123456789012:user/alice\"}";
                        default -> "{\"AWS\": [\"123456789012\"]}";
                    };
            s.append(random.nextInt(5) == 0 ? "\"NotPrincipal\": " : "\"Principal\": ")
                    .append(principal)
                    .append(", ");
        }
        List<String> actions = new ArrayList<>();
        for (int i = 0, k = 1 + random.nextInt(2); i < k; i++) {
            String a = pick(random, ACTIONS);
            if (bucketPolicy && !a.toLowerCase().startsWith("s3:")) {
                a = "s3:*";
            }
            if (bucketPolicy && a.equals("s3:Future*")) {
                a = "s3:Get*";
            }
            actions.add(a);
        }
        s.append(random.nextInt(4) == 0 ? "\"NotAction\": " : "\"Action\": ")
                .append(list(random, actions))
                .append(", ");
        List<String> resources = new ArrayList<>();
        for (int i = 0, k = 1 + random.nextInt(2); i < k; i++) {
            resources.add(resource(random, bucketPolicy));
        }
        s.append(random.nextInt(4) == 0 ? "\"NotResource\": " : "\"Resource\": ")
                .append(list(random, resources));
        if (random.nextBoolean()) {
            // one entry per operator: JSON objects have no duplicate keys
            java.util.Map<String, String> conditions = new java.util.LinkedHashMap<>();
            for (int i = 0, k = 1 + random.nextInt(2); i < k; i++) {
                String c = condition(random);
                conditions.putIfAbsent(c.substring(1, c.indexOf('"', 1)), c);
            }
            s.append(", \"Condition\": {")
                    .append(String.join(", ", conditions.values()))
                    .append("}");
        }
        return s.append("}").toString();
    }

    private static String resource(Random random, boolean bucketPolicy) {
        String tail =
                switch (random.nextInt(7)) {
                    case 0 -> "/*";
                    case 1 -> "";
                    case 2 -> "/home/${aws:username}/*";
                    case 3 -> "/${*}";
                    case 4 -> "/" + text(random, "ab*?/", 5);
                    case 5 -> "/${aws:username, 'x'}" + text(random, "a*", 2);
                    default -> "/a?";
                };
        if (!bucketPolicy && random.nextInt(6) == 0) {
            return random.nextBoolean() ? "*" : "arn:aws:s3:::" + text(random, "b*?", 3) + tail;
        }
        return "arn:aws:s3:::b" + tail;
    }

    private static String condition(Random random) {
        String op = pick(random, OPERATORS);
        String key = pick(random, KEYS);
        ConditionOperator operator = ConditionOperator.named(op);
        if (operator != ConditionOperator.NULL) {
            switch (random.nextInt(6)) {
                case 0 -> op = "ForAnyValue:" + op;
                case 1 -> op = "ForAllValues:" + op;
                default -> {}
            }
            if (random.nextInt(4) == 0) {
                op = op + "IfExists";
            }
        }
        List<String> values = new ArrayList<>();
        for (int i = 0, k = 1 + random.nextInt(2); i < k; i++) {
            values.add(policyValue(random, operator.family));
        }
        return quote(op) + ": {" + quote(key) + ": " + list(random, values) + "}";
    }

    private static String policyValue(Random random, ConditionOperator.Family family) {
        return switch (family) {
            case STRING, STRING_IGNORE_CASE, STRING_LIKE, BINARY ->
                switch (random.nextInt(5)) {
                    case 0 -> "${aws:username}";
                    case 1 -> "alice";
                    case 2 -> "true";
                    default -> text(random, "aA*?/", 4);
                };
            case NUMERIC -> String.valueOf(random.nextInt(20) - 5);
            case DATE ->
                random.nextBoolean()
                        ? PolicyTestSupport.NOW
                                .plusSeconds(random.nextInt(7) * 3600L - 10800)
                                .toString()
                        : String.valueOf(PolicyTestSupport.NOW.getEpochSecond() + random.nextInt(3) - 1);
            case BOOL, NULL -> random.nextBoolean() ? "true" : "false";
            case IP ->
                pick(random, new String[] {"203.0.113.0/24", "203.0.113.7", "10.0.0.0/8", "2001:db8::/32", "0.0.0.0/0"
                });
            case ARN ->
                pick(random, new String[] {
                    "arn:aws:iam::123456789012:user/alice",
                    "arn:aws:iam::*:user/*",
                    "arn:aws:iam::*:user/${aws:username}",
                    "arn:*:*:*:*:*",
                    "arn:aws:iam::123456789012:root"
                });
        };
    }

    private static RequestContext request(Random random) {
        String resource =
                switch (random.nextInt(6)) {
                    case 0 -> "*";
                    case 1 -> "arn:aws:s3:::b";
                    case 2 -> "arn:aws:s3:::b/home/alice/x";
                    case 3 -> "arn:aws:s3:::b/*";
                    default -> "arn:aws:s3:::" + text(random, "ab", 2) + "/" + text(random, "ab/*", 4);
                };
        RequestContext.Builder b = RequestContext.builder(pick(random, REQUEST_ACTIONS), resource)
                .time(Instant.ofEpochSecond(PolicyTestSupport.NOW.getEpochSecond() + random.nextInt(3) - 1))
                .secureTransport(random.nextBoolean());
        switch (random.nextInt(4)) {
            case 0 -> b.account("123456789012");
            case 1 -> b.user("123456789012", "bob", "AIDABOB");
            default -> b.user("123456789012", "alice", "AIDAALICE");
        }
        if (random.nextBoolean()) {
            b.sourceIp(pick(random, new String[] {"203.0.113.7", "10.1.2.3", "2001:db8::5", "not-an-ip"}));
        }
        for (String key : KEYS) {
            if (!key.startsWith("aws:") && random.nextBoolean()) {
                int n = 1 + (key.equals("s3:RequestObjectTagKeys") ? random.nextInt(3) : 0);
                String[] values = new String[n];
                for (int i = 0; i < n; i++) {
                    values[i] = switch (random.nextInt(4)) {
                        case 0 -> String.valueOf(random.nextInt(20) - 5);
                        case 1 -> "alice";
                        default -> text(random, "aA/", 3);
                    };
                }
                b.key(key, values);
            }
        }
        return b.build();
    }
}
