package dev.appliance.s3.xml;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.appliance.s3.api.object.DeleteObjects;
import dev.appliance.s3.error.S3ErrorCode;
import dev.appliance.s3.error.S3Exception;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Fuzzes the request-body XML reader with the three documents it reads (VersioningConfiguration,
 * CreateBucketConfiguration, Delete): arbitrary bytes yield an element tree or {@code MalformedXML}, never another
 * exception, and a body the plain reader takes is read alike by StAX; and a Delete document written from fuzzed keys (any character XML 1.0 can carry) parses back to exactly
 * those keys.
 */
class XmlReaderFuzzTest {
    private static final List<String> TEMPLATES = List.of(
            "<VersioningConfiguration xmlns=\"" + XmlWriter.S3_NS + "\"><Status>%s</Status></VersioningConfiguration>",
            "<CreateBucketConfiguration><LocationConstraint>%s</LocationConstraint></CreateBucketConfiguration>",
            "<Delete><Quiet>%s</Quiet><Object><Key>k</Key></Object></Delete>",
            "<Delete><Object><Key>%s</Key><VersionId>v</VersionId></Object></Delete>",
            "%s");

    @FuzzTest
    void readerAcceptsOrRefusesAsMalformedXml(FuzzedDataProvider data) {
        int mode = data.consumeInt(0, 2);
        if (mode == 2) {
            deleteRoundTrip(data);
            return;
        }
        byte[] body;
        if (mode == 0) {
            body = data.consumeRemainingAsBytes();
        } else {
            String template = TEMPLATES.get(data.consumeInt(0, TEMPLATES.size() - 1));
            body = String.format(template, data.consumeRemainingAsString()).getBytes(StandardCharsets.UTF_8);
        }
        String text = new String(body, StandardCharsets.UTF_8);
        XmlElement plain = PlainXml.parseOrNull(text, 16);
        if (plain != null) {
            assertThat(XmlReader.parseWithStax(text))
                    .as("StAX reads the plain body alike")
                    .isEqualTo(plain);
        }
        XmlElement root;
        try {
            root = XmlReader.parse(body);
        } catch (S3Exception e) {
            assertThat(e.code()).isEqualTo(S3ErrorCode.MalformedXML);
            return;
        }
        assertThat(root.name()).isNotEmpty();
        assertThat(depth(root)).isLessThanOrEqualTo(16);
        assertTree(root);
        try {
            DeleteObjects.Request r = DeleteObjects.parse(body);
            assertThat(r.objects()).isNotEmpty().hasSizeLessThanOrEqualTo(DeleteObjects.MAX_KEYS);
        } catch (S3Exception e) {
            assertThat(e.code()).isIn(S3ErrorCode.MalformedXML, S3ErrorCode.NotImplemented);
        }
    }

    /** Keys of any XML-1.0 character, escaped as the writer escapes them, come back exactly. */
    private static void deleteRoundTrip(FuzzedDataProvider data) {
        int n = data.consumeInt(1, 20);
        List<String> keys = new ArrayList<>();
        StringBuilder doc = new StringBuilder("<Delete xmlns=\"" + XmlWriter.S3_NS + "\">");
        for (int i = 0; i < n && data.remainingBytes() > 0; i++) {
            String key = xmlChars(data.consumeString(64));
            keys.add(key);
            doc.append("<Object><Key>").append(XmlWriter.escape(key)).append("</Key></Object>");
        }
        if (keys.isEmpty()) {
            return;
        }
        doc.append("</Delete>");
        DeleteObjects.Request r = DeleteObjects.parse(doc.toString().getBytes(StandardCharsets.UTF_8));
        assertThat(r.objects()).extracting(DeleteObjects.Entry::key).containsExactlyElementsOf(keys);
    }

    /** {@code s} without the characters XML 1.0 cannot carry (controls but TAB, LF, CR; lone surrogates; U+FFFE/F). */
    private static String xmlChars(String s) {
        StringBuilder sb = new StringBuilder(s.length());
        s.codePoints().forEach(c -> {
            boolean ok = c == 0x9
                    || c == 0xA
                    || c == 0xD
                    || (c >= 0x20 && c <= 0xD7FF)
                    || (c >= 0xE000 && c <= 0xFFFD)
                    || c >= 0x10000;
            if (ok) {
                sb.appendCodePoint(c);
            }
        });
        return sb.toString();
    }

    private static int depth(XmlElement e) {
        int d = 0;
        for (XmlElement c : e.children()) {
            d = Math.max(d, depth(c));
        }
        return d + 1;
    }

    private static void assertTree(XmlElement e) {
        assertThat(e.rawText().strip()).isEqualTo(e.text());
        e.children().forEach(XmlReaderFuzzTest::assertTree);
    }
}
