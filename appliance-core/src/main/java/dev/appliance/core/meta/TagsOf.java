package dev.appliance.core.meta;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/** A version's object tags, as stored in its metadata: the {@code x-amz-tagging} entry, URL-encoded {@code k=v&...}. */
public final class TagsOf {
    public static final String STORED_KEY = "x-amz-tagging";

    private TagsOf() {}

    public static Map<String, String> parse(String stored) {
        if (stored == null || stored.isEmpty()) {
            return Map.of();
        }
        Map<String, String> tags = new HashMap<>();
        for (String pair : stored.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            try {
                String k = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
                String v = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
                tags.put(k, v);
            } catch (IllegalArgumentException e) {
                // a damaged entry matches no tag filter
            }
        }
        return tags;
    }
}
