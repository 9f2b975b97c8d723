package dev.appliance.s3.api.post;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.appliance.s3.error.S3ErrorCode;
import dev.appliance.s3.error.S3Exception;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * A POST policy: the base64 JSON document a browser upload carries in its {@code policy} field, signed by the
 * uploader's credentials, that bounds what the form may do.
 *
 * <pre>
 * { "expiration": "2030-01-01T00:00:00.000Z",
 *   "conditions": [ {"bucket": "photos"},                       exact match
 *                   ["eq", "$acl", "private"],                   exact match
 *                   ["starts-with", "$key", "user/eric/"],       prefix ("" allows anything)
 *                   ["content-length-range", 0, 10485760] ] }    size of the file, inclusive
 * </pre>
 *
 * Field names in conditions are case-insensitive. Every form field but {@code x-amz-signature}, {@code file}, {@code
 * policy} and {@code x-ignore-*}, and the bucket, must be named by a condition ({@code Extra input fields}), and every
 * condition must hold. A field a condition names but the form lacks counts as the empty string.
 *
 * @param expiration when the policy stops being valid
 * @param conditions in document order
 */
record PostPolicy(Instant expiration, List<Condition> conditions) {
    /** One condition of the document. */
    sealed interface Condition {}

    /**
     * {@code eq} or {@code starts-with} on a field.
     *
     * @param field lower-case, without {@code $}
     */
    record Match(boolean prefix, String field, String value, String rendered) implements Condition {}

    /** {@code content-length-range}: the file's size in bytes, both bounds inclusive. */
    record LengthRange(long min, long max) implements Condition {}

    private static final ObjectMapper JSON = JsonMapper.builder()
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .build();

    PostPolicy {
        requireNonNull(expiration, "expiration");
        conditions = List.copyOf(conditions);
    }

    /** Decodes and parses the {@code policy} field; {@code InvalidPolicyDocument} when it is not a valid policy. */
    static PostPolicy parse(String base64) {
        byte[] json;
        try {
            json = Base64.getDecoder().decode(base64.replaceAll("\\s", ""));
        } catch (IllegalArgumentException e) {
            throw invalid("Invalid Policy: Invalid Base64 encoding.");
        }
        JsonNode root;
        try {
            root = JSON.readTree(new String(json, StandardCharsets.UTF_8));
        } catch (JsonProcessingException e) {
            throw invalid("Invalid Policy: Invalid JSON.");
        }
        if (root == null || !root.isObject()) {
            throw invalid("Invalid Policy: Invalid JSON.");
        }
        JsonNode exp = root.get("expiration");
        if (exp == null) {
            throw invalid("Invalid Policy: Policy missing expiration.");
        }
        Instant expiration = exp.isTextual() ? parseTime(exp.asText()) : null;
        if (expiration == null) {
            throw invalid("Invalid Policy: Invalid 'expiration' value: '" + exp.asText() + "'");
        }
        JsonNode conds = root.get("conditions");
        if (conds == null) {
            throw invalid("Invalid Policy: Policy missing conditions.");
        }
        if (!conds.isArray()) {
            throw invalid("Invalid Policy: Invalid 'conditions' value: must be a list.");
        }
        for (Iterator<String> names = root.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!name.equals("expiration") && !name.equals("conditions")) {
                throw invalid("Invalid Policy: Unexpected field: '" + name + "'");
            }
        }
        List<Condition> conditions = new ArrayList<>();
        for (JsonNode c : conds) {
            if (c.isObject()) {
                for (Map.Entry<String, JsonNode> e : c.properties()) {
                    if (!e.getValue().isTextual()) {
                        throw invalid("Invalid Policy: Invalid Simple-Condition: value must be a string.");
                    }
                    String field = e.getKey().toLowerCase(Locale.ROOT);
                    String value = e.getValue().asText();
                    conditions.add(new Match(false, field, value, render("eq", "$" + e.getKey(), value)));
                }
            } else if (c.isArray()) {
                conditions.add(arrayCondition(c));
            } else {
                throw invalid("Invalid Policy: Invalid Condition: must be an object or a list.");
            }
        }
        return new PostPolicy(expiration, conditions);
    }

    private static Condition arrayCondition(JsonNode c) {
        if (c.size() != 3 || !c.get(0).isTextual()) {
            throw invalid("Invalid Policy: Invalid Condition: wrong number of arguments.");
        }
        String op = c.get(0).asText().toLowerCase(Locale.ROOT);
        if (op.equals("content-length-range")) {
            long min = length(c.get(1));
            long max = length(c.get(2));
            return new LengthRange(min, max);
        }
        if (!op.equals("eq") && !op.equals("starts-with")) {
            throw invalid("Invalid Policy: Invalid Condition: unknown operation '"
                    + c.get(0).asText() + "'.");
        }
        if (!c.get(1).isTextual()
                || !c.get(1).asText().startsWith("$")
                || !c.get(2).isTextual()) {
            throw invalid("Invalid Policy: Invalid Condition: " + c + ".");
        }
        String field = c.get(1).asText().substring(1);
        return new Match(
                op.equals("starts-with"),
                field.toLowerCase(Locale.ROOT),
                c.get(2).asText(),
                render(c.get(0).asText(), c.get(1).asText(), c.get(2).asText()));
    }

    private static long length(JsonNode n) {
        if (n.canConvertToExactIntegral() && n.isNumber()) {
            long v = n.asLong();
            if (v >= 0 && n.canConvertToLong()) {
                return v;
            }
        } else if (n.isTextual() && n.asText().matches("[0-9]{1,18}")) {
            return Long.parseLong(n.asText());
        }
        throw invalid("Invalid Policy: Invalid content-length-range: " + n + ".");
    }

    private static Instant parseTime(String s) {
        try {
            return Instant.parse(s);
        } catch (DateTimeParseException e) {
            try {
                return OffsetDateTime.parse(s).toInstant();
            } catch (DateTimeParseException e2) {
                return null;
            }
        }
    }

    /** A condition as S3 names it in its refusal: {@code ["eq", "$key", "a"]}. */
    private static String render(String op, String field, String value) {
        return "[" + quote(op) + ", " + quote(field) + ", " + quote(value) + "]";
    }

    private static String quote(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    /** {@code AccessDenied} once the policy has expired. */
    void checkNotExpired(Instant now) {
        if (!now.isBefore(expiration)) {
            throw new S3Exception(S3ErrorCode.AccessDenied, "Invalid according to Policy: Policy expired.");
        }
    }

    /**
     * Checks the form against the conditions: each must hold, and each field must be named.
     *
     * @param fields lower-case field names (the bucket included as {@code bucket}) to values
     */
    void checkFields(Map<String, String> fields) {
        Set<String> named = new LinkedHashSet<>();
        for (Condition c : conditions) {
            if (c instanceof Match m) {
                named.add(m.field());
                String value = fields.getOrDefault(m.field(), "");
                boolean holds = m.prefix() ? value.startsWith(m.value()) : value.equals(m.value());
                if (!holds) {
                    throw new S3Exception(
                            S3ErrorCode.AccessDenied,
                            "Invalid according to Policy: Policy Condition failed: " + m.rendered());
                }
            }
        }
        List<String> extra = new ArrayList<>();
        for (String name : fields.keySet()) {
            if (!named.contains(name) && !exempt(name)) {
                extra.add(name);
            }
        }
        if (!extra.isEmpty()) {
            throw new S3Exception(
                    S3ErrorCode.AccessDenied,
                    "Invalid according to Policy: Extra input fields: " + String.join(", ", extra));
        }
    }

    /** Fields that never need a condition. */
    static boolean exempt(String lowerCaseName) {
        return lowerCaseName.equals("x-amz-signature")
                || lowerCaseName.equals("file")
                || lowerCaseName.equals("policy")
                || lowerCaseName.startsWith("x-ignore-");
    }

    /** The smallest file size the policy allows. */
    long minLength() {
        long min = 0;
        for (Condition c : conditions) {
            if (c instanceof LengthRange r) {
                min = Math.max(min, r.min());
            }
        }
        return min;
    }

    /** The largest file size the policy allows, or {@link Long#MAX_VALUE}. */
    long maxLength() {
        long max = Long.MAX_VALUE;
        for (Condition c : conditions) {
            if (c instanceof LengthRange r) {
                max = Math.min(max, r.max());
            }
        }
        return max;
    }

    private static S3Exception invalid(String message) {
        return new S3Exception(S3ErrorCode.InvalidPolicyDocument, message);
    }
}
