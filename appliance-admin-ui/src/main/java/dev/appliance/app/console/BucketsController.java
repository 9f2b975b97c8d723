package dev.appliance.app.console;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import dev.appliance.app.config.ApplianceProperties;
import dev.appliance.core.BucketInfo;
import dev.appliance.core.BucketSettings;
import dev.appliance.core.BucketUsage;
import dev.appliance.core.ListVersionsResult;
import dev.appliance.core.ObjectInfo;
import dev.appliance.core.VersioningState;
import dev.appliance.core.admin.ApplianceStore;
import dev.appliance.core.error.ErrorKind;
import dev.appliance.core.error.StorageException;
import dev.appliance.core.identity.IdentityException;
import dev.appliance.core.lifecycle.LifecycleConfiguration;
import dev.appliance.core.lifecycle.LifecyclePreview;
import dev.appliance.core.naming.BucketNames;
import dev.appliance.core.objectlock.ObjectLock;
import dev.appliance.core.objectlock.ObjectLockConfiguration;
import dev.appliance.core.objectlock.Retention;
import dev.appliance.core.objectlock.RetentionMode;
import dev.appliance.core.policy.AdminAction;
import dev.appliance.core.policy.BuiltinPolicies;
import dev.appliance.core.policy.MalformedPolicyException;
import dev.appliance.core.policy.PolicyDocument;
import dev.appliance.core.scanner.ScanReport;
import dev.appliance.s3.S3Server;
import dev.appliance.s3.S3ServerConfig;
import jakarta.servlet.http.HttpServletRequest;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.security.core.annotation.AuthenticationPrincipal;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.method.annotation.MethodArgumentTypeMismatchException;

/**
 * Buckets as typed JSON records under {@code /api/v1/admin/buckets} (docs/admin-api.md): listing, creating (with the
 * Veeam preset), deleting, and each bucket's versioning, Object Lock, lifecycle, policy and usage. Quota, SOSAPI and
 * the version alert threshold stay on {@code /settings} ({@link BucketSettingsController}). Every change goes through
 * the engine's own calls, the ones the S3 handlers make, so the same rules hold on both ports (suspending versioning
 * of a lock bucket, the lifecycle records' checks, the bucket policy parser).
 *
 * <p>Creating a bucket takes several engine calls (the bucket, its versioning or lock default, its settings, and for
 * the Veeam preset a user, policy and key): when one fails after the bucket was made, what was made is removed again
 * (the user's key, policy and user, then the bucket while it is empty) and the error is answered, so a refused
 * request leaves nothing behind.
 */
@RestController
@RequestMapping("/api/v1/admin/buckets")
class BucketsController {
    static final int DEFAULT_PAGE = 100;
    static final int MAX_PAGE = 1000;
    static final String VEEAM_PRESET = "veeam";
    /** Versions a refused delete looks through for a locked one, to say why it was refused. */
    static final int LOCK_SCAN_LIMIT = 10_000;

    private final ApplianceStore store;
    private final ApplianceProperties properties;
    private final S3Server s3;
    private final AdminAuthorization authorization;

    BucketsController(
            ApplianceStore store, ApplianceProperties properties, S3Server s3, AdminAuthorization authorization) {
        this.store = store;
        this.properties = properties;
        this.s3 = s3;
        this.authorization = authorization;
    }

    /** The Veeam user a create may make on the way: what {@code POST /iam/users/veeam} asks of its caller. */
    private static final List<AdminAction> USER_ACTIONS = List.of(
            AdminAction.CREATE_USER,
            AdminAction.CREATE_POLICY,
            AdminAction.ATTACH_POLICY,
            AdminAction.CREATE_ACCESS_KEY);

    /** A default retention: a mode ({@code GOVERNANCE} or {@code COMPLIANCE}) and exactly one of days and years. */
    record DefaultRetention(String mode, Integer days, Integer years) {}

    /**
     * A bucket's Object Lock; as a request body {@code enabled} may be left out (lock is never disabled), and creating
     * a bucket also takes a bare {@code true} or {@code false} for it.
     */
    record ObjectLockView(Boolean enabled, DefaultRetention defaultRetention) {
        @JsonCreator(mode = JsonCreator.Mode.PROPERTIES)
        ObjectLockView(
                @JsonProperty("enabled") Boolean enabled,
                @JsonProperty("defaultRetention") DefaultRetention defaultRetention) {
            this.enabled = enabled;
            this.defaultRetention = defaultRetention;
        }

        @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
        static ObjectLockView of(boolean enabled) {
            return new ObjectLockView(enabled, null);
        }
    }

    /**
     * What the bucket holds, as last counted ({@code countedAt}, ISO-8601); {@code versionCounts} from the last scanner
     * cycle, null before one has counted the bucket.
     */
    record UsageView(
            long objects,
            long versions,
            long deleteMarkers,
            long bytes,
            String countedAt,
            VersionCounts versionCounts) {
        static UsageView of(BucketUsage u, VersionCounts counts) {
            return new UsageView(
                    u.objects(),
                    u.versions(),
                    u.deleteMarkers(),
                    u.bytes(),
                    u.computedAt().toString(),
                    counts);
        }
    }

    /**
     * How many keys have how many versions (delete markers counted as versions), as the scanner counted them in its
     * cycle that finished {@code asOf}: {@code classes} from one version up, the last without an upper bound ({@code
     * maxVersions} null); {@code mostVersions}: the key with the most, null in an empty bucket.
     */
    record VersionCounts(String asOf, long keys, List<VersionClass> classes, KeyVersionsView mostVersions) {}

    /** Keys with {@code minVersions} to {@code maxVersions} versions (null: no upper bound). */
    record VersionClass(long minVersions, Long maxVersions, long keys) {}

    record KeyVersionsView(String key, long versions) {}

    /** The upper bounds of the classes {@link VersionCounts} shows (each also a bound of the scanner's classes). */
    static final List<Long> VERSION_CLASS_BOUNDS = List.of(1L, 10L, 100L, 1_000L, 10_000L);

    /**
     * What a rules body would do to the bucket today, deleting nothing ({@code POST .../lifecycle/preview}): counts and
     * up to {@link LifecyclePreview#SAMPLES} sample versions of each action; {@code stopped}: the walk reached {@code
     * versionCap} and the figures cover the versions before it.
     */
    record LifecyclePreviewView(
            String bucket,
            String asOf,
            long keysExamined,
            long versionsExamined,
            int versionCap,
            boolean stopped,
            PreviewAction expiredCurrent,
            PreviewAction removedNoncurrent,
            PreviewAction removedDeleteMarkers,
            PreviewAction abortedUploads,
            PreviewAction keptByLock,
            long bytesFreed) {
        static LifecyclePreviewView of(LifecyclePreview p) {
            return new LifecyclePreviewView(
                    p.bucket(),
                    p.asOf().toString(),
                    p.keysExamined(),
                    p.versionsExamined(),
                    p.versionCap(),
                    p.stopped(),
                    PreviewAction.of(p.expiredCurrent()),
                    PreviewAction.of(p.removedNoncurrent()),
                    PreviewAction.of(p.removedDeleteMarkers()),
                    PreviewAction.of(p.abortedUploads()),
                    PreviewAction.of(p.keptByLock()),
                    p.bytesFreed());
        }
    }

    record PreviewAction(long count, List<PreviewSample> samples) {
        static PreviewAction of(LifecyclePreview.Action a) {
            return new PreviewAction(
                    a.count(),
                    a.samples().stream()
                            .map(s -> new PreviewSample(s.key(), s.versionId(), s.size(), s.ruleId()))
                            .toList());
        }
    }

    /** A version a rule would act on; for an upload, {@code versionId} is its upload id. */
    record PreviewSample(String key, String versionId, long size, String ruleId) {}

    /**
     * A bucket. {@code versioning}: {@code Unversioned}, {@code Enabled} or {@code Suspended}; {@code sosapi}: whether
     * it answers Veeam's SOSAPI objects (its setting, else on for lock buckets); {@code quotaBytes}: null for none.
     */
    record BucketView(
            String name,
            String created,
            String versioning,
            ObjectLockView objectLock,
            Long quotaBytes,
            boolean sosapi,
            UsageView usage) {}

    /** A page of buckets by name; {@code next}: the {@code after} of the next page, null on the last. */
    record BucketPage(List<BucketView> buckets, String next) {}

    record NewBucketUser(String name) {}

    /**
     * The POST body. {@code preset} {@code veeam}: versioning and Object Lock on, no default retention, SOSAPI on;
     * {@code user} (Veeam preset only) also makes a least-privilege user with a key for the bucket.
     */
    record NewBucket(
            String name,
            String preset,
            String versioning,
            ObjectLockView objectLock,
            Long quotaBytes,
            Boolean sosapi,
            NewBucketUser user) {}

    /** What to paste into Veeam's object storage repository wizard; the secret is shown this once. */
    record VeeamSettings(String endpoint, String region, String bucket, String accessKeyId, String secretAccessKey) {
        @Override
        public String toString() {
            return "VeeamSettings[endpoint=" + endpoint + ", bucket=" + bucket + ", accessKeyId=" + accessKeyId
                    + ", secretAccessKey=<redacted>]";
        }
    }

    /** A bucket just made; with a user, the user, its policy, its key and the Veeam settings (null otherwise). */
    record CreatedBucket(
            BucketView bucket,
            IamController.UserView user,
            IamController.PolicyView policy,
            IamController.NewKeyView key,
            VeeamSettings veeam) {}

    /** {@code Unversioned} (GET only), {@code Enabled} or {@code Suspended}. */
    record VersioningView(String status) {}

    /** The lifecycle rules; none: the bucket has no lifecycle configuration. */
    record LifecycleView(List<LifecycleRule> rules) {}

    /**
     * One rule, S3's model in JSON: {@code status} {@code Enabled} or {@code Disabled}, a filter (null: everything) and
     * at least one action.
     */
    record LifecycleRule(
            String id,
            String status,
            LifecycleFilter filter,
            LifecycleExpiration expiration,
            NoncurrentVersionExpiration noncurrentVersionExpiration,
            Integer abortIncompleteMultipartUploadDays) {}

    record LifecycleFilter(
            String prefix, Map<String, String> tags, Long objectSizeGreaterThan, Long objectSizeLessThan) {}

    /**
     * Exactly one of {@code days}, {@code date} ({@code yyyy-mm-dd}, midnight UTC) and {@code
     * expiredObjectDeleteMarker}.
     */
    record LifecycleExpiration(Integer days, String date, Boolean expiredObjectDeleteMarker) {}

    record NoncurrentVersionExpiration(Integer noncurrentDays, Integer newerNoncurrentVersions) {}

    /** A bucket policy as JSON text, kept and answered as given. */
    record PolicyBody(String document) {}

    /** The bucket's policy, null when it has none; {@code isPublic} as S3's GetBucketPolicyStatus. */
    record BucketPolicyView(String bucket, String document, boolean isPublic) {}

    /** A refusal with its status, stable code and the request field at fault (null when none is). */
    static final class Refused extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final int status;
        final String code;
        final String field;

        Refused(int status, String code, String field, String message) {
            super(message, null, false, false);
            this.status = status;
            this.code = code;
            this.field = field;
        }
    }

    private static Refused invalid(String field, String message) {
        return new Refused(400, "InvalidArgument", field, field + ": " + message);
    }

    // ----------------------------------------------------------------------------------------------------- buckets

    @AdminOperation(AdminAction.LIST_BUCKETS)
    @GetMapping
    BucketPage list(
            @RequestParam(name = "limit", required = false) Integer limit,
            @RequestParam(name = "after", required = false) String after) {
        int max = limit == null ? DEFAULT_PAGE : limit;
        if (max < 1 || max > MAX_PAGE) {
            throw invalid("limit", limit + " (expected 1 to " + MAX_PAGE + ")");
        }
        List<BucketView> page = new ArrayList<>();
        String next = null;
        for (BucketInfo b : store.listBuckets()) {
            if (after != null && b.name().compareTo(after) <= 0) {
                continue;
            }
            if (page.size() == max) {
                next = page.getLast().name();
                break;
            }
            page.add(view(b));
        }
        return new BucketPage(page, next);
    }

    @AdminOperation(AdminAction.GET_BUCKET)
    @GetMapping("/{bucket}")
    BucketView get(@PathVariable("bucket") String bucket) {
        return view(store.bucketInfo(bucket));
    }

    @AdminOperation(AdminAction.CREATE_BUCKET)
    @PostMapping
    @ResponseStatus(HttpStatus.CREATED)
    CreatedBucket create(
            @RequestBody NewBucket body, HttpServletRequest request, @AuthenticationPrincipal AdminPrincipal caller) {
        // a user made with the bucket needs the caller's right to make users and keys, checked before any change
        if (body.user() != null
                && USER_ACTIONS.stream().anyMatch(a -> caller == null || !authorization.allowed(caller, a.iamName()))) {
            throw new Refused(
                    403,
                    "AccessDenied",
                    "user",
                    "user: creating a user with the bucket needs "
                            + USER_ACTIONS.stream().map(AdminAction::iamName).toList());
        }
        // everything that can be checked without the store is, before the first change
        if (body.name() == null) {
            throw new Refused(400, "InvalidBucketName", "name", "name: missing (expected a bucket name)");
        }
        try {
            BucketNames.validate(body.name());
        } catch (StorageException e) {
            throw new Refused(400, "InvalidBucketName", "name", "name: " + e.getMessage());
        }
        boolean veeam = body.preset() != null;
        if (veeam && !VEEAM_PRESET.equals(body.preset())) {
            throw invalid("preset", body.preset() + " (expected " + VEEAM_PRESET + " or none)");
        }
        VersioningState versioning =
                body.versioning() == null ? null : versioningState("versioning", body.versioning());
        ObjectLockView lock = body.objectLock();
        if (lock != null && lock.defaultRetention() != null && !Boolean.TRUE.equals(lock.enabled())) {
            throw invalid("objectLock.enabled", "a default retention needs Object Lock enabled (true)");
        }
        boolean objectLock = veeam || (lock != null && Boolean.TRUE.equals(lock.enabled()));
        if (veeam) {
            if (lock != null && Boolean.FALSE.equals(lock.enabled())) {
                throw invalid("objectLock.enabled", "false (the veeam preset makes an Object Lock bucket)");
            }
            if (lock != null && lock.defaultRetention() != null) {
                throw invalid(
                        "objectLock.defaultRetention",
                        "the veeam preset sets no default retention (Veeam sets the retention of each object)");
            }
            if (Boolean.FALSE.equals(body.sosapi())) {
                throw invalid("sosapi", "false (the veeam preset turns SOSAPI on)");
            }
        }
        if (objectLock && versioning == VersioningState.SUSPENDED) {
            throw invalid("versioning", "Suspended (an Object Lock bucket is versioned for good)");
        }
        ObjectLockConfiguration lockConfig = objectLock && lock != null && lock.defaultRetention() != null
                ? lockConfiguration("objectLock.defaultRetention", lock.defaultRetention())
                : null;
        BucketSettings settings = settings(body.quotaBytes(), veeam ? Boolean.TRUE : body.sosapi());
        String policyDocument = null;
        if (body.user() != null) {
            if (!veeam) {
                throw invalid("user", "a user is made only with the veeam preset");
            }
            if (body.user().name() == null || body.user().name().isBlank()) {
                throw invalid("user.name", "missing (expected the name of the user to create)");
            }
            policyDocument = BuiltinPolicies.veeamRepository(List.of(body.name()))
                    .document()
                    .json();
        }

        store.makeBucket(body.name(), objectLock);
        VeeamUsers.Made made = null;
        try {
            if (!objectLock && versioning != null) {
                store.setVersioning(body.name(), versioning);
            }
            if (lockConfig != null) {
                store.setObjectLockConfiguration(body.name(), lockConfig);
            }
            if (settings != null) {
                store.setBucketSettings(body.name(), settings);
            }
            if (policyDocument != null) {
                made = VeeamUsers.create(store.identity(), body.user().name(), policyDocument);
            }
            BucketView bucket = view(store.bucketInfo(body.name()));
            if (made == null) {
                return new CreatedBucket(bucket, null, null, null, null);
            }
            IamController.NewKeyView key = IamController.NewKeyView.of(made.key());
            return new CreatedBucket(
                    bucket,
                    IamController.UserView.of(made.user(), List.of()),
                    IamController.customer(made.policy()),
                    key,
                    new VeeamSettings(
                            s3Endpoint(request),
                            S3ServerConfig.DEFAULT_REGION,
                            body.name(),
                            key.accessKeyId(),
                            key.secretAccessKey()));
        } catch (RuntimeException e) {
            if (made != null) {
                VeeamUsers.undo(store.identity(), made, e);
            }
            try {
                store.deleteBucket(body.name()); // refused, and kept, if a client already wrote into it
            } catch (RuntimeException undo) {
                e.addSuppressed(undo);
            }
            throw e;
        }
    }

    /**
     * Removes an empty bucket. Refused (409) while it holds any version or delete marker: BucketHasLockedVersions when
     * one of them is under Object Lock (retention not yet expired, or legal hold), else BucketNotEmpty.
     */
    @AdminOperation(AdminAction.DELETE_BUCKET)
    @DeleteMapping("/{bucket}")
    ResponseEntity<Void> delete(@PathVariable("bucket") String bucket) {
        try {
            store.deleteBucket(bucket);
        } catch (StorageException e) {
            if (e.kind() == ErrorKind.BUCKET_NOT_EMPTY) {
                throw whyNotEmpty(bucket);
            }
            throw e;
        }
        return ResponseEntity.noContent().build();
    }

    /** Looks through the bucket's versions (at most {@link #LOCK_SCAN_LIMIT}) for one under Object Lock. */
    private Refused whyNotEmpty(String bucket) {
        Instant now = store.retentionNow();
        long versions = 0;
        long deleteMarkers = 0;
        String keyMarker = null;
        String versionMarker = null;
        boolean complete = false;
        while (versions + deleteMarkers < LOCK_SCAN_LIMIT) {
            ListVersionsResult page = store.listObjectVersions(bucket, "", null, keyMarker, versionMarker, 1000);
            for (ObjectInfo v : page.versions()) {
                if (v.deleteMarker()) {
                    deleteMarkers++;
                    continue;
                }
                versions++;
                String lock = lockOf(v, now);
                if (lock != null) {
                    return new Refused(
                            409,
                            "BucketHasLockedVersions",
                            "bucket",
                            "bucket " + bucket + " holds versions under Object Lock (key " + v.key() + " version "
                                    + v.versionId() + ": " + lock + "); it can be deleted once every retention has"
                                    + " expired, every legal hold is off and every version is deleted");
                }
            }
            if (!page.truncated()) {
                complete = true;
                break;
            }
            keyMarker = page.nextKeyMarker();
            versionMarker = page.nextVersionIdMarker();
        }
        String counted = complete
                ? versions + " object versions and " + deleteMarkers + " delete markers"
                : "more than " + (versions + deleteMarkers) + " versions and delete markers, none of those looked at"
                        + " locked";
        return new Refused(
                409,
                "BucketNotEmpty",
                "bucket",
                "bucket " + bucket + " is not empty: it holds " + counted + "; delete them (every version) first");
    }

    /** Why {@code v} cannot be removed at {@code now}, or null when it can. */
    private static String lockOf(ObjectInfo v, Instant now) {
        if (ObjectLock.legalHold(v.userMetadata())) {
            return "legal hold on";
        }
        Retention r = ObjectLock.retention(v.userMetadata());
        if (r != null && r.activeAt(now)) {
            return r.mode() + " retention until " + r.retainUntil();
        }
        return null;
    }

    // ----------------------------------------------------------------------------------------------------- per bucket

    @AdminOperation(AdminAction.GET_BUCKET)
    @GetMapping("/{bucket}/versioning")
    VersioningView versioning(@PathVariable("bucket") String bucket) {
        return new VersioningView(versioningName(store.versioning(bucket)));
    }

    /** As PutBucketVersioning: {@code Suspended} is refused (409 InvalidBucketState) on an Object Lock bucket. */
    @AdminOperation(AdminAction.UPDATE_BUCKET)
    @PutMapping("/{bucket}/versioning")
    VersioningView putVersioning(@PathVariable("bucket") String bucket, @RequestBody VersioningView body) {
        if (body.status() == null) {
            throw invalid("status", "missing (expected Enabled or Suspended)");
        }
        store.setVersioning(bucket, versioningState("status", body.status()));
        return versioning(bucket);
    }

    @AdminOperation(AdminAction.GET_BUCKET)
    @GetMapping("/{bucket}/object-lock")
    ObjectLockView objectLock(@PathVariable("bucket") String bucket) {
        return lockView(store.objectLockConfiguration(bucket));
    }

    /**
     * As PutObjectLockConfiguration: enables Object Lock (versioning must be Enabled, 409 InvalidBucketState otherwise)
     * and sets or removes ({@code defaultRetention} null) the default retention.
     */
    @AdminOperation(AdminAction.UPDATE_BUCKET)
    @PutMapping("/{bucket}/object-lock")
    ObjectLockView putObjectLock(@PathVariable("bucket") String bucket, @RequestBody ObjectLockView body) {
        if (Boolean.FALSE.equals(body.enabled())) {
            throw invalid("enabled", "false (Object Lock can never be disabled once enabled)");
        }
        ObjectLockConfiguration config = body.defaultRetention() == null
                ? ObjectLockConfiguration.ENABLED
                : lockConfiguration("defaultRetention", body.defaultRetention());
        store.setObjectLockConfiguration(bucket, config);
        return objectLock(bucket);
    }

    @AdminOperation(AdminAction.GET_BUCKET)
    @GetMapping("/{bucket}/lifecycle")
    LifecycleView lifecycle(@PathVariable("bucket") String bucket) {
        LifecycleConfiguration c = store.lifecycleConfiguration(bucket);
        return new LifecycleView(
                c == null
                        ? List.of()
                        : c.rules().stream().map(BucketsController::ruleView).toList());
    }

    /** Replaces the bucket's lifecycle rules; checked by the engine's records with S3's rules and messages. */
    @AdminOperation(AdminAction.UPDATE_BUCKET)
    @PutMapping("/{bucket}/lifecycle")
    LifecycleView putLifecycle(@PathVariable("bucket") String bucket, @RequestBody LifecycleView body) {
        store.setLifecycleConfiguration(bucket, configuration(body));
        return lifecycle(bucket);
    }

    /**
     * A dry run of unsaved rules, checked exactly as the PUT checks them: what the scanner would do with them today,
     * over at most {@link LifecyclePreview#DEFAULT_VERSION_CAP} versions. A read: nothing is saved or removed.
     */
    @AdminOperation(AdminAction.PREVIEW_LIFECYCLE)
    @PostMapping("/{bucket}/lifecycle/preview")
    LifecyclePreviewView previewLifecycle(@PathVariable("bucket") String bucket, @RequestBody LifecycleView body) {
        LifecycleConfiguration config = configuration(body);
        return LifecyclePreviewView.of(store.previewLifecycle(bucket, config, LifecyclePreview.DEFAULT_VERSION_CAP));
    }

    /** A rules body in the engine's model; what its records refuse is answered naming the rule. */
    private static LifecycleConfiguration configuration(LifecycleView body) {
        if (body.rules() == null || body.rules().isEmpty()) {
            throw invalid("rules", "none (expected at least one rule; DELETE removes the configuration)");
        }
        List<LifecycleConfiguration.Rule> rules = new ArrayList<>();
        for (int i = 0; i < body.rules().size(); i++) {
            rules.add(rule("rules[" + i + "]", body.rules().get(i)));
        }
        try {
            return new LifecycleConfiguration(rules);
        } catch (StorageException e) {
            throw invalid("rules", e.getMessage());
        }
    }

    @AdminOperation(AdminAction.UPDATE_BUCKET)
    @DeleteMapping("/{bucket}/lifecycle")
    ResponseEntity<Void> deleteLifecycle(@PathVariable("bucket") String bucket) {
        store.bucketInfo(bucket); // NoSuchBucket first
        store.setLifecycleConfiguration(bucket, null);
        return ResponseEntity.noContent().build();
    }

    @AdminOperation(AdminAction.GET_BUCKET)
    @GetMapping("/{bucket}/policy")
    BucketPolicyView policy(@PathVariable("bucket") String bucket) {
        String json = store.bucketPolicy(bucket);
        return new BucketPolicyView(
                bucket,
                json,
                json != null && PolicyDocument.parseBucketPolicy(json, bucket).isPublic());
    }

    /**
     * As PutBucketPolicy: the document is parsed by the policy engine first (400 MalformedPolicy naming what is wrong),
     * and a public one is refused (409 PublicPolicyBlocked) while the bucket's public access block blocks it.
     */
    @AdminOperation(AdminAction.UPDATE_BUCKET)
    @PutMapping("/{bucket}/policy")
    BucketPolicyView putPolicy(@PathVariable("bucket") String bucket, @RequestBody PolicyBody body) {
        if (body.document() == null || body.document().isBlank()) {
            throw new Refused(400, "MalformedPolicy", "document", "document: missing (expected a JSON bucket policy)");
        }
        store.bucketInfo(bucket); // NoSuchBucket before the document's errors, as S3
        try {
            PolicyDocument.parseBucketPolicy(body.document(), bucket);
            store.setBucketPolicy(bucket, body.document());
        } catch (MalformedPolicyException e) {
            throw new Refused(400, "MalformedPolicy", "document", "document: " + e.getMessage());
        } catch (StorageException e) {
            if (e.kind() == ErrorKind.ACCESS_DENIED) {
                throw new Refused(409, "PublicPolicyBlocked", "document", "document: " + e.getMessage());
            }
            throw e;
        }
        return policy(bucket);
    }

    @AdminOperation(AdminAction.UPDATE_BUCKET)
    @DeleteMapping("/{bucket}/policy")
    ResponseEntity<Void> deletePolicy(@PathVariable("bucket") String bucket) {
        store.bucketInfo(bucket); // NoSuchBucket first
        store.setBucketPolicy(bucket, null);
        return ResponseEntity.noContent().build();
    }

    @AdminOperation(AdminAction.GET_BUCKET)
    @GetMapping("/{bucket}/usage")
    UsageView usage(@PathVariable("bucket") String bucket) {
        return UsageView.of(store.bucketUsage(bucket), versionCounts(bucket));
    }

    // ------------------------------------------------------------------------------------------------------ helpers

    private BucketView view(BucketInfo b) {
        ObjectLockConfiguration lock = store.objectLockConfiguration(b.name());
        BucketSettings settings = store.bucketSettings(b.name());
        return new BucketView(
                b.name(),
                b.created().toString(),
                versioningName(b.versioning()),
                lockView(lock),
                settings.quotaBytes(),
                settings.sosapi() != null ? settings.sosapi() : lock != null,
                UsageView.of(store.bucketUsage(b.name()), versionCounts(b.name())));
    }

    /** The bucket's versions per key from the last scanner cycle (no walk of its own); null before one counted it. */
    private VersionCounts versionCounts(String bucket) {
        ScanReport report = store.lastScan();
        ScanReport.BucketScan scan = report == null ? null : report.buckets().get(bucket);
        if (scan == null) {
            return null;
        }
        long[] keys = new long[VERSION_CLASS_BOUNDS.size() + 1];
        List<Long> counted = scan.keysByVersions();
        for (int i = 0; i < counted.size(); i++) {
            // the scanner's class i holds keys up to its bound (the last: above every bound); they fall in ours whole
            long upper = i < ScanReport.VERSION_COUNT_BOUNDS.size()
                    ? ScanReport.VERSION_COUNT_BOUNDS.get(i)
                    : Long.MAX_VALUE;
            int ours = 0;
            while (ours < VERSION_CLASS_BOUNDS.size() && upper > VERSION_CLASS_BOUNDS.get(ours)) {
                ours++;
            }
            keys[ours] += counted.get(i);
        }
        List<VersionClass> classes = new ArrayList<>();
        long min = 1;
        for (int i = 0; i < keys.length; i++) {
            Long max = i < VERSION_CLASS_BOUNDS.size() ? VERSION_CLASS_BOUNDS.get(i) : null;
            classes.add(new VersionClass(min, max, keys[i]));
            min = max == null ? min : max + 1;
        }
        ScanReport.KeyVersions top =
                scan.topKeys().isEmpty() ? null : scan.topKeys().getFirst();
        return new VersionCounts(
                report.finished().toString(),
                scan.keys(),
                classes,
                top == null ? null : new KeyVersionsView(top.key(), top.versions()));
    }

    private static ObjectLockView lockView(ObjectLockConfiguration c) {
        if (c == null) {
            return new ObjectLockView(false, null);
        }
        DefaultRetention retention = c.hasDefaultRetention()
                ? new DefaultRetention(
                        c.defaultMode().name(), c.days() > 0 ? c.days() : null, c.years() > 0 ? c.years() : null)
                : null;
        return new ObjectLockView(true, retention);
    }

    /** A default retention checked as PutObjectLockConfiguration checks it (AWS's 100-year bound). */
    private static ObjectLockConfiguration lockConfiguration(String field, DefaultRetention r) {
        RetentionMode mode = RetentionMode.forName(r.mode())
                .orElseThrow(() -> invalid(field + ".mode", r.mode() + " (expected GOVERNANCE or COMPLIANCE)"));
        if ((r.days() == null) == (r.years() == null)) {
            throw invalid(field, "expected exactly one of days and years");
        }
        if (r.days() != null) {
            if (r.days() < 1 || r.days() > ObjectLockConfiguration.MAX_DAYS) {
                throw invalid(field + ".days", r.days() + " (expected 1 to " + ObjectLockConfiguration.MAX_DAYS + ")");
            }
            return new ObjectLockConfiguration(mode, r.days(), 0);
        }
        if (r.years() < 1 || r.years() > ObjectLockConfiguration.MAX_YEARS) {
            throw invalid(field + ".years", r.years() + " (expected 1 to " + ObjectLockConfiguration.MAX_YEARS + ")");
        }
        return new ObjectLockConfiguration(mode, 0, r.years());
    }

    /** The settings a new bucket gets, null when the body sets none. */
    private static BucketSettings settings(Long quotaBytes, Boolean sosapi) {
        if (quotaBytes == null && sosapi == null) {
            return null;
        }
        if (quotaBytes != null && quotaBytes <= 0) {
            throw invalid("quotaBytes", quotaBytes + " (expected a positive number of bytes, or none)");
        }
        return new BucketSettings(quotaBytes, sosapi, null);
    }

    private static String versioningName(VersioningState s) {
        return switch (s) {
            case UNVERSIONED -> "Unversioned";
            case ENABLED -> "Enabled";
            case SUSPENDED -> "Suspended";
        };
    }

    private static VersioningState versioningState(String field, String status) {
        return switch (status) {
            case "Enabled" -> VersioningState.ENABLED;
            case "Suspended" -> VersioningState.SUSPENDED;
            default -> throw invalid(field, status + " (expected Enabled or Suspended)");
        };
    }

    private static LifecycleRule ruleView(LifecycleConfiguration.Rule r) {
        LifecycleConfiguration.Filter f = r.filter();
        LifecycleConfiguration.Expiration e = r.expiration();
        LifecycleConfiguration.NoncurrentExpiration n = r.noncurrentExpiration();
        return new LifecycleRule(
                r.id(),
                r.enabled() ? "Enabled" : "Disabled",
                new LifecycleFilter(f.prefix(), f.tags(), f.sizeGreaterThan(), f.sizeLessThan()),
                e == null
                        ? null
                        : new LifecycleExpiration(
                                e.days(),
                                e.date() == null
                                        ? null
                                        : e.date()
                                                .atOffset(ZoneOffset.UTC)
                                                .toLocalDate()
                                                .toString(),
                                e.expiredObjectDeleteMarker() ? Boolean.TRUE : null),
                n == null ? null : new NoncurrentVersionExpiration(n.noncurrentDays(), n.newerNoncurrentVersions()),
                r.abortIncompleteUploadDays());
    }

    /** One rule in the engine's model; what its records refuse is answered naming the rule ({@code rules[i]}). */
    private static LifecycleConfiguration.Rule rule(String field, LifecycleRule r) {
        if (r == null) {
            throw invalid(field, "null (expected a rule)");
        }
        boolean enabled =
                switch (r.status() == null ? "" : r.status()) {
                    case "Enabled" -> true;
                    case "Disabled" -> false;
                    default -> throw invalid(field + ".status", r.status() + " (expected Enabled or Disabled)");
                };
        try {
            LifecycleFilter f = r.filter();
            LifecycleConfiguration.Filter filter = f == null
                    ? LifecycleConfiguration.Filter.ALL
                    : new LifecycleConfiguration.Filter(
                            f.prefix(), f.tags(), f.objectSizeGreaterThan(), f.objectSizeLessThan());
            LifecycleExpiration e = r.expiration();
            LifecycleConfiguration.Expiration expiration = e == null
                    ? null
                    : new LifecycleConfiguration.Expiration(
                            e.days(),
                            e.date() == null ? null : midnight(field + ".expiration.date", e.date()),
                            Boolean.TRUE.equals(e.expiredObjectDeleteMarker()));
            NoncurrentVersionExpiration n = r.noncurrentVersionExpiration();
            LifecycleConfiguration.NoncurrentExpiration noncurrent = n == null
                    ? null
                    : new LifecycleConfiguration.NoncurrentExpiration(n.noncurrentDays(), n.newerNoncurrentVersions());
            return new LifecycleConfiguration.Rule(
                    r.id(), enabled, filter, expiration, noncurrent, r.abortIncompleteMultipartUploadDays());
        } catch (StorageException | IllegalArgumentException ex) {
            throw invalid(field, ex.getMessage());
        }
    }

    /** A date as {@code yyyy-mm-dd} (midnight UTC) or an ISO-8601 date-time (which must be a midnight UTC). */
    private static Instant midnight(String field, String text) {
        try {
            return LocalDate.parse(text).atStartOfDay(ZoneOffset.UTC).toInstant();
        } catch (DateTimeParseException notADate) {
            try {
                return OffsetDateTime.parse(text).toInstant();
            } catch (DateTimeParseException e) {
                throw invalid(field, text + " (expected a date such as 2030-01-31)");
            }
        }
    }

    /** The S3 endpoint as the caller reaches this appliance: its host name, the S3 port and scheme. */
    private String s3Endpoint(HttpServletRequest request) {
        String host = request.getServerName();
        if (host.indexOf(':') >= 0 && !host.startsWith("[")) {
            host = "[" + host + "]";
        }
        String scheme = properties.s3().certsDir() != null ? "https" : "http";
        return scheme + "://" + host + ":" + s3.port();
    }

    // ------------------------------------------------------------------------------------------------------- errors

    @ExceptionHandler(Refused.class)
    ResponseEntity<Problem> refused(Refused e) {
        return problem(Problem.of(e.status, e.code, e.field, e.getMessage()));
    }

    @ExceptionHandler(StorageException.class)
    ResponseEntity<Problem> storageError(StorageException e) {
        String message = String.valueOf(e.getMessage());
        Problem p =
                switch (e.kind()) {
                    case BUCKET_NOT_FOUND -> Problem.of(404, "NoSuchBucket", "bucket", message);
                    case BUCKET_ALREADY_OWNED -> Problem.of(409, "BucketAlreadyExists", "name", message);
                    case INVALID_BUCKET_NAME -> Problem.of(400, "InvalidBucketName", "name", message);
                    case BUCKET_NOT_EMPTY -> Problem.of(409, "BucketNotEmpty", "bucket", message);
                    case INVALID_BUCKET_STATE -> Problem.of(409, "InvalidBucketState", null, message);
                    case INVALID_ARGUMENT, INVALID_REQUEST -> Problem.of(400, "InvalidArgument", null, message);
                    case WRITE_QUORUM, READ_QUORUM -> Problem.of(503, "ServiceUnavailable", null, message);
                    default -> Problem.of(500, "InternalError", null, message);
                };
        return problem(p);
    }

    /** From the Veeam preset's user: its fields are under {@code user}. */
    @ExceptionHandler(IdentityException.class)
    ResponseEntity<Problem> identityError(IdentityException e) {
        int status = e.kind().httpStatus();
        String field = status == 400 || e.kind() == IdentityException.Kind.ENTITY_ALREADY_EXISTS ? "user.name" : null;
        return problem(Problem.of(status, e.kind().code(), field, String.valueOf(e.getMessage())));
    }

    /** A query parameter of the wrong type ({@code ?limit=many}). */
    @ExceptionHandler(MethodArgumentTypeMismatchException.class)
    ResponseEntity<Problem> badParameter(MethodArgumentTypeMismatchException e) {
        return problem(Problem.of(
                400, "InvalidArgument", e.getName(), e.getName() + ": " + e.getValue() + " (expected a whole number)"));
    }

    private static ResponseEntity<Problem> problem(Problem p) {
        return ResponseEntity.status(p.status())
                .contentType(MediaType.APPLICATION_PROBLEM_JSON)
                .body(p);
    }
}
