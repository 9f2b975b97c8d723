package dev.appliance.core;

import static java.util.Objects.requireNonNull;

import java.time.Instant;

public record BucketInfo(String name, Instant created, VersioningState versioning) {
    public BucketInfo {
        requireNonNull(name, "name");
        requireNonNull(created, "created");
        requireNonNull(versioning, "versioning");
    }
}
