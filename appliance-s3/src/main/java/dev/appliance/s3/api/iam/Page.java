package dev.appliance.s3.api.iam;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.function.Function;

/**
 * One page of a List* answer (IAM's Marker/MaxItems/IsTruncated). Items are ordered by a sort key; the marker is the
 * last key returned, base64url-encoded so that clients treat it as opaque. A page resumes after that key, so an item
 * deleted between pages does not shift the rest.
 *
 * @param nextMarker the marker of the next page, or null when this is the last one
 */
record Page<T>(List<T> items, String nextMarker) {
    Page {
        items = List.copyOf(items);
    }

    boolean truncated() {
        return nextMarker != null;
    }

    static <T> Page<T> of(List<T> all, Function<T, String> sortKey, String marker, int maxItems) {
        String after = marker == null ? null : decode(marker);
        List<T> sorted = new ArrayList<>(all);
        sorted.sort(Comparator.comparing(sortKey));
        List<T> out = new ArrayList<>();
        String next = null;
        for (T item : sorted) {
            String key = sortKey.apply(item);
            if (after != null && key.compareTo(after) <= 0) {
                continue;
            }
            if (out.size() == maxItems) {
                next = encode(sortKey.apply(out.getLast()));
                break;
            }
            out.add(item);
        }
        return new Page<>(out, next);
    }

    private static String encode(String key) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(key.getBytes(StandardCharsets.UTF_8));
    }

    private static String decode(String marker) {
        try {
            return new String(Base64.getUrlDecoder().decode(marker), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw IamError.invalidInput("Marker: '" + marker + "' is not a marker this endpoint returned");
        }
    }
}
