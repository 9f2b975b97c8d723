package dev.appliance.core;

import java.util.List;

/** One page of versions and delete markers: keys ascending, each key's versions newest first. */
public record ListVersionsResult(
        List<ObjectInfo> versions,
        List<String> commonPrefixes,
        boolean truncated,
        String nextKeyMarker,
        String nextVersionIdMarker) {
    public ListVersionsResult {
        versions = List.copyOf(versions);
        commonPrefixes = List.copyOf(commonPrefixes);
    }
}
