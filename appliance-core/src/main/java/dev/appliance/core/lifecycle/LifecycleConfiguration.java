package dev.appliance.core.lifecycle;

import static java.util.Objects.requireNonNull;

import dev.appliance.core.error.ErrorKind;
import dev.appliance.core.error.StorageException;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;

/**
 * A bucket's lifecycle configuration: up to {@link #MAX_RULES} rules, each a filter and the actions applied to what it
 * matches. The records check what S3 checks beyond the XML schema and refuse with S3's messages ({@link
 * ErrorKind#INVALID_ARGUMENT} or {@link ErrorKind#INVALID_REQUEST}); the S3 front end parses the XML into them.
 */
public record LifecycleConfiguration(List<Rule> rules) {
    public static final int MAX_RULES = 1000;
    public static final int MAX_ID_LENGTH = 255;
    /** S3 keeps at most this many noncurrent versions per {@code NewerNoncurrentVersions}. */
    public static final int MAX_NEWER_NONCURRENT = 100;

    public LifecycleConfiguration {
        requireNonNull(rules, "rules");
        rules = List.copyOf(rules);
        if (rules.isEmpty()) {
            throw invalidRequest("A lifecycle configuration needs at least one rule");
        }
        if (rules.size() > MAX_RULES) {
            throw invalidArgument(
                    "The number of lifecycle rules (" + rules.size() + ") exceeds the limit of " + MAX_RULES);
        }
        Set<String> ids = new HashSet<>();
        for (Rule r : rules) {
            if (!ids.add(r.id())) {
                throw invalidArgument("Rule ID must be unique. Found same ID for more than one rule: " + r.id());
            }
        }
    }

    /** Whether any enabled rule filters by object tags (the scanner then reads each version's tags). */
    public boolean usesTags() {
        return rules.stream().anyMatch(r -> r.enabled() && !r.filter().tags().isEmpty());
    }

    /**
     * One rule.
     *
     * @param id the rule's name (a random one when the client gave none, as S3 does), at most 255 characters
     * @param enabled Status Enabled; a Disabled rule is kept but never applied
     * @param filter what the rule applies to
     * @param expiration the Expiration action, or null
     * @param noncurrentExpiration the NoncurrentVersionExpiration action, or null
     * @param abortIncompleteUploadDays AbortIncompleteMultipartUpload's DaysAfterInitiation, or null
     */
    public record Rule(
            String id,
            boolean enabled,
            Filter filter,
            Expiration expiration,
            NoncurrentExpiration noncurrentExpiration,
            Integer abortIncompleteUploadDays) {
        public Rule {
            if (id == null || id.isEmpty()) {
                id = UUID.randomUUID().toString().replace("-", "");
            }
            if (id.length() > MAX_ID_LENGTH) {
                throw invalidArgument("ID length should not exceed allowed limit of " + MAX_ID_LENGTH);
            }
            requireNonNull(filter, "filter");
            if (expiration == null && noncurrentExpiration == null && abortIncompleteUploadDays == null) {
                throw invalidRequest("At least one action needs to be specified in a rule");
            }
            if (abortIncompleteUploadDays != null) {
                positive(abortIncompleteUploadDays, "DaysAfterInitiation", "AbortIncompleteMultipartUpload");
                if (!filter.tags().isEmpty()) {
                    throw invalidRequest("AbortIncompleteMultipartUpload cannot be specified with Tags.");
                }
                if (filter.sizeGreaterThan() != null || filter.sizeLessThan() != null) {
                    throw invalidRequest(
                            "AbortIncompleteMultipartUpload cannot be specified with an object size" + " filter.");
                }
            }
            if (expiration != null
                    && expiration.expiredObjectDeleteMarker()
                    && !filter.tags().isEmpty()) {
                throw invalidRequest("ExpiredObjectDeleteMarker cannot be specified with Tags.");
            }
        }
    }

    /**
     * What a rule applies to: keys starting with {@code prefix}, versions carrying every tag of {@code tags}, and
     * versions larger than {@code sizeGreaterThan} and smaller than {@code sizeLessThan} bytes (null: no bound).
     */
    public record Filter(String prefix, Map<String, String> tags, Long sizeGreaterThan, Long sizeLessThan) {
        public static final Filter ALL = new Filter("", Map.of(), null, null);

        public Filter {
            prefix = prefix == null ? "" : prefix;
            tags = tags == null ? Map.of() : Map.copyOf(new TreeMap<>(tags));
            if (sizeGreaterThan != null && sizeGreaterThan < 0) {
                throw invalidArgument("'ObjectSizeGreaterThan' must be a non-negative number");
            }
            if (sizeLessThan != null && sizeLessThan <= 0) {
                throw invalidArgument("'ObjectSizeLessThan' must be a positive number");
            }
            if (sizeGreaterThan != null && sizeLessThan != null && sizeGreaterThan >= sizeLessThan) {
                throw invalidArgument("'ObjectSizeGreaterThan' must be less than 'ObjectSizeLessThan'");
            }
        }

        /** Whether the filter may apply to anything under a key (prefix only). */
        public boolean matchesKey(String key) {
            return key.startsWith(prefix);
        }

        /** Whether an object version matches: key, size and tags. */
        public boolean matches(String key, long size, Map<String, String> versionTags) {
            if (!matchesKey(key)) {
                return false;
            }
            if (sizeGreaterThan != null && size <= sizeGreaterThan) {
                return false;
            }
            if (sizeLessThan != null && size >= sizeLessThan) {
                return false;
            }
            for (Map.Entry<String, String> t : tags.entrySet()) {
                if (!t.getValue().equals(versionTags.get(t.getKey()))) {
                    return false;
                }
            }
            return true;
        }

        /** Whether a delete marker matches: it has no tags and no size, so only a prefix-only filter does. */
        public boolean matchesDeleteMarker(String key) {
            return matchesKey(key) && tags.isEmpty() && sizeGreaterThan == null && sizeLessThan == null;
        }
    }

    /**
     * The Expiration action: the current version expires {@code days} after its creation (rounded up to the next
     * midnight UTC) or on {@code date} (a midnight UTC); with {@code expiredObjectDeleteMarker}, a delete marker with
     * no versions behind it is removed. Exactly one of the three.
     */
    public record Expiration(Integer days, Instant date, boolean expiredObjectDeleteMarker) {
        public Expiration {
            int given = (days != null ? 1 : 0) + (date != null ? 1 : 0) + (expiredObjectDeleteMarker ? 1 : 0);
            if (given > 1) {
                throw invalidArgument(
                        "Expiration takes exactly one of Days, Date and ExpiredObjectDeleteMarker (got " + given + ")");
            }
            if (days != null) {
                positive(days, "Days", "Expiration");
            }
            if (date != null && !date.atOffset(ZoneOffset.UTC).toLocalTime().equals(LocalTime.MIDNIGHT)) {
                throw invalidArgument("'Date' must be at midnight GMT");
            }
        }

        /** True for an action that expires current versions (Days or Date), not only delete markers. */
        public boolean expiresCurrent() {
            return days != null || date != null;
        }
    }

    /**
     * NoncurrentVersionExpiration: a noncurrent version is removed {@code noncurrentDays} after it became noncurrent
     * (rounded as above), and only when at least {@code newerNoncurrentVersions} newer noncurrent versions exist; an
     * absent value is no condition, but one of them must be given.
     */
    public record NoncurrentExpiration(Integer noncurrentDays, Integer newerNoncurrentVersions) {
        public NoncurrentExpiration {
            if (noncurrentDays == null && newerNoncurrentVersions == null) {
                throw invalidArgument("NoncurrentVersionExpiration needs NoncurrentDays or NewerNoncurrentVersions");
            }
            if (noncurrentDays != null) {
                positive(noncurrentDays, "NoncurrentDays", "NoncurrentVersionExpiration");
            }
            if (newerNoncurrentVersions != null
                    && (newerNoncurrentVersions <= 0 || newerNoncurrentVersions > MAX_NEWER_NONCURRENT)) {
                throw invalidArgument("'NewerNoncurrentVersions' for NoncurrentVersionExpiration action must be a"
                        + " positive integer up to " + MAX_NEWER_NONCURRENT);
            }
        }
    }

    private static void positive(int value, String element, String action) {
        if (value <= 0) {
            throw invalidArgument("'" + element + "' for " + action + " action must be a positive integer");
        }
    }

    static StorageException invalidArgument(String message) {
        return new StorageException(ErrorKind.INVALID_ARGUMENT, message);
    }

    static StorageException invalidRequest(String message) {
        return new StorageException(ErrorKind.INVALID_REQUEST, message);
    }
}
