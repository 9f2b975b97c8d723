package dev.appliance.core;

/** A bucket's versioning state as S3 names it; {@code UNVERSIONED} has never been enabled. */
public enum VersioningState {
    UNVERSIONED,
    ENABLED,
    SUSPENDED
}
