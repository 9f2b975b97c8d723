package dev.appliance.core.identity;

import static java.util.Objects.requireNonNull;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A user: its name as created (unique regardless of case), its id ({@code AIDA...}), path (always {@code /}), creation
 * time, whether it may authenticate, the ARNs of the managed policies attached to it and its inline policies (name to
 * JSON document, kept as given). Group memberships are on the groups ({@link IdentityStore#groupsForUser}).
 */
public record User(
        String name,
        String id,
        String path,
        Instant created,
        boolean enabled,
        List<String> attachedPolicies,
        Map<String, String> inlinePolicies) {
    public User {
        requireNonNull(name, "name");
        requireNonNull(id, "id");
        requireNonNull(path, "path");
        requireNonNull(created, "created");
        attachedPolicies = List.copyOf(attachedPolicies);
        inlinePolicies = java.util.Collections.unmodifiableMap(new TreeMap<>(inlinePolicies));
    }
}
