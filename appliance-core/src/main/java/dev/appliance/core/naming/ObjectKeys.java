package dev.appliance.core.naming;

import dev.appliance.core.error.ErrorKind;
import dev.appliance.core.error.StorageException;
import java.nio.charset.StandardCharsets;
import java.util.Comparator;
import java.util.Set;

/**
 * Object key rules and the key-to-path mapping.
 *
 * <p>A key {@code a/b/c} is stored under the directory {@code <drive>/<bucket>/a/b/c/}; a key ending in {@code /}
 * (a "folder" object, e.g. {@code a/b/}) under {@code a/b__XLDIR__/}, so it can coexist with keys below it. Keys
 * are refused when they could escape the bucket directory or cannot map onto a path: empty segments ({@code a//b},
 * a leading {@code /}), {@code .} and {@code ..} segments, NUL, segments longer than 255 bytes, the reserved
 * suffix itself, and segments named like the files an object directory holds ({@code xl.meta}, {@code
 * xl.meta.archive}): the key {@code a/xl.meta} would be the directory where the key {@code a} keeps its metadata
 * file, making a phantom object {@code a} or failing the write of one.
 */
public final class ObjectKeys {
    public static final int MAX_KEY_BYTES = 1024;
    static final int MAX_SEGMENT_BYTES = 255;
    /** Names of the files in an object's directory ({@code LocalDrive.META_FILE} and the version archive). */
    static final Set<String> RESERVED_SEGMENTS = Set.of("xl.meta", "xl.meta.archive");

    /** Directory-name suffix of keys that end in '/'. */
    public static final String DIR_SUFFIX = "__XLDIR__";

    /** S3 orders keys by their UTF-8 bytes, which is code point order (not Java's UTF-16 order). */
    public static final Comparator<String> ORDER = ObjectKeys::compare;

    private ObjectKeys() {}

    public static void validate(String key) {
        if (key == null || key.isEmpty()) {
            throw invalid(key, "must not be empty");
        }
        int bytes = key.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_KEY_BYTES) {
            throw new StorageException(
                    ErrorKind.KEY_TOO_LONG,
                    "object key of " + bytes + " bytes (expected at most " + MAX_KEY_BYTES + ")");
        }
        if (key.indexOf('\0') >= 0) {
            throw invalid(key, "must not contain NUL");
        }
        String body = key.endsWith("/") ? key.substring(0, key.length() - 1) : key;
        if (body.isEmpty()) {
            throw invalid(key, "must not be only '/'");
        }
        for (String segment : body.split("/", -1)) {
            if (segment.isEmpty()) {
                throw invalid(key, "must not contain empty path segments ('//' or a leading '/')");
            }
            if (segment.equals(".") || segment.equals("..")) {
                throw invalid(key, "must not contain '.' or '..' path segments");
            }
            if (segment.endsWith(DIR_SUFFIX)) {
                throw invalid(key, "must not use the reserved suffix " + DIR_SUFFIX);
            }
            if (RESERVED_SEGMENTS.contains(segment)) {
                throw invalid(key, "must not contain a path segment named " + segment + " (the engine's own file)");
            }
            if (segment.getBytes(StandardCharsets.UTF_8).length + DIR_SUFFIX.length() > MAX_SEGMENT_BYTES) {
                throw invalid(
                        key,
                        "path segments must be shorter than " + (MAX_SEGMENT_BYTES - DIR_SUFFIX.length()) + " bytes");
            }
        }
    }

    /** The path of the key's directory relative to the bucket directory (call after {@link #validate}). */
    public static String relativeDir(String key) {
        return key.endsWith("/") ? key.substring(0, key.length() - 1) + DIR_SUFFIX : key;
    }

    /** Inverse of {@link #relativeDir} for one directory name: the key segment it stands for. */
    public static String keyOfDirName(String dirName) {
        return dirName.endsWith(DIR_SUFFIX)
                ? dirName.substring(0, dirName.length() - DIR_SUFFIX.length()) + "/"
                : dirName;
    }

    public static int compare(String a, String b) {
        int i = 0;
        int j = 0;
        while (i < a.length() && j < b.length()) {
            int ca = a.codePointAt(i);
            int cb = b.codePointAt(j);
            if (ca != cb) {
                return Integer.compare(ca, cb);
            }
            i += Character.charCount(ca);
            j += Character.charCount(cb);
        }
        return Integer.compare(a.length() - i, b.length() - j);
    }

    private static StorageException invalid(String key, String why) {
        return new StorageException(ErrorKind.INVALID_OBJECT_NAME, "object key '" + key + "': " + why);
    }
}
