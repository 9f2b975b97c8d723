package dev.appliance.s3.api.iam;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The parameters of one IAM call: the form-encoded body ({@code Action=CreateUser&UserName=...}) merged over the query
 * string, the first value of each name winning. Missing or malformed required parameters are refused naming the
 * parameter, as IAM's {@code ValidationError} does.
 */
final class IamParams {
    /** IAM's page size bounds. */
    static final int MAX_ITEMS_LIMIT = 1000;

    static final int DEFAULT_MAX_ITEMS = 100;

    private final Map<String, String> values;

    private IamParams(Map<String, String> values) {
        this.values = values;
    }

    /** {@code query}: already decoded; {@code form}: {@code application/x-www-form-urlencoded} text, or empty. */
    static IamParams of(Map<String, String> query, String form) {
        Map<String, String> v = new LinkedHashMap<>();
        if (!form.isEmpty()) {
            for (String part : form.split("&")) {
                if (part.isEmpty()) {
                    continue;
                }
                int eq = part.indexOf('=');
                String name = decode(eq < 0 ? part : part.substring(0, eq));
                String value = eq < 0 ? "" : decode(part.substring(eq + 1));
                v.putIfAbsent(name, value);
            }
        }
        query.forEach(v::putIfAbsent);
        return new IamParams(v);
    }

    private static String decode(String text) {
        try {
            return URLDecoder.decode(text, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw IamError.invalidInput("The request body is not valid form encoding: " + e.getMessage());
        }
    }

    /** The value, or null when absent (an empty value counts as absent, as the AWS clients never send one). */
    String optional(String name) {
        String v = values.get(name);
        return v == null || v.isEmpty() ? null : v;
    }

    String required(String name) {
        String v = optional(name);
        if (v == null) {
            throw IamError.validation("1 validation error detected: Value null at '" + memberName(name)
                    + "' failed to satisfy constraint: Member must not be null");
        }
        return v;
    }

    /** {@code true}/{@code false}, or {@code fallback} when absent. */
    boolean bool(String name, boolean fallback) {
        String v = optional(name);
        if (v == null) {
            return fallback;
        }
        return switch (v) {
            case "true" -> true;
            case "false" -> false;
            default -> throw IamError.validation(name + ": '" + v + "' (expected true or false)");
        };
    }

    /** MaxItems: 1..1000, 100 when absent. */
    int maxItems() {
        String v = optional("MaxItems");
        if (v == null) {
            return DEFAULT_MAX_ITEMS;
        }
        try {
            int n = Integer.parseInt(v);
            if (n >= 1 && n <= MAX_ITEMS_LIMIT) {
                return n;
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        throw IamError.validation("MaxItems: '" + v + "' (expected 1.." + MAX_ITEMS_LIMIT + ")");
    }

    /** Only IAM's root path is kept ({@code /}); another path is refused rather than dropped. */
    void requireRootPath(String name) {
        String path = optional(name);
        if (path != null && !path.equals("/")) {
            throw IamError.invalidInput(name + ": '" + path + "' (only the path / is supported)");
        }
    }

    /** IAM names members in camel case in its validation messages ({@code userName} for {@code UserName}). */
    private static String memberName(String name) {
        return Character.toLowerCase(name.charAt(0)) + name.substring(1);
    }
}
