package dev.appliance.core.policy;

import static dev.appliance.core.policy.MalformedPolicyException.malformed;
import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A policy document in AWS's JSON policy language, validated and compiled. {@link #parse} refuses what IAM or S3
 * refuse, with a {@link MalformedPolicyException} naming the element and the value: unknown top-level or statement
 * elements, a missing or unknown Effect, neither or both of Action/NotAction (likewise Resource/NotResource,
 * Principal/NotPrincipal), actions not of the form {@code service:Name} (wildcards allowed), resources that are not
 * {@code *} or an ARN, unknown condition operators, condition values of the wrong type, duplicate Sids, a Principal in
 * an identity policy or none in a bucket policy, and documents over the kind's size limit.
 *
 * <p>Unknown action names: IAM accepts a well-formed action it does not know (its policy validator only warns), so an
 * identity policy naming e.g. {@code s3:GetObjectt} is accepted and the name is listed in {@link #warnings()}. S3
 * refuses a bucket policy naming an S3 action it does not know ("Policy has invalid action"), or any action of
 * another service, or a wildcard that matches no S3 action; so do we.
 *
 * <p>Parsing compiles every pattern once ({@link CompiledStatement}); evaluation never compiles.
 */
public final class PolicyDocument {
    /** The current policy language version: policy variables are substituted. */
    public static final String VERSION_2012 = "2012-10-17";

    /** The old version (also the default when Version is absent): {@code ${...}} is literal text. */
    public static final String VERSION_2008 = "2008-10-17";

    private static final ObjectMapper JSON = JsonMapper.builder()
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();
    private static final Set<String> TOP_LEVEL = Set.of("Version", "Id", "Statement");
    private static final Set<String> STATEMENT_ELEMENTS = Set.of(
            "Sid",
            "Effect",
            "Principal",
            "NotPrincipal",
            "Action",
            "NotAction",
            "Resource",
            "NotResource",
            "Condition");
    private static final Set<String> PRINCIPAL_TYPES = Set.of("AWS", "CanonicalUser", "Federated", "Service");
    private static final Pattern ACTION = Pattern.compile("[A-Za-z0-9_-]+:[A-Za-z0-9_*?-]+");
    private static final Pattern IAM_SID = Pattern.compile("[A-Za-z0-9]*");
    private static final Pattern ACCOUNT_ID = Pattern.compile("[0-9]{12}");

    private final String json;
    private final PolicyKind kind;
    private final String version;
    private final String id;
    private final List<Statement> statements;
    private final List<CompiledStatement> compiled;
    private final List<String> warnings;
    private final int hash;

    private PolicyDocument(
            String json,
            PolicyKind kind,
            String version,
            String id,
            List<Statement> statements,
            List<String> warnings) {
        this.json = json;
        this.kind = kind;
        this.version = version;
        this.id = id;
        this.statements = List.copyOf(statements);
        this.warnings = List.copyOf(warnings);
        List<CompiledStatement> c = new ArrayList<>(statements.size());
        for (Statement s : statements) {
            c.add(new CompiledStatement(s));
        }
        this.compiled = List.copyOf(c);
        this.hash = 31 * json.hashCode() + kind.hashCode();
    }

    /** Parses an identity policy ({@link PolicyKind#USER_INLINE}, {@code GROUP_INLINE} or {@code MANAGED}). */
    public static PolicyDocument parse(String json, PolicyKind kind) {
        requireNonNull(kind, "kind");
        if (kind.resourceBased()) {
            throw new IllegalArgumentException("kind: " + kind + " (use parseBucketPolicy, which needs the bucket)");
        }
        return parse(json, kind, null);
    }

    /**
     * Parses a bucket policy for {@code bucket}: each statement names a Principal or NotPrincipal, only S3 actions,
     * and resources inside this bucket ({@code arn:aws:s3:::bucket} or {@code arn:aws:s3:::bucket/...}).
     */
    public static PolicyDocument parseBucketPolicy(String json, String bucket) {
        requireNonNull(bucket, "bucket");
        return parse(json, PolicyKind.BUCKET, bucket);
    }

    private static PolicyDocument parse(String json, PolicyKind kind, String bucket) {
        requireNonNull(json, "json");
        int size = kind.sizeOf(json);
        if (size > kind.maxChars()) {
            throw new MalformedPolicyException(
                    MalformedPolicyException.Reason.TOO_LARGE,
                    "Policy",
                    "Policy: " + size + " characters (a " + kind + " policy holds at most " + kind.maxChars() + ")");
        }
        JsonNode root;
        try {
            root = JSON.readTree(json);
        } catch (JsonProcessingException e) {
            throw malformed("Policy", "not valid JSON (" + e.getOriginalMessage() + ")");
        }
        if (root == null || !root.isObject()) {
            throw malformed("Policy", "expected a JSON object, got " + describe(root));
        }
        for (Iterator<String> it = root.fieldNames(); it.hasNext(); ) {
            String name = it.next();
            if (!TOP_LEVEL.contains(name)) {
                throw malformed("Policy", "unknown element '" + name + "' (expected Version, Id, Statement)");
            }
        }
        String version = VERSION_2008;
        JsonNode v = root.get("Version");
        if (v != null) {
            if (!v.isTextual() || !(VERSION_2012.equals(v.textValue()) || VERSION_2008.equals(v.textValue()))) {
                throw malformed("Version", describe(v) + " (expected \"2012-10-17\" or \"2008-10-17\")");
            }
            version = v.textValue();
        }
        String id = null;
        JsonNode idNode = root.get("Id");
        if (idNode != null) {
            if (!idNode.isTextual()) {
                throw malformed("Id", describe(idNode) + " (expected a string)");
            }
            id = idNode.textValue();
        }
        JsonNode st = root.get("Statement");
        if (st == null) {
            throw malformed("Statement", "missing");
        }
        List<JsonNode> nodes = new ArrayList<>();
        if (st.isObject()) {
            nodes.add(st);
        } else if (st.isArray() && !st.isEmpty()) {
            st.forEach(nodes::add);
        } else {
            throw malformed("Statement", describe(st) + " (expected an object or a non-empty array of objects)");
        }
        boolean variables = VERSION_2012.equals(version);
        List<Statement> statements = new ArrayList<>();
        List<String> warnings = new ArrayList<>();
        Set<String> sids = new HashSet<>();
        for (int i = 0; i < nodes.size(); i++) {
            Statement s = statement(nodes.get(i), i, kind, bucket, variables, warnings);
            if (!s.sid().isEmpty() && !sids.add(s.sid())) {
                throw malformed("Statement[" + i + "].Sid", "'" + s.sid() + "' is used twice (Sids must be unique)");
            }
            statements.add(s);
        }
        return new PolicyDocument(json, kind, version, id, statements, warnings);
    }

    private static Statement statement(
            JsonNode node, int index, PolicyKind kind, String bucket, boolean variables, List<String> warnings) {
        String at = "Statement[" + index + "]";
        if (!node.isObject()) {
            throw malformed(at, describe(node) + " (expected an object)");
        }
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            String name = it.next();
            if (!STATEMENT_ELEMENTS.contains(name)) {
                throw malformed(at, "unknown element '" + name + "'");
            }
        }
        String sid = "";
        JsonNode sidNode = node.get("Sid");
        if (sidNode != null) {
            if (!sidNode.isTextual()) {
                throw malformed(at + ".Sid", describe(sidNode) + " (expected a string)");
            }
            sid = sidNode.textValue();
            if (!kind.resourceBased() && !IAM_SID.matcher(sid).matches()) {
                throw malformed(at + ".Sid", "'" + sid + "' (IAM allows letters and digits only)");
            }
        }
        JsonNode effectNode = node.get("Effect");
        Statement.Effect effect;
        if (effectNode == null) {
            throw malformed(at + ".Effect", "missing (expected \"Allow\" or \"Deny\")");
        } else if (effectNode.isTextual() && effectNode.textValue().equals("Allow")) {
            effect = Statement.Effect.ALLOW;
        } else if (effectNode.isTextual() && effectNode.textValue().equals("Deny")) {
            effect = Statement.Effect.DENY;
        } else {
            throw malformed(at + ".Effect", describe(effectNode) + " (expected \"Allow\" or \"Deny\")");
        }

        JsonNode principal = node.get("Principal");
        JsonNode notPrincipal = node.get("NotPrincipal");
        Statement.Principals principals = null;
        if (!kind.resourceBased()) {
            if (principal != null || notPrincipal != null) {
                throw malformed(
                        at + (principal != null ? ".Principal" : ".NotPrincipal"),
                        "an identity policy must not name a principal (it applies to whom it is attached to)");
            }
        } else {
            if ((principal == null) == (notPrincipal == null)) {
                throw malformed(at, "a bucket policy statement needs exactly one of Principal and NotPrincipal");
            }
            principals = principals(
                    principal != null ? principal : notPrincipal,
                    at + (principal != null ? ".Principal" : ".NotPrincipal"));
        }

        JsonNode action = node.get("Action");
        JsonNode notAction = node.get("NotAction");
        if ((action == null) == (notAction == null)) {
            throw malformed(
                    at,
                    action == null
                            ? "neither Action nor NotAction (expected exactly one)"
                            : "both Action and NotAction (expected exactly one)");
        }
        String actionElement = at + (action != null ? ".Action" : ".NotAction");
        List<String> actions = new ArrayList<>();
        for (String a : strings(action != null ? action : notAction, actionElement)) {
            actions.add(action(a, actionElement, kind, warnings));
        }

        JsonNode resource = node.get("Resource");
        JsonNode notResource = node.get("NotResource");
        if ((resource == null) == (notResource == null)) {
            throw malformed(
                    at,
                    resource == null
                            ? "neither Resource nor NotResource (expected exactly one)"
                            : "both Resource and NotResource (expected exactly one)");
        }
        String resourceElement = at + (resource != null ? ".Resource" : ".NotResource");
        List<Template> resources = new ArrayList<>();
        for (String r : strings(resource != null ? resource : notResource, resourceElement)) {
            resources.add(resource(r, resourceElement, bucket, variables));
        }

        List<Statement.Condition> conditions = new ArrayList<>();
        JsonNode condition = node.get("Condition");
        if (condition != null) {
            conditions(condition, at + ".Condition", variables, conditions);
        }
        return new Statement(
                index,
                sid,
                effect,
                principals,
                notPrincipal != null,
                actions,
                notAction != null,
                resources,
                notResource != null,
                conditions);
    }

    private static Statement.Principals principals(JsonNode node, String at) {
        if (node.isTextual()) {
            if (!node.textValue().equals("*")) {
                throw malformed(at, describe(node) + " (expected \"*\" or an object such as {\"AWS\": ...})");
            }
            return new Statement.Principals(true, List.of(), List.of());
        }
        if (!node.isObject() || node.isEmpty()) {
            throw malformed(at, describe(node) + " (expected \"*\" or an object such as {\"AWS\": ...})");
        }
        boolean anyone = false;
        List<String> aws = new ArrayList<>();
        List<String> others = new ArrayList<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            if (!PRINCIPAL_TYPES.contains(e.getKey())) {
                throw malformed(
                        at,
                        "unknown principal type '" + e.getKey() + "' (expected AWS, CanonicalUser,"
                                + " Federated or Service)");
            }
            for (String p : strings(e.getValue(), at + "." + e.getKey())) {
                if (!e.getKey().equals("AWS")) {
                    others.add(e.getKey() + ":" + p);
                } else if (p.equals("*")) {
                    anyone = true;
                } else if (ACCOUNT_ID.matcher(p).matches()
                        || (p.startsWith("arn:")
                                && PolicyValues.arnComponents(p) != null
                                && p.indexOf('*') < 0
                                && p.indexOf('?') < 0)) {
                    aws.add(p);
                } else {
                    throw malformed(
                            at + ".AWS",
                            "'" + p + "' (expected \"*\", a 12-digit account id or an ARN" + " without wildcards)");
                }
            }
        }
        return new Statement.Principals(anyone, aws, others);
    }

    private static String action(String a, String at, PolicyKind kind, List<String> warnings) {
        if (!a.equals("*") && !ACTION.matcher(a).matches()) {
            throw malformed(at, "'" + a + "' (expected \"*\" or service:Name, e.g. s3:GetObject, wildcards allowed)");
        }
        String lower = a.toLowerCase(Locale.ROOT);
        boolean wildcard = a.indexOf('*') >= 0 || a.indexOf('?') >= 0;
        if (kind.resourceBased()) {
            if (!lower.equals("*") && !lower.startsWith("s3:")) {
                throw malformed(at, "'" + a + "' (a bucket policy names S3 actions only)");
            }
            if (wildcard) {
                Glob g = Glob.of(Template.parse(lower, true, false).tokens(), true, false);
                boolean any = false;
                for (S3Action s : S3Action.values()) {
                    any |= g.matches(s.iamName());
                }
                if (!any) {
                    throw malformed(at, "'" + a + "' matches no S3 action (invalid action)");
                }
            } else if (S3Action.named(a) == null) {
                throw malformed(at, "'" + a + "' is no S3 action (invalid action)");
            }
        } else if (!wildcard) {
            boolean known = lower.startsWith("s3:")
                    ? S3Action.named(a) != null
                    : lower.startsWith("admin:") ? AdminAction.named(a) != null : false;
            if (!known) {
                warnings.add(at + ": '" + a + "' is no action this appliance knows (accepted, as IAM does)");
            }
        }
        return lower;
    }

    private static Template resource(String r, String at, String bucket, boolean variables) {
        if (!r.equals("*") && (!r.startsWith("arn:") || PolicyValues.arnComponents(r) == null)) {
            throw malformed(at, "'" + r + "' (expected \"*\" or an ARN such as arn:aws:s3:::bucket/key*)");
        }
        if (bucket != null) {
            String own = "arn:aws:s3:::" + bucket;
            if (!r.equals(own) && !r.startsWith(own + "/")) {
                throw malformed(at, "'" + r + "' is outside bucket " + bucket + " (invalid resource)");
            }
        }
        return Template.parse(r, true, variables);
    }

    private static void conditions(JsonNode node, String at, boolean variables, List<Statement.Condition> out) {
        if (!node.isObject()) {
            throw malformed(at, describe(node) + " (expected an object of operators)");
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            String name = e.getKey();
            String opAt = at + "." + name;
            Statement.Qualifier qualifier = Statement.Qualifier.NONE;
            String rest = name;
            String lower = name.toLowerCase(Locale.ROOT);
            if (lower.startsWith("foranyvalue:")) {
                qualifier = Statement.Qualifier.FOR_ANY_VALUE;
                rest = name.substring("ForAnyValue:".length());
            } else if (lower.startsWith("forallvalues:")) {
                qualifier = Statement.Qualifier.FOR_ALL_VALUES;
                rest = name.substring("ForAllValues:".length());
            }
            boolean ifExists = false;
            if (rest.toLowerCase(Locale.ROOT).endsWith("ifexists")) {
                ifExists = true;
                rest = rest.substring(0, rest.length() - "IfExists".length());
            }
            ConditionOperator op = ConditionOperator.named(rest);
            if (op == null) {
                throw malformed(opAt, "unknown condition operator '" + name + "'");
            }
            if (op == ConditionOperator.NULL && (ifExists || qualifier != Statement.Qualifier.NONE)) {
                throw malformed(opAt, "'" + name + "' (Null takes neither IfExists nor a set qualifier)");
            }
            if (!e.getValue().isObject() || e.getValue().isEmpty()) {
                throw malformed(opAt, describe(e.getValue()) + " (expected an object of condition keys)");
            }
            for (Iterator<Map.Entry<String, JsonNode>> keys = e.getValue().fields(); keys.hasNext(); ) {
                Map.Entry<String, JsonNode> k = keys.next();
                String keyAt = opAt + "." + k.getKey();
                if (k.getKey().isBlank()) {
                    throw malformed(opAt, "empty condition key");
                }
                List<String> values = strings(k.getValue(), keyAt);
                out.add(condition(op, qualifier, ifExists, k.getKey(), values, keyAt, variables));
            }
        }
    }

    private static Statement.Condition condition(
            ConditionOperator op,
            Statement.Qualifier qualifier,
            boolean ifExists,
            String key,
            List<String> values,
            String at,
            boolean variables) {
        List<Template> templates = new ArrayList<>();
        List<List<Template>> arnParts = new ArrayList<>();
        for (String value : values) {
            switch (op.family) {
                case STRING, STRING_IGNORE_CASE, STRING_LIKE ->
                    templates.add(Template.parse(value, op.family.takesWildcards(), variables));
                case ARN -> {
                    String[] parts = PolicyValues.arnComponents(value);
                    if (parts == null) {
                        throw malformed(at, "'" + value + "' (expected an ARN of six colon-separated parts)");
                    }
                    List<Template> p = new ArrayList<>(6);
                    for (String part : parts) {
                        p.add(Template.parse(part, true, variables));
                    }
                    arnParts.add(p);
                }
                case NUMERIC -> {
                    if (PolicyValues.number(value) == null) {
                        throw malformed(at, "'" + value + "' (expected a number for " + op.awsName + ")");
                    }
                }
                case DATE -> {
                    if (PolicyValues.date(value) == null) {
                        throw malformed(
                                at,
                                "'" + value + "' (expected an ISO 8601 date or epoch seconds for " + op.awsName + ")");
                    }
                }
                case BOOL, NULL -> {
                    if (!value.equalsIgnoreCase("true") && !value.equalsIgnoreCase("false")) {
                        throw malformed(at, "'" + value + "' (expected true or false for " + op.awsName + ")");
                    }
                }
                case IP -> {
                    if (PolicyValues.cidr(value) == null) {
                        throw malformed(at, "'" + value + "' (expected an IPv4 or IPv6 address or CIDR block)");
                    }
                }
                case BINARY -> {}
            }
        }
        return new Statement.Condition(
                op, qualifier, ifExists, key.toLowerCase(Locale.ROOT), values, templates, arnParts);
    }

    /** A string, number or boolean, or a non-empty array of them, as strings. */
    private static List<String> strings(JsonNode node, String at) {
        List<String> out = new ArrayList<>();
        if (node.isArray()) {
            if (node.isEmpty()) {
                throw malformed(at, "[] (expected at least one value)");
            }
            for (JsonNode n : node) {
                out.add(scalar(n, at));
            }
        } else {
            out.add(scalar(node, at));
        }
        return out;
    }

    private static String scalar(JsonNode n, String at) {
        if (n.isTextual()) {
            return n.textValue();
        }
        if (n.isNumber() || n.isBoolean()) {
            return n.asText();
        }
        throw malformed(at, describe(n) + " (expected a string or an array of strings)");
    }

    private static String describe(JsonNode n) {
        if (n == null) {
            return "nothing";
        }
        String text = n.toString();
        return text.length() > 80 ? text.substring(0, 77) + "..." : text;
    }

    /** The document as given. */
    public String json() {
        return json;
    }

    public PolicyKind kind() {
        return kind;
    }

    /** {@link #VERSION_2012} or {@link #VERSION_2008} (the latter also when the document names none). */
    public String version() {
        return version;
    }

    /** The Id element, or null. */
    public String id() {
        return id;
    }

    public int statementCount() {
        return statements.size();
    }

    /** The statements' Sids in order ("" for a statement without one). */
    public List<String> sids() {
        return statements.stream().map(Statement::sid).toList();
    }

    /** Accepted oddities, e.g. action names this appliance does not know (IAM accepts them too). */
    public List<String> warnings() {
        return warnings;
    }

    /**
     * Whether this bucket policy is public in S3's sense (GetBucketPolicyStatus {@code IsPublic}; refused by
     * BlockPublicPolicy, ignored by RestrictPublicBuckets): some Allow statement names every principal ({@code "*"},
     * {@code {"AWS": "*"}} or a NotPrincipal) and no condition of it pins the caller down. A condition pins down when
     * it is {@code IpAddress} on {@code aws:SourceIp} with no {@code /0} block, or a positive string or ARN comparison
     * ({@code StringEquals}, {@code StringEqualsIgnoreCase}, {@code ArnEquals}, {@code ArnLike}, without IfExists or
     * ForAllValues) with fixed values (no wildcard, no policy variable) on {@code aws:SourceArn}, {@code
     * aws:SourceVpc}, {@code aws:SourceVpce}, {@code aws:SourceOwner}, {@code aws:SourceAccount}, {@code
     * aws:PrincipalAccount}, {@code aws:PrincipalArn}, {@code aws:PrincipalOrgID}, {@code
     * s3:x-amz-server-side-encryption-aws-kms-key-id} or {@code aws:userid} (not of the form {@code AROLEID:*}).
     * Identity policies are never public.
     */
    public boolean isPublic() {
        if (!kind.resourceBased()) {
            return false;
        }
        for (Statement s : statements) {
            if (s.effect() == Statement.Effect.ALLOW
                    && (s.notPrincipal() || s.principals().anyone())
                    && s.conditions().stream().noneMatch(PolicyDocument::pinsCallerDown)) {
                return true;
            }
        }
        return false;
    }

    private static final Set<String> FIXED_VALUE_KEYS = Set.of(
            "aws:sourcearn",
            "aws:sourcevpc",
            "aws:sourcevpce",
            "aws:sourceowner",
            "aws:sourceaccount",
            "aws:principalaccount",
            "aws:principalarn",
            "aws:principalorgid",
            "s3:x-amz-server-side-encryption-aws-kms-key-id",
            "aws:userid");

    private static boolean pinsCallerDown(Statement.Condition c) {
        if (c.ifExists() || c.qualifier() == Statement.Qualifier.FOR_ALL_VALUES) {
            return false;
        }
        if (c.operator() == ConditionOperator.IP_ADDRESS && c.key().equals("aws:sourceip")) {
            return c.values().stream().map(PolicyValues::cidr).allMatch(b -> b != null && b.prefix() > 0);
        }
        boolean positive =
                switch (c.operator()) {
                    case STRING_EQUALS, STRING_EQUALS_IGNORE_CASE, ARN_EQUALS, ARN_LIKE -> true;
                    default -> false;
                };
        if (!positive || !FIXED_VALUE_KEYS.contains(c.key())) {
            return false;
        }
        for (String v : c.values()) {
            if (v.indexOf('*') >= 0 || v.indexOf('?') >= 0 || v.contains("${")) {
                return false;
            }
            if (c.key().equals("aws:userid") && v.endsWith(":*")) {
                return false;
            }
        }
        return true;
    }

    List<Statement> statements() {
        return statements;
    }

    List<CompiledStatement> compiled() {
        return compiled;
    }

    /** Equal when the same text was parsed as the same kind (what the policy-set cache keys on). */
    @Override
    public boolean equals(Object o) {
        return o instanceof PolicyDocument d && d.hash == hash && d.kind == kind && d.json.equals(json);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public String toString() {
        return "PolicyDocument[" + kind + ", " + statements.size() + " statements]";
    }
}
