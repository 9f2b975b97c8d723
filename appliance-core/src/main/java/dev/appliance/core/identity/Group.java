package dev.appliance.core.identity;

import static java.util.Objects.requireNonNull;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A group: name (unique regardless of case), id ({@code AGPA...}), path ({@code /}), creation time, the names of its
 * member users, the ARNs of the managed policies attached to it and its inline policies (name to JSON document).
 */
public record Group(
        String name,
        String id,
        String path,
        Instant created,
        List<String> members,
        List<String> attachedPolicies,
        Map<String, String> inlinePolicies) {
    public Group {
        requireNonNull(name, "name");
        requireNonNull(id, "id");
        requireNonNull(path, "path");
        requireNonNull(created, "created");
        members = List.copyOf(members);
        attachedPolicies = List.copyOf(attachedPolicies);
        inlinePolicies = java.util.Collections.unmodifiableMap(new TreeMap<>(inlinePolicies));
    }
}
