package dev.appliance.core.policy;

import static java.util.Objects.requireNonNull;

/**
 * A policy document under the name a {@link Decision} reports: a managed policy's name, {@code user/<name>/<policy>}
 * for an inline policy, {@code bucket/<bucket>} for a bucket policy, as the caller chooses.
 */
public record NamedPolicy(String name, PolicyDocument document) {
    public NamedPolicy {
        requireNonNull(name, "name");
        requireNonNull(document, "document");
        if (name.isBlank()) {
            throw new IllegalArgumentException("name: blank (a decision must name its policy)");
        }
    }
}
