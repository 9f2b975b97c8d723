package dev.appliance.s3.api.objectlock;

import static java.util.Objects.requireNonNull;

import dev.appliance.core.ObjectInfo;
import dev.appliance.core.ObjectStore;
import dev.appliance.core.objectlock.ObjectLock;
import dev.appliance.core.objectlock.ObjectLockConfiguration;
import dev.appliance.core.objectlock.Retention;
import dev.appliance.core.objectlock.RetentionMode;
import dev.appliance.s3.api.S3Request;
import dev.appliance.s3.api.S3Response;
import dev.appliance.s3.auth.AccessRequest;
import dev.appliance.s3.auth.Authorizer;
import dev.appliance.s3.error.S3ErrorCode;
import dev.appliance.s3.error.S3Exception;
import dev.appliance.s3.xml.XmlElement;
import dev.appliance.s3.xml.XmlReader;
import dev.appliance.s3.xml.XmlWriter;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;

/**
 * Put/GetObjectLockConfiguration ({@code ?object-lock} on a bucket), Put/GetObjectRetention ({@code ?retention}) and
 * Put/GetObjectLegalHold ({@code ?legal-hold}) on a key, each with an optional {@code versionId}.
 *
 * <p>Request bodies are accepted in S3's namespace or in none (Veeam sends {@code <Retention>} without one); responses
 * carry the namespace; an unknown, repeated or non-text field is {@code MalformedXML}. Every PUT here must carry {@code
 * Content-MD5} or an {@code x-amz-checksum-*} header, as S3 requires (checked when present: {@code BadDigest}).
 * Retention and legal-hold changes are metadata-only updates of the version, decided by the engine under the key's
 * lock.
 */
public final class ObjectLockHandlers {
    static final String MISSING_INTEGRITY = "Missing required header for this request: Content-MD5";
    private static final String NOT_LOCK_BUCKET = "Bucket is missing Object Lock Configuration";
    private static final Set<String> DEFAULT_RETENTION_FIELDS = Set.of("Mode", "Days", "Years");
    private static final Set<String> RETENTION_FIELDS = Set.of("Mode", "RetainUntilDate");

    private final ObjectStore store;
    private final Authorizer authorizer;

    public ObjectLockHandlers(ObjectStore store, Authorizer authorizer) {
        this.store = requireNonNull(store, "store");
        this.authorizer = requireNonNull(authorizer, "authorizer");
    }

    // ------------------------------------------------------------------------------------------- bucket configuration

    public S3Response getConfiguration(S3Request r) {
        ObjectLockConfiguration c = store.objectLockConfiguration(r.bucket());
        if (c == null) {
            throw new S3Exception(
                    S3ErrorCode.ObjectLockConfigurationNotFoundError,
                    "Object Lock configuration does not exist for this bucket");
        }
        XmlWriter x = new XmlWriter().startDocument("ObjectLockConfiguration");
        x.element("ObjectLockEnabled", "Enabled");
        if (c.hasDefaultRetention()) {
            x.start("Rule")
                    .start("DefaultRetention")
                    .element("Mode", c.defaultMode().name());
            if (c.days() > 0) {
                x.element("Days", c.days());
            } else {
                x.element("Years", c.years());
            }
            x.end().end();
        }
        return S3Response.xml(x.toBytes());
    }

    public S3Response putConfiguration(S3Request r) throws IOException {
        XmlElement root = readBody(r, "ObjectLockConfiguration")
                .requireOnly(Set.of("ObjectLockEnabled", "Rule"), Set.of("ObjectLockEnabled"));
        if (!root.childText("ObjectLockEnabled").filter("Enabled"::equals).isPresent()) {
            throw malformed("ObjectLockEnabled must be Enabled");
        }
        ObjectLockConfiguration config = ObjectLockConfiguration.ENABLED;
        Optional<XmlElement> rule = root.child("Rule");
        if (rule.isPresent()) {
            XmlElement retention = rule.get()
                    .requireOnly(Set.of("DefaultRetention"), Set.of())
                    .child("DefaultRetention")
                    .orElseThrow(() -> malformed("Rule without DefaultRetention"))
                    .requireOnly(DEFAULT_RETENTION_FIELDS, DEFAULT_RETENTION_FIELDS);
            RetentionMode mode = retention
                    .childText("Mode")
                    .flatMap(RetentionMode::forName)
                    .orElseThrow(() -> malformed("DefaultRetention needs Mode GOVERNANCE or COMPLIANCE"));
            Optional<String> days = retention.childText("Days");
            Optional<String> years = retention.childText("Years");
            if (days.isPresent() == years.isPresent()) {
                throw malformed("DefaultRetention needs exactly one of Days and Years");
            }
            int period = period(
                    days.orElseGet(years::get),
                    days.isPresent() ? ObjectLockConfiguration.MAX_DAYS : ObjectLockConfiguration.MAX_YEARS);
            config = days.isPresent()
                    ? new ObjectLockConfiguration(mode, period, 0)
                    : new ObjectLockConfiguration(mode, 0, period);
        }
        store.setObjectLockConfiguration(r.bucket(), config);
        return S3Response.ok();
    }

    /** A default period of 1 to {@code max} days or years (AWS's 100-year bound, which keeps dates before 9999). */
    private static int period(String text, int max) {
        long n;
        try {
            n = Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw malformed("the retention period is not a number");
        }
        if (n <= 0) {
            throw new S3Exception(
                    S3ErrorCode.InvalidRetentionPeriod, "Default retention period must be a positive integer value.");
        }
        if (n > max) {
            throw new S3Exception(
                    S3ErrorCode.InvalidRetentionPeriod,
                    "Default retention period must not exceed 100 years (" + ObjectLockConfiguration.MAX_DAYS
                            + " days).");
        }
        return (int) n;
    }

    // ------------------------------------------------------------------------------------------------------ retention

    public S3Response getRetention(S3Request r) {
        requireLockBucket(r);
        ObjectInfo info = store.headObject(r.bucket(), r.key(), r.param("versionId"));
        Retention retention = ObjectLock.retention(info.userMetadata());
        if (retention == null) {
            throw noLockConfiguration();
        }
        XmlWriter x = new XmlWriter().startDocument("Retention");
        x.element("Mode", retention.mode().name())
                .element("RetainUntilDate", ObjectLock.format(retention.retainUntil()));
        return S3Response.xml(x.toBytes());
    }

    /** Authorized here, not by the dispatcher: the policy's condition keys are in the body (see below). */
    public S3Response putRetention(S3Request r) throws IOException {
        XmlElement root = readBody(r, "Retention").requireOnly(RETENTION_FIELDS, RETENTION_FIELDS);
        Optional<String> modeText = root.childText("Mode");
        Optional<String> dateText = root.childText("RetainUntilDate");
        Retention retention = null;
        if (modeText.isPresent() || dateText.isPresent()) {
            RetentionMode mode = modeText.flatMap(RetentionMode::forName)
                    .orElseThrow(() -> malformed("Mode must be GOVERNANCE or COMPLIANCE"));
            Instant until = dateText.map(ObjectLock::parseDate).orElseThrow(() -> malformed("bad RetainUntilDate"));
            retention = new Retention(mode, until);
        }
        // as S3: s3:object-lock-mode, -retain-until-date and -remaining-retention-days are the requested retention
        AccessRequest access = r.access("s3:PutObjectRetention")
                .withConditionKey("s3:object-lock-mode", modeText.orElse(null))
                .withConditionKey("s3:object-lock-retain-until-date", dateText.orElse(null))
                .withConditionKey(
                        "s3:object-lock-remaining-retention-days",
                        retention == null
                                ? null
                                : Long.toString(Math.max(
                                        0,
                                        Duration.between(r.received(), retention.retainUntil())
                                                .toDays())));
        if (!authorizer.allowed(access)) {
            throw new S3Exception(S3ErrorCode.AccessDenied);
        }
        requireLockBucket(r);
        boolean bypass = LockHeaders.bypassGovernance(r, authorizer, r.key());
        store.putObjectRetention(r.bucket(), r.key(), r.param("versionId"), retention, bypass);
        return S3Response.ok();
    }

    // ----------------------------------------------------------------------------------------------------- legal hold

    public S3Response getLegalHold(S3Request r) {
        requireLockBucket(r);
        ObjectInfo info = store.headObject(r.bucket(), r.key(), r.param("versionId"));
        String status = info.userMetadata().get(ObjectLock.LEGAL_HOLD_KEY);
        if (status == null) {
            throw noLockConfiguration();
        }
        XmlWriter x = new XmlWriter().startDocument("LegalHold");
        x.element("Status", status);
        return S3Response.xml(x.toBytes());
    }

    public S3Response putLegalHold(S3Request r) throws IOException {
        requireLockBucket(r);
        XmlElement root = readBody(r, "LegalHold").requireOnly(Set.of("Status"), Set.of("Status"));
        String status = root.childText("Status").orElse("");
        if (!status.equals("ON") && !status.equals("OFF")) {
            throw malformed("Status must be ON or OFF");
        }
        store.putObjectLegalHold(r.bucket(), r.key(), r.param("versionId"), status.equals("ON"));
        return S3Response.ok();
    }

    // ------------------------------------------------------------------------------------------------------- helpers

    private void requireLockBucket(S3Request r) {
        if (store.objectLockConfiguration(r.bucket()) == null) {
            throw new S3Exception(S3ErrorCode.InvalidRequest, NOT_LOCK_BUCKET);
        }
    }

    /**
     * Reads a small XML body whose root is {@code rootName}, after checking that the request carries an integrity
     * header; a {@code Content-MD5} is verified here, an {@code x-amz-checksum-*} by the body stream as it ends.
     */
    static XmlElement readBody(S3Request r, String rootName) throws IOException {
        byte[] body = LockHeaders.readIntegrityCheckedBody(r, XmlReader.MAX_BODY);
        if (body.length == 0) {
            throw malformed("empty body");
        }
        XmlElement root = XmlReader.parse(body);
        if (!root.name().equals(rootName)) {
            throw malformed("the root element must be " + rootName);
        }
        return root;
    }

    private static S3Exception noLockConfiguration() {
        return new S3Exception(
                S3ErrorCode.NoSuchObjectLockConfiguration,
                "The specified object does not have a ObjectLock configuration");
    }

    private static S3Exception malformed(String why) {
        return new S3Exception(S3ErrorCode.MalformedXML, S3ErrorCode.MalformedXML.defaultMessage() + " (" + why + ")");
    }
}
