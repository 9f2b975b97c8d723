package dev.appliance.s3.xml;

import java.util.ArrayList;
import java.util.List;

/**
 * Reads the plain bodies that clients send nearly always (a Retention, a LegalHold, a Delete of ASCII keys) without
 * the JDK's StAX parser: elements of ASCII letters and digits, an optional {@code xmlns} naming S3's namespace, ASCII
 * text without references, and one of two XML declarations.
 *
 * <p>Why: creating a StAX reader per request took about 5 % of the server's Java time on PutObjectRetention, more than
 * the rest of parsing such a body. Anything outside that plain form (a reference, a comment, a CDATA section, an
 * attribute, a prefix, a character outside printable ASCII, {@code >} in text, a self-closed element) returns null, and
 * {@link XmlReader} parses the body with StAX, which judges it. So this path never refuses and never accepts anything
 * StAX would not; where it accepts, it builds the same tree ({@code XmlReaderAgreementTest}).
 */
final class PlainXml {
    private static final String XMLNS = " xmlns=\"" + XmlWriter.S3_NS + "\"";
    private static final List<String> DECLARATIONS =
            List.of("<?xml version=\"1.0\" encoding=\"UTF-8\"?>", "<?xml version=\"1.0\"?>");

    private final String s;
    private int i;

    private PlainXml(String s) {
        this.s = s;
    }

    /** The root element of {@code text} when it is in the plain form; null to let StAX read it. */
    static XmlElement parseOrNull(String text, int maxDepth) {
        return new PlainXml(text).document(maxDepth);
    }

    private XmlElement document(int maxDepth) {
        for (String d : DECLARATIONS) {
            if (s.startsWith(d)) {
                i = d.length();
                break;
            }
        }
        skipSpace();
        XmlElement root = element(1, maxDepth);
        if (root == null) {
            return null;
        }
        skipSpace();
        return i == s.length() ? root : null;
    }

    /** The element at {@code i}, with everything inside it, or null when any of it is not plain. */
    private XmlElement element(int depth, int maxDepth) {
        if (depth > maxDepth || !at('<')) {
            return null;
        }
        i++;
        String name = name();
        if (name == null) {
            return null;
        }
        if (s.startsWith(XMLNS, i)) {
            i += XMLNS.length();
        }
        if (!at('>')) {
            return null;
        }
        i++;
        StringBuilder text = new StringBuilder();
        List<XmlElement> children = new ArrayList<>();
        while (true) {
            int start = i;
            while (i < s.length() && plainText(s.charAt(i))) {
                i++;
            }
            text.append(s, start, i);
            if (!at('<')) {
                return null; // the end of the input, or a character StAX must judge
            }
            if (i + 1 < s.length() && s.charAt(i + 1) == '/') {
                i += 2;
                if (!name.equals(name()) || !at('>')) {
                    return null;
                }
                i++;
                String raw = text.toString();
                return new XmlElement(name, raw.strip(), raw, children);
            }
            XmlElement child = element(depth + 1, maxDepth);
            if (child == null) {
                return null;
            }
            children.add(child);
        }
    }

    /** A name of ASCII letters and digits, starting with a letter; null if there is none. */
    private String name() {
        int start = i;
        while (i < s.length()) {
            char c = s.charAt(i);
            boolean letter = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
            if (!(letter || (i > start && c >= '0' && c <= '9'))) {
                break;
            }
            i++;
        }
        return i > start ? s.substring(start, i) : null;
    }

    /** Printable ASCII other than markup and references, and the two whitespace controls XML keeps as they are. */
    private static boolean plainText(char c) {
        return (c >= 0x20 && c < 0x7f && c != '<' && c != '&' && c != '>') || c == '\n' || c == '\t';
    }

    private boolean at(char c) {
        return i < s.length() && s.charAt(i) == c;
    }

    private void skipSpace() {
        while (i < s.length() && (s.charAt(i) == ' ' || s.charAt(i) == '\n' || s.charAt(i) == '\t')) {
            i++;
        }
    }
}
