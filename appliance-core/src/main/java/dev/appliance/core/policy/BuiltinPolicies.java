package dev.appliance.core.policy;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.appliance.core.naming.BucketNames;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The policies the appliance ships, as managed policies (JSON under {@code dev/appliance/core/policy/builtin/}):
 *
 * <ul>
 *   <li>{@code readonly}: every S3 read and list ({@code s3:Get*}, {@code s3:List*}), as AWS's AmazonS3ReadOnlyAccess;
 *   <li>{@code readwrite}: all of S3 ({@code s3:*});
 *   <li>{@code writeonly}: uploads only ({@code s3:PutObject}, which covers multipart uploads, and aborting them);
 *   <li>{@code admin}: all of S3 and every appliance action ({@code s3:*}, {@code admin:*});
 *   <li>{@code auditor}: every S3 read and every appliance read ({@code admin:Get*}, {@code admin:List*}), with the
 *       actions that reveal secrets ({@link AdminAction#revealsSecret()}) denied explicitly;
 *   <li>the Veeam repository policy ({@link #veeamRepository}): exactly the permissions Veeam asks for on an
 *       immutable S3 repository, on the named buckets, and its multi-bucket variant ({@link
 *       #veeamRepositoryMultiBucket}).
 * </ul>
 */
public final class BuiltinPolicies {
    public static final String READ_ONLY = "readonly";
    public static final String READ_WRITE = "readwrite";
    public static final String WRITE_ONLY = "writeonly";
    public static final String ADMIN = "admin";
    public static final String AUDITOR = "auditor";
    public static final String VEEAM_REPOSITORY = "veeam-repository";
    public static final String VEEAM_REPOSITORY_MULTI_BUCKET = "veeam-repository-multibucket";

    /**
     * Veeam's multi-bucket mode names the buckets it creates by a 32-hex-digit hash (veeam.md §1.1), so they cannot be
     * listed in advance; the multi-bucket policy grants on bucket names of exactly 32 characters, no others.
     */
    public static final String VEEAM_CHILD_BUCKET_PATTERN = "?".repeat(32);

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Map<String, NamedPolicy> FIXED = new LinkedHashMap<>();

    static {
        for (String name : List.of(READ_ONLY, READ_WRITE, WRITE_ONLY, ADMIN, AUDITOR)) {
            FIXED.put(name, new NamedPolicy(name, PolicyDocument.parse(resource(name), PolicyKind.MANAGED)));
        }
    }

    private BuiltinPolicies() {}

    /** The fixed built-ins' names: readonly, readwrite, writeonly, admin, auditor. */
    public static List<String> names() {
        return List.copyOf(FIXED.keySet());
    }

    /** The fixed built-in {@code name}. */
    public static NamedPolicy get(String name) {
        NamedPolicy p = FIXED.get(requireNonNull(name, "name"));
        if (p == null) {
            throw new IllegalArgumentException("built-in policy '" + name + "' (expected one of " + names() + ")");
        }
        return p;
    }

    /**
     * The Veeam repository policy on {@code buckets}: ListAllMyBuckets; on each bucket ListBucket (also HeadBucket),
     * GetBucketLocation, GetBucketVersioning, GetBucketObjectLockConfiguration, ListBucketVersions; on its objects
     * GetObject, PutObject, DeleteObject, GetObjectVersion, DeleteObjectVersion, Get/PutObjectRetention and
     * Get/PutObjectLegalHold. Nothing else: no bucket policy, ACL, lifecycle or versioning changes, no bucket deletion,
     * no governance bypass.
     *
     * @throws MalformedPolicyException TOO_LARGE when so many buckets no longer fit a managed policy
     */
    public static NamedPolicy veeamRepository(List<String> buckets) {
        return new NamedPolicy(
                VEEAM_REPOSITORY, PolicyDocument.parse(render(VEEAM_REPOSITORY, buckets), PolicyKind.MANAGED));
    }

    /**
     * The Veeam policy for multi-bucket mode (v12.3+): the same grants on {@code buckets} and on the buckets Veeam
     * creates (names of 32 characters, {@link #VEEAM_CHILD_BUCKET_PATTERN}), plus CreateBucket, DeleteBucket and what
     * creating a bucket with Object Lock needs (PutBucketVersioning, PutBucketObjectLockConfiguration) on those.
     */
    public static NamedPolicy veeamRepositoryMultiBucket(List<String> buckets) {
        return new NamedPolicy(
                VEEAM_REPOSITORY_MULTI_BUCKET,
                PolicyDocument.parse(render(VEEAM_REPOSITORY_MULTI_BUCKET, buckets), PolicyKind.MANAGED));
    }

    /** The template {@code name} with each resource naming {@code {bucket}} repeated once per bucket. */
    static String render(String name, List<String> buckets) {
        requireNonNull(buckets, "buckets");
        if (buckets.isEmpty()) {
            throw new IllegalArgumentException("buckets: none (expected at least one bucket name)");
        }
        for (String b : buckets) {
            BucketNames.validate(b);
        }
        try {
            ObjectNode doc = (ObjectNode) JSON.readTree(resource(name));
            for (JsonNode statement : doc.get("Statement")) {
                JsonNode resources = statement.get("Resource");
                if (!resources.isArray()) {
                    continue;
                }
                ArrayNode rendered = JSON.createArrayNode();
                for (JsonNode r : resources) {
                    String text = r.textValue().replace("{child}", VEEAM_CHILD_BUCKET_PATTERN);
                    if (text.contains("{bucket}")) {
                        for (String b : buckets) {
                            rendered.add(text.replace("{bucket}", b));
                        }
                    } else {
                        rendered.add(text);
                    }
                }
                ((ObjectNode) statement).set("Resource", rendered);
            }
            return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(doc);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("built-in policy template " + name + " is not JSON", e);
        }
    }

    private static String resource(String name) {
        String path = "builtin/" + name + ".json";
        try (InputStream in = BuiltinPolicies.class.getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("built-in policy resource missing: " + path);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
