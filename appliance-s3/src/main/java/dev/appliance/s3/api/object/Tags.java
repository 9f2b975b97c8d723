package dev.appliance.s3.api.object;

import dev.appliance.s3.error.S3ErrorCode;
import dev.appliance.s3.error.S3Exception;
import dev.appliance.s3.xml.XmlElement;
import dev.appliance.s3.xml.XmlWriter;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.StringJoiner;

/**
 * Tag sets as S3 limits them (object: at most 10 tags; bucket: at most 50; keys 1-128 and values 0-256 characters,
 * keys unique), in their two wire forms: the {@code Tagging} XML document and the URL-encoded {@code x-amz-tagging}
 * header, which is also how object tags are stored ({@code x-amz-tagging} in the version's metadata).
 */
public final class Tags {
    public static final String STORED_KEY = "x-amz-tagging";
    public static final int MAX_OBJECT_TAGS = 10;
    public static final int MAX_BUCKET_TAGS = 50;

    private Tags() {}

    public static Map<String, String> fromXml(XmlElement doc, int maxTags) {
        if (!doc.name().equals("Tagging")) {
            throw new S3Exception(S3ErrorCode.MalformedXML);
        }
        XmlElement set = doc.child("TagSet").orElseThrow(() -> new S3Exception(S3ErrorCode.MalformedXML));
        Map<String, String> tags = new LinkedHashMap<>();
        for (XmlElement tag : set.children()) {
            if (!tag.name().equals("Tag")) {
                throw new S3Exception(S3ErrorCode.MalformedXML);
            }
            String k = tag.childText("Key").orElseThrow(() -> new S3Exception(S3ErrorCode.MalformedXML));
            String v = tag.childText("Value").orElse("");
            put(tags, k, v);
        }
        return check(tags, maxTags);
    }

    public static Map<String, String> fromHeader(String header, int maxTags) {
        Map<String, String> tags = new LinkedHashMap<>();
        if (header == null || header.isEmpty()) {
            return tags;
        }
        for (String pair : header.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            try {
                String k = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
                String v = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
                put(tags, k, v);
            } catch (IllegalArgumentException e) {
                throw new S3Exception(S3ErrorCode.InvalidArgument, "The header 'x-amz-tagging' is not URL-encoded");
            }
        }
        return check(tags, maxTags);
    }

    private static void put(Map<String, String> tags, String k, String v) {
        if (tags.put(k, v) != null) {
            throw new S3Exception(S3ErrorCode.InvalidTag, "Cannot provide multiple Tags with the same key: " + k);
        }
    }

    private static Map<String, String> check(Map<String, String> tags, int maxTags) {
        if (tags.size() > maxTags) {
            throw new S3Exception(S3ErrorCode.BadRequest, "Object tags cannot be greater than " + maxTags);
        }
        for (var e : tags.entrySet()) {
            if (e.getKey().isEmpty() || e.getKey().codePointCount(0, e.getKey().length()) > 128) {
                throw new S3Exception(S3ErrorCode.InvalidTag, "The TagKey you have provided is invalid");
            }
            if (e.getValue().codePointCount(0, e.getValue().length()) > 256) {
                throw new S3Exception(S3ErrorCode.InvalidTag, "The TagValue you have provided is invalid");
            }
        }
        return tags;
    }

    /** Stored sorted by key, so a tag set reads back in the same order however it was sent. */
    public static String toHeader(Map<String, String> tags) {
        StringJoiner j = new StringJoiner("&");
        new java.util.TreeMap<>(tags)
                .forEach((k, v) ->
                        j.add(URLEncoder.encode(k, StandardCharsets.UTF_8).replace("+", "%20") + "="
                                + URLEncoder.encode(v, StandardCharsets.UTF_8).replace("+", "%20")));
        return j.toString();
    }

    public static byte[] toXml(Map<String, String> tags) {
        XmlWriter x = new XmlWriter().startDocument("Tagging").start("TagSet");
        tags.forEach(
                (k, v) -> x.start("Tag").element("Key", k).element("Value", v).end());
        return x.end().end().toBytes();
    }
}
