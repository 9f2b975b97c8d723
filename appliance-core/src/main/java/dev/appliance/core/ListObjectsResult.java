package dev.appliance.core;

import java.util.List;

/**
 * One page of current objects, in UTF-8 binary key order.
 *
 * @param nextMarker the last key or common prefix on this page when truncated (the start-after of the next page)
 */
public record ListObjectsResult(
        List<ObjectInfo> objects, List<String> commonPrefixes, boolean truncated, String nextMarker) {
    public ListObjectsResult {
        objects = List.copyOf(objects);
        commonPrefixes = List.copyOf(commonPrefixes);
    }
}
