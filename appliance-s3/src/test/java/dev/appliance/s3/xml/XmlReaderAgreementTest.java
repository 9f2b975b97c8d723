package dev.appliance.s3.xml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The hand reader of plain bodies builds exactly the tree StAX builds, and accepts nothing StAX refuses. */
class XmlReaderAgreementTest {
    private static final String NS = " xmlns=\"" + XmlWriter.S3_NS + "\"";
    private static final String DECL = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>";

    /** What clients send: the SDKs' forms, Veeam's (no namespace), indented and not. */
    private static final List<String> BODIES = List.of(
            "<Retention" + NS + "><Mode>COMPLIANCE</Mode><RetainUntilDate>2030-01-01T00:00:00.000Z</RetainUntilDate>"
                    + "</Retention>",
            DECL
                    + "<Retention><Mode>GOVERNANCE</Mode><RetainUntilDate>2030-01-01T00:00:00Z</RetainUntilDate></Retention>",
            DECL + "\n<LegalHold" + NS + ">\n  <Status>ON</Status>\n</LegalHold>\n",
            "<?xml version=\"1.0\"?><VersioningConfiguration" + NS
                    + "><Status>Enabled</Status></VersioningConfiguration>",
            "<Delete" + NS + "><Quiet>true</Quiet><Object><Key>a b/c.vbk</Key><VersionId>v1</VersionId></Object>"
                    + "<Object><Key>  spaced  </Key></Object></Delete>",
            "<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>\"abc\"</ETag></Part>"
                    + "<Part><PartNumber>2</PartNumber><ETag>\"def\"</ETag></Part></CompleteMultipartUpload>",
            "<ObjectLockConfiguration" + NS + "><ObjectLockEnabled>Enabled</ObjectLockEnabled><Rule><DefaultRetention>"
                    + "<Mode>COMPLIANCE</Mode><Days>30</Days></DefaultRetention></Rule></ObjectLockConfiguration>",
            "<Tagging><TagSet><Tag><Key>team</Key><Value>backup</Value></Tag></TagSet></Tagging>",
            "<CreateBucketConfiguration" + NS + "><LocationConstraint>us-east-1</LocationConstraint>"
                    + "</CreateBucketConfiguration>",
            "<A>text<B>one</B> more\ttext <C></C>end</A>",
            "<Empty></Empty>");

    private static void agree(String text) {
        XmlElement plain = PlainXml.parseOrNull(text, 16);
        if (plain == null) {
            return;
        }
        assertThatCode(() -> XmlReader.parseWithStax(text))
                .as("StAX reads what the plain reader read: %s", text)
                .doesNotThrowAnyException();
        assertThat(plain).as(text).isEqualTo(XmlReader.parseWithStax(text));
    }

    @Test
    void whatClientsSend_isReadByHand_intoStaxsTree() {
        for (String b : BODIES) {
            assertThat(PlainXml.parseOrNull(b, 16))
                    .as("taken by the plain reader: %s", b)
                    .isNotNull();
            agree(b);
        }
    }

    @Test
    void anythingBeyondPlain_isLeftToStax() {
        for (String b : List.of(
                "<A>&amp;</A>",
                "<A><!-- c --></A>",
                "<A><![CDATA[x]]></A>",
                "<A x=\"1\"></A>",
                "<s3:A xmlns:s3=\"" + XmlWriter.S3_NS + "\"></s3:A>",
                "<A xmlns=\"urn:other\"></A>",
                "<A/>",
                "<A>caf\u00e9</A>",
                "<A>a > b</A>",
                "<A>\r\n</A>",
                "<A>\u0001</A>",
                " " + DECL + "<A></A>",
                "<?xml version=\"1.1\"?><A></A>",
                "<!DOCTYPE A [<!ENTITY e \"x\">]><A>&e;</A>",
                "<A></B>",
                "<A></A><B></B>",
                "<A></A>x",
                "<A>",
                "")) {
            assertThat(PlainXml.parseOrNull(b, 16)).as(b).isNull();
        }
        String deep = "<A>".repeat(17) + "</A>".repeat(17);
        assertThat(PlainXml.parseOrNull(deep, 16)).as("deeper than the limit").isNull();
        assertThat(PlainXml.parseOrNull("<A>".repeat(16) + "</A>".repeat(16), 16))
                .isNotNull();
    }

    @Test
    void mutatedBodies_areNeverReadDifferently() {
        Random r = new Random(11);
        String alphabet = "<>/=\"' \n\t\r&;?!-[]xAZaz09:.\u00e9\u0001";
        List<String> inputs = new ArrayList<>();
        for (int i = 0; i < 40_000; i++) {
            StringBuilder b = new StringBuilder(BODIES.get(i % BODIES.size()));
            for (int m = 1 + r.nextInt(3); m > 0 && b.length() > 0; m--) {
                int at = r.nextInt(b.length());
                switch (r.nextInt(3)) {
                    case 0 -> b.setCharAt(at, alphabet.charAt(r.nextInt(alphabet.length())));
                    case 1 -> b.insert(at, alphabet.charAt(r.nextInt(alphabet.length())));
                    default -> b.deleteCharAt(at);
                }
            }
            inputs.add(b.toString());
        }
        int plain = 0;
        for (String s : inputs) {
            agree(s);
            if (PlainXml.parseOrNull(s, 16) != null) {
                plain++;
            }
        }
        assertThat(plain).as("the plain reader took a share of the mutations").isGreaterThan(2_000);
    }
}
