package dev.appliance.s3.xml;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * A small streaming XML writer for S3 response bodies. Text is escaped ({@code & < > " '}); characters XML 1.0 cannot
 * carry literally (controls, CR) are written as numeric references. Not thread-safe; one per response.
 */
public final class XmlWriter {
    /** S3's document namespace. */
    public static final String S3_NS = "http://s3.amazonaws.com/doc/2006-03-01/";

    private static final DateTimeFormatter ISO_MILLIS =
            DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

    private final StringBuilder out = new StringBuilder(256);
    private final Deque<String> open = new ArrayDeque<>();

    public XmlWriter() {
        out.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    }

    /** Opens the root element with S3's namespace. */
    public XmlWriter startDocument(String root) {
        out.append('<').append(root).append(" xmlns=\"").append(S3_NS).append("\">");
        open.push(root);
        return this;
    }

    public XmlWriter start(String name) {
        out.append('<').append(name).append('>');
        open.push(name);
        return this;
    }

    /** Opens an element with attributes given as constant markup (never client text), e.g. {@code xsi:type="X"}. */
    public XmlWriter startWithAttributes(String name, String constantAttributes) {
        out.append('<').append(name).append(' ').append(constantAttributes).append('>');
        open.push(name);
        return this;
    }

    public XmlWriter end() {
        out.append("</").append(open.pop()).append('>');
        return this;
    }

    /** {@code <name>text</name>}; a null text writes nothing at all. */
    public XmlWriter element(String name, String text) {
        if (text != null) {
            out.append('<').append(name).append('>');
            escape(text, out);
            out.append("</").append(name).append('>');
        }
        return this;
    }

    public XmlWriter element(String name, long value) {
        return element(name, Long.toString(value));
    }

    public XmlWriter element(String name, boolean value) {
        return element(name, Boolean.toString(value));
    }

    public XmlWriter element(String name, Instant time) {
        return element(name, formatTime(time));
    }

    /** Closes every open element and returns the UTF-8 document. */
    public byte[] toBytes() {
        while (!open.isEmpty()) {
            end();
        }
        return out.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** S3's timestamp format in XML bodies: ISO-8601 UTC with milliseconds. */
    public static String formatTime(Instant time) {
        return ISO_MILLIS.format(time);
    }

    /** Appends {@code text} escaped for element content or attribute values. */
    public static void escape(String text, StringBuilder sb) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '&' -> sb.append("&amp;");
                case '<' -> sb.append("&lt;");
                case '>' -> sb.append("&gt;");
                case '"' -> sb.append("&quot;");
                case '\'' -> sb.append("&apos;");
                default -> {
                    if (c < 0x20 || c == 0x7f) {
                        sb.append("&#x")
                                .append(Integer.toHexString(c).toUpperCase(java.util.Locale.ROOT))
                                .append(';');
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
    }

    public static String escape(String text) {
        StringBuilder sb = new StringBuilder(text.length() + 8);
        escape(text, sb);
        return sb.toString();
    }
}
