package dev.appliance.core;

/**
 * Conditions of a write on the key's current object, checked under the key's lock at commit time.
 *
 * @param ifMatch write only if the current object's ETag (hex, quotes optional) is this one, or {@code *} for any
 *     current object (If-Match); null for no such condition
 * @param ifNoneMatchAny write only if the key has no current object (If-None-Match: *)
 */
public record WriteConditions(String ifMatch, boolean ifNoneMatchAny) {
    public static final WriteConditions NONE = new WriteConditions(null, false);
}
