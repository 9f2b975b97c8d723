package dev.appliance.core;

/**
 * @param versionId the version removed, or of the delete marker created; null when the bucket is unversioned and
 *     nothing had a version id
 * @param deleteMarker true when a delete marker was created, or the removed version was one
 */
public record DeleteResult(String versionId, boolean deleteMarker) {}
