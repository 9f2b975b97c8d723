package dev.appliance.app.console;

import dev.appliance.core.error.StorageException;
import dev.appliance.core.naming.BucketNames;
import dev.appliance.core.naming.ObjectKeys;
import dev.appliance.core.naming.VersionIds;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;

/**
 * What an object-browser request addresses: the bucket (path variable), and the {@code key} and {@code versionId}
 * query parameters, read from the query string alone (never from a form body) and each at most once, so that the
 * authorization and the controller read the same target. Valid as the S3 side would take it, else {@link BadField}.
 *
 * @param key null when the request names none
 * @param versionId null when the request names none; {@code "null"} names the null version
 */
record ObjectTarget(String bucket, String key, String versionId) {
    static final String KEY = "key";
    static final String VERSION_ID = "versionId";

    /** Reads and validates the target of a request for {@code bucket} with {@code rawQuery} (null: none). */
    static ObjectTarget parse(String bucket, String rawQuery) {
        if (bucket == null || !BucketNames.isValid(bucket)) {
            throw new BadField(400, "bucket", "bucket: '" + bucket + "' is not a valid bucket name");
        }
        String key = null;
        String versionId = null;
        if (rawQuery != null && !rawQuery.isEmpty()) {
            for (String pair : rawQuery.split("&", -1)) {
                int eq = pair.indexOf('=');
                String name = decode(eq < 0 ? pair : pair.substring(0, eq), "query");
                String value = eq < 0 ? "" : decode(pair.substring(eq + 1), name);
                if (name.equals(KEY)) {
                    if (key != null) {
                        throw new BadField(400, KEY, "key: given more than once");
                    }
                    key = value;
                } else if (name.equals(VERSION_ID)) {
                    if (versionId != null) {
                        throw new BadField(400, VERSION_ID, "versionId: given more than once");
                    }
                    versionId = value;
                }
            }
        }
        if (key != null) {
            try {
                ObjectKeys.validate(key);
            } catch (StorageException e) {
                throw new BadField(400, KEY, e.getMessage());
            }
        }
        if (versionId != null) {
            if (key == null) {
                throw new BadField(400, KEY, "key is required with versionId");
            }
            try {
                VersionIds.parse(versionId);
            } catch (StorageException e) {
                throw new BadField(400, VERSION_ID, "versionId: '" + versionId + "' is not a version id");
            }
        }
        return new ObjectTarget(bucket, key, versionId);
    }

    /** The key, which this route needs. */
    String requireKey() {
        if (key == null) {
            throw new BadField(400, KEY, "key is required");
        }
        return key;
    }

    private static String decode(String text, String field) {
        try {
            return URLDecoder.decode(text, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw new BadField(400, field, field + ": malformed percent-encoding");
        }
    }
}
