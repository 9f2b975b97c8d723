package dev.appliance.s3.xml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.appliance.s3.error.S3ErrorCode;
import dev.appliance.s3.error.S3Exception;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class XmlTest {
    @Test
    void writer_escapesMarkupQuotesAndControlCharacters() {
        String doc = new String(
                new XmlWriter()
                        .startDocument("R")
                        .element("Key", "a<b>&\"c'\u0001\r\n€")
                        .element("Absent", (String) null)
                        .toBytes(),
                StandardCharsets.UTF_8);
        assertThat(doc)
                .isEqualTo("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<R xmlns=\"" + XmlWriter.S3_NS
                        + "\"><Key>a&lt;b&gt;&amp;&quot;c&apos;&#x1;&#xD;&#xA;€</Key></R>");
    }

    @Test
    void reader_acceptsS3NamespaceOrNone() {
        XmlElement a = XmlReader.parse(bytes("<VersioningConfiguration xmlns=\"" + XmlWriter.S3_NS
                + "\"><Status>Enabled</Status></VersioningConfiguration>"));
        XmlElement b = XmlReader.parse(
                bytes("<VersioningConfiguration><Status> Suspended </Status></VersioningConfiguration>"));
        assertThat(a.childText("Status")).contains("Enabled");
        assertThat(b.childText("Status")).contains("Suspended");
    }

    @Test
    void reader_refusesOtherNamespacesAndBrokenXml() {
        assertMalformed("<V xmlns=\"urn:other\"><Status>Enabled</Status></V>");
        assertMalformed("<V><Status>Enabled</V>");
        assertMalformed("");
    }

    @Test
    void reader_refusesXxeAndEntityExpansion() {
        assertMalformed("<?xml version=\"1.0\"?><!DOCTYPE V [<!ENTITY xxe SYSTEM \"file:///etc/passwd\">]>"
                + "<V><Status>&xxe;</Status></V>");
        assertMalformed("<?xml version=\"1.0\"?><!DOCTYPE V [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b \"&a;&a;&a;&a;\">]>"
                + "<V><Status>&b;</Status></V>");
        assertMalformed("<!DOCTYPE V SYSTEM \"http://example.invalid/x.dtd\"><V/>");
    }

    @Test
    void reader_bodiesAreUtf8_withOptionalByteOrderMark() {
        byte[] bom = bytes("\uFEFF<V><Status>Enabled €</Status></V>");
        assertThat(bom[0]).isEqualTo((byte) 0xEF);
        assertThat(XmlReader.parse(bom).childText("Status")).contains("Enabled €");
        byte[] latin1 = "<V><Status>caf\u00e9</Status></V>".getBytes(StandardCharsets.ISO_8859_1);
        assertThatThrownBy(() -> XmlReader.parse(latin1))
                .isInstanceOf(S3Exception.class)
                .hasMessageContaining("not UTF-8");
    }

    @Test
    void reader_keepsRawTextBesideStrippedText() {
        XmlElement key = XmlReader.parse(bytes("<D><Key>  a b \t</Key></D>"))
                .child("Key")
                .orElseThrow();
        assertThat(key.text()).isEqualTo("a b");
        assertThat(key.rawText()).isEqualTo("  a b \t");
    }

    private static void assertMalformed(String xml) {
        assertThatThrownBy(() -> XmlReader.parse(bytes(xml)))
                .isInstanceOf(S3Exception.class)
                .extracting(e -> ((S3Exception) e).code())
                .isEqualTo(S3ErrorCode.MalformedXML);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
