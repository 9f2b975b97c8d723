package dev.appliance.s3.xml;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Optional;

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
}
