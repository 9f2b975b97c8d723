package dev.appliance.core.identity;

import static java.util.Objects.requireNonNull;

import java.time.Instant;

/**
 * A customer managed policy: name (unique regardless of case), id ({@code ANPA...}), ARN ({@code
 * arn:aws:iam::<account>:policy/<name>}), path ({@code /}), its document (JSON text, kept as given: the policy
 * engine parses it) and when it was created and last updated. Only the default version is kept ({@code v1} in IAM
 * terms): an update replaces the document.
 */
public record ManagedPolicy(
        String name, String id, String arn, String path, String document, Instant created, Instant updated) {
    public ManagedPolicy {
        requireNonNull(name, "name");
        requireNonNull(id, "id");
        requireNonNull(arn, "arn");
        requireNonNull(path, "path");
        requireNonNull(document, "document");
        requireNonNull(created, "created");
        requireNonNull(updated, "updated");
    }
}
