package dev.appliance.s3.xml;

import dev.appliance.s3.error.S3ErrorCode;
import dev.appliance.s3.error.S3Exception;
import java.io.StringReader;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;

/**
 * Parses small S3 request bodies (versioning configuration, bucket configuration, DeleteObjects) into {@link XmlElement}s: plain
 * ones by hand ({@link PlainXml}), all others with the JDK's StAX parser, hardened: DTDs are not supported and any DOCTYPE is refused, external entities are off, so XXE and
 * entity-expansion payloads cannot work. Elements must be in S3's namespace or in none. Anything else is {@code
 * MalformedXML}.
 */
public final class XmlReader {
    /** Bodies larger than this are refused before parsing. */
    public static final int MAX_BODY = 64 * 1024;

    private static final int MAX_DEPTH = 16;
    /** Above any body this reader accepts (one expansion yields at least one character of a body byte's worth). */
    private static final int ENTITY_LIMIT = 64 * 1024 * 1024;

    private static final XMLInputFactory FACTORY = newFactory();

    private XmlReader() {}

    private static XMLInputFactory newFactory() {
        XMLInputFactory f = XMLInputFactory.newDefaultFactory();
        f.setProperty(XMLInputFactory.SUPPORT_DTD, false);
        f.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
        f.setProperty(XMLInputFactory.IS_REPLACING_ENTITY_REFERENCES, false);
        f.setProperty(XMLInputFactory.IS_COALESCING, true);
        f.setProperty(XMLInputFactory.IS_NAMESPACE_AWARE, true);
        // With DTDs refused, the only references left are the predefined entities (&amp; ...) and character
        // references, which the body size bounds; the JDK's default limits on them (100,000 characters) would refuse a
        // legitimate DeleteObjects body of long escaped keys.
        for (String limit : List.of(
                "jdk.xml.entityExpansionLimit", "jdk.xml.maxGeneralEntitySizeLimit", "jdk.xml.totalEntitySizeLimit")) {
            f.setProperty(limit, String.valueOf(ENTITY_LIMIT));
        }
        return f;
    }

    /** The document's root element; bodies over {@link #MAX_BODY} are refused. */
    public static XmlElement parse(byte[] body) {
        return parse(body, MAX_BODY);
    }

    /** The document's root element; bodies over {@code maxBody} bytes are refused. */
    public static XmlElement parse(byte[] body, int maxBody) {
        if (body.length > maxBody) {
            throw malformed("body larger than " + maxBody + " bytes");
        }
        String text = utf8(body);
        XmlElement plain = PlainXml.parseOrNull(text, MAX_DEPTH);
        return plain != null ? plain : parseWithStax(text);
    }

    /** The reference reader: StAX, hardened as above; what {@link PlainXml} must agree with. */
    static XmlElement parseWithStax(String text) {
        XMLStreamReader r = null;
        try {
            r = FACTORY.createXMLStreamReader(new StringReader(text));
            Deque<Builder> stack = new ArrayDeque<>();
            XmlElement root = null;
            while (r.hasNext()) {
                int event = r.next();
                switch (event) {
                    case XMLStreamConstants.DTD,
                            XMLStreamConstants.ENTITY_REFERENCE,
                            XMLStreamConstants.ENTITY_DECLARATION ->
                        throw malformed("DTDs and entities are not allowed");
                    case XMLStreamConstants.START_ELEMENT -> {
                        String ns = r.getNamespaceURI();
                        if (ns != null && !ns.isEmpty() && !ns.equals(XmlWriter.S3_NS)) {
                            throw malformed("unexpected namespace " + ns);
                        }
                        if (root != null || stack.size() >= MAX_DEPTH) {
                            throw malformed("unexpected element " + r.getLocalName());
                        }
                        stack.push(new Builder(r.getLocalName()));
                    }
                    case XMLStreamConstants.CHARACTERS, XMLStreamConstants.CDATA, XMLStreamConstants.SPACE -> {
                        if (!stack.isEmpty()) {
                            stack.peek().text.append(r.getText());
                        } else if (!r.isWhiteSpace()) {
                            throw malformed("text outside the root element");
                        }
                    }
                    case XMLStreamConstants.END_ELEMENT -> {
                        XmlElement done = stack.pop().build();
                        if (stack.isEmpty()) {
                            root = done;
                        } else {
                            stack.peek().children.add(done);
                        }
                    }
                    default -> {
                        // comments, processing instructions, document end: nothing to keep
                    }
                }
            }
            if (root == null) {
                throw malformed("no root element");
            }
            return root;
        } catch (XMLStreamException | RuntimeException e) {
            if (e instanceof S3Exception s3) {
                throw s3;
            }
            throw new S3Exception(S3ErrorCode.MalformedXML, null, e);
        } finally {
            if (r != null) {
                try {
                    r.close();
                } catch (XMLStreamException ignored) {
                    // nothing held beyond the byte array
                }
            }
        }
    }

    /**
     * The body as text: S3 bodies are UTF-8 (a leading byte order mark is dropped). Decoding here, strictly, rather than
     * in the parser keeps the JDK parser from printing its own report of bad bytes to stderr.
     */
    private static String utf8(byte[] body) {
        try {
            String text = StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(body))
                    .toString();
            return text.startsWith("\uFEFF") ? text.substring(1) : text;
        } catch (CharacterCodingException e) {
            throw malformed("the body is not UTF-8");
        }
    }

    private static S3Exception malformed(String why) {
        return new S3Exception(S3ErrorCode.MalformedXML, S3ErrorCode.MalformedXML.defaultMessage() + " (" + why + ")");
    }

    private static final class Builder {
        final String name;
        final StringBuilder text = new StringBuilder();
        final List<XmlElement> children = new ArrayList<>();

        Builder(String name) {
            this.name = name;
        }

        XmlElement build() {
            String raw = text.toString();
            return new XmlElement(name, raw.strip(), raw, children);
        }
    }
}
