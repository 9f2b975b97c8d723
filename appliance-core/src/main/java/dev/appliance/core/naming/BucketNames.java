package dev.appliance.core.naming;

import dev.appliance.core.error.ErrorKind;
import dev.appliance.core.error.StorageException;
import java.util.regex.Pattern;

/** The S3 bucket naming rules (general purpose buckets). */
public final class BucketNames {
    private static final Pattern ALLOWED = Pattern.compile("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]");
    private static final Pattern IP_ADDRESS = Pattern.compile("\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}");

    /**
     * The one name of the appliance's own: the S3 port serves its health probes under {@code /appliance/health/}, as
     * MinIO keeps {@code minio} for {@code /minio/health/}, so no bucket may take it.
     */
    public static final String RESERVED = "appliance";

    private BucketNames() {}

    /** Throws {@link ErrorKind#INVALID_BUCKET_NAME} with the rule that {@code name} breaks. */
    public static void validate(String name) {
        String problem = problem(name);
        if (problem != null) {
            throw new StorageException(ErrorKind.INVALID_BUCKET_NAME, "bucket name '" + name + "': " + problem);
        }
    }

    public static boolean isValid(String name) {
        return problem(name) == null;
    }

    private static String problem(String name) {
        if (name == null || name.length() < 3 || name.length() > 63) {
            return "must be 3 to 63 characters long";
        }
        if (!ALLOWED.matcher(name).matches()) {
            return "only lower-case letters, digits, dots and hyphens, starting and ending with a letter or digit";
        }
        if (name.contains("..")) {
            return "must not contain two adjacent dots";
        }
        if (name.contains(".-") || name.contains("-.")) {
            return "must not contain a dot next to a hyphen";
        }
        if (IP_ADDRESS.matcher(name).matches()) {
            return "must not be formatted as an IP address";
        }
        if (name.startsWith("xn--") || name.startsWith("sthree-") || name.startsWith("amzn-s3-demo-")) {
            return "must not start with a reserved prefix (xn--, sthree-, amzn-s3-demo-)";
        }
        if (name.equals(RESERVED)) {
            return "is reserved for the health probes (/appliance/health/...)";
        }
        if (name.endsWith("-s3alias")
                || name.endsWith("--ol-s3")
                || name.endsWith(".mrap")
                || name.endsWith("--x-s3")) {
            return "must not end with a reserved suffix";
        }
        return null;
    }
}
