package dev.appliance.s3.api.lifecycle;

import static java.util.Objects.requireNonNull;

import dev.appliance.core.ObjectInfo;
import dev.appliance.core.ObjectStore;
import dev.appliance.core.lifecycle.Lifecycle;
import dev.appliance.core.lifecycle.LifecycleConfiguration;
import dev.appliance.core.lifecycle.LifecycleConfiguration.Expiration;
import dev.appliance.core.lifecycle.LifecycleConfiguration.Filter;
import dev.appliance.core.lifecycle.LifecycleConfiguration.NoncurrentExpiration;
import dev.appliance.core.lifecycle.LifecycleConfiguration.Rule;
import dev.appliance.s3.api.S3Request;
import dev.appliance.s3.api.S3Response;
import dev.appliance.s3.api.objectlock.LockHeaders;
import dev.appliance.s3.error.S3ErrorCode;
import dev.appliance.s3.error.S3Exception;
import dev.appliance.s3.xml.XmlElement;
import dev.appliance.s3.xml.XmlReader;
import dev.appliance.s3.xml.XmlWriter;
import java.io.IOException;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Put/Get/DeleteBucketLifecycleConfiguration ({@code ?lifecycle} on a bucket).
 *
 * <p>The XML is S3's: {@code LifecycleConfiguration} of up to 1,000 {@code Rule}s, each with {@code ID}, {@code
 * Status}, either a {@code Filter} (exactly one of {@code Prefix}, {@code Tag}, {@code ObjectSizeGreaterThan}, {@code
 * ObjectSizeLessThan} or {@code And}) or the older top-level {@code Prefix}, and the actions {@code Expiration},
 * {@code NoncurrentVersionExpiration} and {@code AbortIncompleteMultipartUpload}. What breaks the schema is {@code
 * MalformedXML}; what the schema allows but S3 refuses (Days of 0, a Date not at midnight, duplicate IDs...) is
 * checked by the engine's records with S3's messages. Transitions need storage classes this appliance does not have:
 * {@code NotImplemented}. As on S3, PUT needs {@code Content-MD5} or an {@code x-amz-checksum-*} header.
 */
public final class LifecycleHandlers {
    /** 1,000 rules of a few hundred bytes each. */
    static final int MAX_BODY = 1024 * 1024;

    private static final Set<String> RULE_ELEMENTS = Set.of(
            "ID",
            "Status",
            "Filter",
            "Prefix",
            "Expiration",
            "NoncurrentVersionExpiration",
            "AbortIncompleteMultipartUpload",
            "Transition",
            "NoncurrentVersionTransition");
    private static final DateTimeFormatter HTTP_DATE = DateTimeFormatter.ofPattern(
                    "EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US)
            .withZone(ZoneOffset.UTC);

    private final ObjectStore store;

    public LifecycleHandlers(ObjectStore store) {
        this.store = requireNonNull(store, "store");
    }

    public S3Response put(S3Request r) throws IOException {
        byte[] body = LockHeaders.readIntegrityCheckedBody(r, MAX_BODY);
        if (body.length == 0) {
            throw malformed("empty body");
        }
        store.setLifecycleConfiguration(r.bucket(), parse(XmlReader.parse(body, MAX_BODY)));
        return S3Response.ok();
    }

    public S3Response get(S3Request r) {
        LifecycleConfiguration c = store.lifecycleConfiguration(r.bucket());
        if (c == null) {
            throw new S3Exception(S3ErrorCode.NoSuchLifecycleConfiguration);
        }
        return S3Response.xml(toXml(c));
    }

    public S3Response delete(S3Request r) {
        store.lifecycleConfiguration(r.bucket()); // NoSuchBucket first
        store.setLifecycleConfiguration(r.bucket(), null);
        return S3Response.noContent();
    }

    /**
     * Adds S3's {@code x-amz-expiration} ({@code expiry-date="<HTTP date>", rule-id="<id>"}) to a response about
     * {@code info} when a lifecycle rule will expire it.
     */
    public static void addExpiration(ObjectStore store, S3Response resp, ObjectInfo info) {
        Lifecycle.Expiry e = store.expiration(info);
        if (e != null && !e.date().equals(Instant.MAX)) {
            resp.header("x-amz-expiration", expirationHeader(e));
        }
    }

    static String expirationHeader(Lifecycle.Expiry e) {
        return "expiry-date=\"" + HTTP_DATE.format(e.date()) + "\", rule-id=\"" + quoted(e.ruleId()) + "\"";
    }

    private static String quoted(String s) {
        return s.replace("\\", "\\\\").replace("\"", "\\\"");
    }

    // ---------------------------------------------------------------------------------------------------- parsing

    static LifecycleConfiguration parse(XmlElement root) {
        if (!root.name().equals("LifecycleConfiguration")) {
            throw malformed("the root element must be LifecycleConfiguration");
        }
        List<Rule> rules = new ArrayList<>();
        for (XmlElement child : root.children()) {
            if (!child.name().equals("Rule")) {
                throw malformed("unexpected element " + child.name());
            }
            if (rules.size() == LifecycleConfiguration.MAX_RULES) {
                throw new S3Exception(
                        S3ErrorCode.InvalidArgument,
                        "The number of lifecycle rules exceeds the limit of " + LifecycleConfiguration.MAX_RULES);
            }
            rules.add(rule(child));
        }
        if (rules.isEmpty()) {
            throw malformed("at least one Rule is required");
        }
        return new LifecycleConfiguration(rules);
    }

    private static Rule rule(XmlElement rule) {
        for (XmlElement c : rule.children()) {
            if (!RULE_ELEMENTS.contains(c.name())) {
                throw malformed("unexpected element " + c.name() + " in Rule");
            }
            if (rule.children().stream().filter(o -> o.name().equals(c.name())).count() > 1) {
                throw malformed("more than one " + c.name() + " in Rule");
            }
        }
        for (String transition : List.of("Transition", "NoncurrentVersionTransition")) {
            if (rule.child(transition).isPresent()) {
                throw new S3Exception(
                        S3ErrorCode.NotImplemented,
                        transition + " is not supported: this appliance has a single storage class.");
            }
        }
        String status = rule.childText("Status").orElseThrow(() -> malformed("Rule without Status"));
        if (!status.equals("Enabled") && !status.equals("Disabled")) {
            throw malformed("Status must be Enabled or Disabled");
        }
        Optional<XmlElement> filter = rule.child("Filter");
        Optional<XmlElement> prefix = rule.child("Prefix");
        if (filter.isPresent() && prefix.isPresent()) {
            throw malformed("Rule has both Filter and Prefix");
        }
        if (filter.isEmpty() && prefix.isEmpty()) {
            throw malformed("Rule needs a Filter or a Prefix");
        }
        Filter f = prefix.isPresent() ? new Filter(prefix.get().rawText(), null, null, null) : filter(filter.get());
        Expiration expiration =
                rule.child("Expiration").map(LifecycleHandlers::expiration).orElse(null);
        NoncurrentExpiration noncurrent = rule.child("NoncurrentVersionExpiration")
                .map(LifecycleHandlers::noncurrent)
                .orElse(null);
        Integer abort = rule.child("AbortIncompleteMultipartUpload")
                .map(a -> {
                    only(a, Set.of("DaysAfterInitiation"));
                    return integer(a, "DaysAfterInitiation")
                            .orElseThrow(() -> malformed("AbortIncompleteMultipartUpload needs DaysAfterInitiation"));
                })
                .orElse(null);
        return new Rule(rule.childText("ID").orElse(null), status.equals("Enabled"), f, expiration, noncurrent, abort);
    }

    private static Filter filter(XmlElement filter) {
        List<XmlElement> conditions = filter.children();
        if (conditions.isEmpty()) {
            return Filter.ALL;
        }
        if (conditions.size() > 1) {
            throw malformed("Filter takes exactly one of Prefix, Tag, ObjectSizeGreaterThan, ObjectSizeLessThan and"
                    + " And (combine conditions with And)");
        }
        XmlElement c = conditions.getFirst();
        return switch (c.name()) {
            case "Prefix" -> new Filter(c.rawText(), null, null, null);
            case "Tag" -> {
                Map<String, String> tags = new LinkedHashMap<>();
                tag(c, tags);
                yield new Filter("", tags, null, null);
            }
            case "ObjectSizeGreaterThan" -> new Filter("", null, size(c), null);
            case "ObjectSizeLessThan" -> new Filter("", null, null, size(c));
            case "And" -> and(c);
            default -> throw malformed("unexpected element " + c.name() + " in Filter");
        };
    }

    private static Filter and(XmlElement and) {
        String prefix = "";
        Map<String, String> tags = new LinkedHashMap<>();
        Long greater = null;
        Long less = null;
        int prefixes = 0;
        for (XmlElement c : and.children()) {
            switch (c.name()) {
                case "Prefix" -> {
                    prefix = c.rawText();
                    prefixes++;
                }
                case "Tag" -> tag(c, tags);
                case "ObjectSizeGreaterThan" -> greater = size(c);
                case "ObjectSizeLessThan" -> less = size(c);
                default -> throw malformed("unexpected element " + c.name() + " in And");
            }
        }
        if (prefixes > 1) {
            throw malformed("more than one Prefix in And");
        }
        return new Filter(prefix, tags, greater, less);
    }

    private static void tag(XmlElement tag, Map<String, String> into) {
        only(tag, Set.of("Key", "Value"));
        String key = tag.child("Key").map(XmlElement::rawText).orElseThrow(() -> malformed("Tag without Key"));
        String value = tag.child("Value").map(XmlElement::rawText).orElse("");
        if (key.isEmpty() || key.length() > 128 || value.length() > 256) {
            throw new S3Exception(S3ErrorCode.InvalidTag, "The TagKey you have provided is invalid");
        }
        if (into.put(key, value) != null) {
            throw new S3Exception(S3ErrorCode.InvalidTag, "Duplicate Tag Keys are not allowed.");
        }
    }

    private static Expiration expiration(XmlElement e) {
        only(e, Set.of("Days", "Date", "ExpiredObjectDeleteMarker"));
        Integer days = integer(e, "Days").orElse(null);
        Instant date = e.childText("Date").map(LifecycleHandlers::date).orElse(null);
        Optional<String> marker = e.childText("ExpiredObjectDeleteMarker");
        if (marker.isPresent() && !marker.get().equals("true") && !marker.get().equals("false")) {
            throw malformed("ExpiredObjectDeleteMarker must be true or false");
        }
        if (days == null && date == null && marker.isEmpty()) {
            throw malformed("Expiration needs Days, Date or ExpiredObjectDeleteMarker");
        }
        if (days != null && date != null) {
            throw malformed("Expiration takes Days or Date, not both");
        }
        if (marker.isPresent() && (days != null || date != null)) {
            throw malformed("ExpiredObjectDeleteMarker cannot be specified with Days or Date in a Lifecycle"
                    + " Expiration Policy");
        }
        return new Expiration(days, date, marker.map("true"::equals).orElse(false));
    }

    private static NoncurrentExpiration noncurrent(XmlElement e) {
        only(e, Set.of("NoncurrentDays", "NewerNoncurrentVersions"));
        Integer days = integer(e, "NoncurrentDays").orElse(null);
        Integer newer = integer(e, "NewerNoncurrentVersions").orElse(null);
        if (days == null && newer == null) {
            throw malformed("NoncurrentVersionExpiration needs NoncurrentDays");
        }
        return new NoncurrentExpiration(days, newer);
    }

    private static void only(XmlElement e, Set<String> allowed) {
        for (XmlElement c : e.children()) {
            if (!allowed.contains(c.name())) {
                throw malformed("unexpected element " + c.name() + " in " + e.name());
            }
        }
    }

    private static Optional<Integer> integer(XmlElement parent, String name) {
        return parent.childText(name).map(text -> {
            try {
                return Integer.parseInt(text);
            } catch (NumberFormatException ex) {
                throw malformed(name + " is not an integer: " + text);
            }
        });
    }

    private static long size(XmlElement e) {
        try {
            return Long.parseLong(e.text());
        } catch (NumberFormatException ex) {
            throw malformed(e.name() + " is not an integer: " + e.text());
        }
    }

    /** ISO 8601 as clients send it: with an offset or Z, without one (UTC), or a bare date. */
    static Instant date(String text) {
        try {
            return OffsetDateTime.parse(text).toInstant();
        } catch (DateTimeException e) {
            // try the other forms
        }
        try {
            return LocalDateTime.parse(text).toInstant(ZoneOffset.UTC);
        } catch (DateTimeException e) {
            // try the other forms
        }
        try {
            return LocalDate.parse(text).atStartOfDay().toInstant(ZoneOffset.UTC);
        } catch (DateTimeException e) {
            throw new S3Exception(S3ErrorCode.InvalidArgument, "'Date' must be in ISO 8601 format");
        }
    }

    // ---------------------------------------------------------------------------------------------------- writing

    static byte[] toXml(LifecycleConfiguration c) {
        XmlWriter x = new XmlWriter().startDocument("LifecycleConfiguration");
        for (Rule r : c.rules()) {
            x.start("Rule").element("ID", r.id());
            filterXml(x, r.filter());
            x.element("Status", r.enabled() ? "Enabled" : "Disabled");
            Expiration e = r.expiration();
            if (e != null) {
                x.start("Expiration");
                if (e.days() != null) {
                    x.element("Days", e.days());
                }
                if (e.date() != null) {
                    x.element("Date", XmlWriter.formatTime(e.date()));
                }
                if (!e.expiresCurrent()) {
                    x.element("ExpiredObjectDeleteMarker", e.expiredObjectDeleteMarker());
                }
                x.end();
            }
            NoncurrentExpiration nc = r.noncurrentExpiration();
            if (nc != null) {
                x.start("NoncurrentVersionExpiration");
                if (nc.noncurrentDays() != null) {
                    x.element("NoncurrentDays", nc.noncurrentDays());
                }
                if (nc.newerNoncurrentVersions() != null) {
                    x.element("NewerNoncurrentVersions", nc.newerNoncurrentVersions());
                }
                x.end();
            }
            if (r.abortIncompleteUploadDays() != null) {
                x.start("AbortIncompleteMultipartUpload")
                        .element("DaysAfterInitiation", r.abortIncompleteUploadDays())
                        .end();
            }
            x.end();
        }
        return x.toBytes();
    }

    private static void filterXml(XmlWriter x, Filter f) {
        int conditions = (f.prefix().isEmpty() ? 0 : 1)
                + f.tags().size()
                + (f.sizeGreaterThan() == null ? 0 : 1)
                + (f.sizeLessThan() == null ? 0 : 1);
        x.start("Filter");
        if (conditions > 1) {
            x.start("And");
        }
        if (!f.prefix().isEmpty() || conditions == 0) {
            x.element("Prefix", f.prefix());
        }
        for (Map.Entry<String, String> t : new java.util.TreeMap<>(f.tags()).entrySet()) {
            x.start("Tag")
                    .element("Key", t.getKey())
                    .element("Value", t.getValue())
                    .end();
        }
        if (f.sizeGreaterThan() != null) {
            x.element("ObjectSizeGreaterThan", f.sizeGreaterThan());
        }
        if (f.sizeLessThan() != null) {
            x.element("ObjectSizeLessThan", f.sizeLessThan());
        }
        if (conditions > 1) {
            x.end();
        }
        x.end();
    }

    private static S3Exception malformed(String why) {
        return new S3Exception(S3ErrorCode.MalformedXML, S3ErrorCode.MalformedXML.defaultMessage() + " (" + why + ")");
    }
}
