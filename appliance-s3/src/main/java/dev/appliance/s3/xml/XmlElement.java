package dev.appliance.s3.xml;

import static java.util.Objects.requireNonNull;

import dev.appliance.s3.error.S3ErrorCode;
import dev.appliance.s3.error.S3Exception;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * One parsed element of a request body: local name, trimmed text, children in document order.
 *
 * @param text the element's character content, stripped of leading and trailing whitespace
 * @param rawText the same content exactly as sent (object keys may begin or end with spaces)
 */
public record XmlElement(String name, String text, String rawText, List<XmlElement> children) {
    public XmlElement {
        requireNonNull(name, "name");
        text = text == null ? "" : text;
        rawText = rawText == null ? text : rawText;
        children = List.copyOf(children);
    }

    /** An element whose raw text is its text. */
    public XmlElement(String name, String text, List<XmlElement> children) {
        this(name, text, text, children);
    }

    /** The first child called {@code childName}. */
    public Optional<XmlElement> child(String childName) {
        return children.stream().filter(c -> c.name.equals(childName)).findFirst();
    }

    /** Text of the first child called {@code childName}. */
    public Optional<String> childText(String childName) {
        return child(childName).map(XmlElement::text);
    }

    /**
     * Refuses ({@code MalformedXML}) a child not named in {@code allowed}, a child named twice, and a child with
     * elements of its own when it is one of {@code leaves}: so a body never means "the first value wins", as
     * DeleteObjects parses its own. Returns this element.
     */
    public XmlElement requireOnly(Set<String> allowed, Set<String> leaves) {
        Set<String> seen = new HashSet<>();
        for (XmlElement c : children) {
            if (!allowed.contains(c.name)) {
                throw malformed("unexpected element " + c.name + " in " + name);
            }
            if (!seen.add(c.name)) {
                throw malformed(c.name + " given twice in " + name);
            }
            if (leaves.contains(c.name) && !c.children.isEmpty()) {
                throw malformed(c.name + " must be text");
            }
        }
        return this;
    }

    private static S3Exception malformed(String why) {
        return new S3Exception(S3ErrorCode.MalformedXML, S3ErrorCode.MalformedXML.defaultMessage() + " (" + why + ")");
    }
}
