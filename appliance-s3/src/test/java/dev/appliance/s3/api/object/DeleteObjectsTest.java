package dev.appliance.s3.api.object;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.appliance.core.DeleteResult;
import dev.appliance.s3.api.object.DeleteObjects.Deleted;
import dev.appliance.s3.api.object.DeleteObjects.Entry;
import dev.appliance.s3.api.object.DeleteObjects.Failed;
import dev.appliance.s3.api.object.DeleteObjects.Request;
import dev.appliance.s3.error.S3ErrorCode;
import dev.appliance.s3.error.S3Exception;
import dev.appliance.s3.xml.XmlReader;
import dev.appliance.s3.xml.XmlWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class DeleteObjectsTest {
    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static S3ErrorCode codeOf(String doc) {
        try {
            DeleteObjects.parse(utf8(doc));
        } catch (S3Exception e) {
            return e.code();
        }
        throw new AssertionError("parsed: " + doc);
    }

    @Test
    void parse_withS3Namespace_quietAndVersionIds() {
        Request r = DeleteObjects.parse(utf8("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Delete xmlns=\""
                + XmlWriter.S3_NS + "\"><Quiet>true</Quiet>"
                + "<Object><Key>a</Key></Object>"
                + "<Object><Key>b/c</Key><VersionId>0c5d5c2e-6b0e-4c9f-9d2c-2f6b3c7c1a00</VersionId></Object>"
                + "</Delete>"));
        assertThat(r.quiet()).isTrue();
        assertThat(r.objects())
                .containsExactly(new Entry("a", null), new Entry("b/c", "0c5d5c2e-6b0e-4c9f-9d2c-2f6b3c7c1a00"));
    }

    @Test
    void parse_withoutNamespace_notQuietByDefault() {
        Request r = DeleteObjects.parse(utf8("<Delete>\n  <Object>\n    <Key>x</Key>\n  </Object>\n</Delete>"));
        assertThat(r.quiet()).isFalse();
        assertThat(r.objects()).containsExactly(new Entry("x", null));
        assertThat(DeleteObjects.parse(utf8("<Delete><Quiet>False</Quiet><Object><Key>x</Key></Object></Delete>"))
                        .quiet())
                .isFalse();
    }

    @Test
    void parse_keysKeepEveryCharacterExactly() {
        String key = "  lead & trail <x> \"q\" 'a' €\uD83D\uDE00 tab\there  ";
        String escaped = XmlWriter.escape(key).replace("&#x9;", "&#9;");
        Request r = DeleteObjects.parse(utf8("<Delete><Object><Key>" + escaped + "</Key></Object>"
                + "<Object><Key><![CDATA[cdata<&>]]></Key></Object>"
                + "<Object><Key>cr&#13;lf&#10;</Key></Object></Delete>"));
        assertThat(r.objects()).extracting(Entry::key).containsExactly(key, "cdata<&>", "cr\rlf\n");
    }

    @Test
    void parse_thousandKeysAccepted_thousandAndOneMalformed() {
        StringBuilder sb = new StringBuilder("<Delete>");
        for (int i = 0; i < 1000; i++) {
            sb.append("<Object><Key>k").append(i).append("</Key></Object>");
        }
        assertThat(DeleteObjects.parse(utf8(sb + "</Delete>")).objects()).hasSize(1000);
        sb.append("<Object><Key>one-too-many</Key></Object></Delete>");
        assertThat(codeOf(sb.toString())).isEqualTo(S3ErrorCode.MalformedXML);
    }

    @Test
    void parse_thousandLongKeysFitTheBodyLimit() {
        StringBuilder sb = new StringBuilder("<Delete>");
        String key = "&amp;".repeat(1024);
        for (int i = 0; i < 1000; i++) {
            sb.append("<Object><Key>")
                    .append(key)
                    .append("</Key><VersionId>")
                    .append("0c5d5c2e-6b0e-4c9f-9d2c-2f6b3c7c1a00")
                    .append("</VersionId></Object>");
        }
        byte[] body = utf8(sb + "</Delete>");
        assertThat(body.length).isGreaterThan(XmlReader.MAX_BODY).isLessThan(DeleteObjects.MAX_BODY);
        assertThat(DeleteObjects.parse(body).objects()).hasSize(1000).allMatch(e -> e.key()
                .equals("&".repeat(1024)));
    }

    @Test
    void parse_refusesMalformedDocuments() {
        for (String doc : List.of(
                "",
                "<Delete></Delete>",
                "<Delete><Quiet>true</Quiet></Delete>",
                "<Remove><Object><Key>a</Key></Object></Remove>",
                "<Delete><Object><VersionId>v</VersionId></Object></Delete>",
                "<Delete><Object><Key>a</Key><Key>b</Key></Object></Delete>",
                "<Delete><Object><Key>a</Key><VersionId>1</VersionId><VersionId>2</VersionId></Object></Delete>",
                "<Delete><Object><Key>a</Key><Color>red</Color></Object></Delete>",
                "<Delete><Quiet>yes</Quiet><Object><Key>a</Key></Object></Delete>",
                "<Delete><Quiet>true</Quiet><Quiet>true</Quiet><Object><Key>a</Key></Object></Delete>",
                "<Delete><Object><Key>a<b/></Key></Object></Delete>",
                "<Delete><Bogus/><Object><Key>a</Key></Object></Delete>",
                "<Delete xmlns=\"urn:other\"><Object><Key>a</Key></Object></Delete>",
                "<Delete><Object><Key>a</Key></Object>",
                "<!DOCTYPE d [<!ENTITY e \"x\">]><Delete><Object><Key>&e;</Key></Object></Delete>")) {
            assertThat(codeOf(doc)).as(doc).isEqualTo(S3ErrorCode.MalformedXML);
        }
    }

    @Test
    void parse_conditionalDeleteFieldsAreNotImplemented() {
        assertThat(codeOf("<Delete><Object><Key>a</Key><ETag>\"x\"</ETag></Object></Delete>"))
                .isEqualTo(S3ErrorCode.NotImplemented);
    }

    @Test
    void parse_emptyVersionIdMeansNone() {
        assertThat(DeleteObjects.parse(utf8("<Delete><Object><Key>a</Key><VersionId/></Object></Delete>"))
                        .objects())
                .containsExactly(new Entry("a", null));
    }

    @Test
    void deleted_shapesEngineResultsAsS3Does() {
        String v = "0c5d5c2e-6b0e-4c9f-9d2c-2f6b3c7c1a00";
        // unversioned bucket: nothing but the key
        assertThat(DeleteObjects.deleted(new Entry("k", null), new DeleteResult(null, false)))
                .isEqualTo(new Deleted("k", null, false, null));
        // versioned, no version id: a marker was created
        assertThat(DeleteObjects.deleted(new Entry("k", null), new DeleteResult(v, true)))
                .isEqualTo(new Deleted("k", null, true, v));
        // a named version removed
        assertThat(DeleteObjects.deleted(new Entry("k", v), new DeleteResult(v, false)))
                .isEqualTo(new Deleted("k", v, false, null));
        // a named delete marker removed
        assertThat(DeleteObjects.deleted(new Entry("k", v), new DeleteResult(v, true)))
                .isEqualTo(new Deleted("k", v, true, v));
    }

    @Test
    void render_verboseListsDeletedAndErrorsInRequestOrder() {
        String doc = new String(
                DeleteObjects.render(
                        List.of(
                                new Deleted("a&b", null, false, null),
                                new Failed("bad//key", null, S3ErrorCode.InvalidObjectName, "bad <key>"),
                                new Deleted("m", null, true, "v1"),
                                new Deleted("n", "v2", false, null)),
                        false),
                StandardCharsets.UTF_8);
        assertThat(doc)
                .isEqualTo("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<DeleteResult xmlns=\"" + XmlWriter.S3_NS
                        + "\">"
                        + "<Deleted><Key>a&amp;b</Key></Deleted>"
                        + "<Error><Key>bad//key</Key><Code>InvalidObjectName</Code><Message>bad &lt;key&gt;</Message>"
                        + "</Error>"
                        + "<Deleted><Key>m</Key><DeleteMarker>true</DeleteMarker>"
                        + "<DeleteMarkerVersionId>v1</DeleteMarkerVersionId></Deleted>"
                        + "<Deleted><Key>n</Key><VersionId>v2</VersionId></Deleted>"
                        + "</DeleteResult>");
    }

    @Test
    void render_quietListsOnlyErrors() {
        String doc = new String(
                DeleteObjects.render(
                        List.of(
                                new Deleted("a", null, false, null),
                                new Failed("b", "v9", S3ErrorCode.AccessDenied, "Access Denied.")),
                        true),
                StandardCharsets.UTF_8);
        assertThat(doc)
                .doesNotContain("<Deleted>")
                .contains("<Error><Key>b</Key><VersionId>v9</VersionId><Code>AccessDenied</Code>"
                        + "<Message>Access Denied.</Message></Error>");
        assertThat(new String(
                        DeleteObjects.render(List.of(new Deleted("a", null, false, null)), true),
                        StandardCharsets.UTF_8))
                .endsWith("<DeleteResult xmlns=\"" + XmlWriter.S3_NS + "\"></DeleteResult>");
    }

    @Test
    void parse_characterReferencesXml10Forbids_areMalformed() {
        // XML 1.0 has no way to carry U+0001; such a key cannot be named in a DeleteObjects body
        assertThat(codeOf("<Delete><Object><Key>a&#1;</Key></Object></Delete>")).isEqualTo(S3ErrorCode.MalformedXML);
        assertThatThrownBy(() -> DeleteObjects.parse(utf8("<Delete><Object><Key>a\u0001</Key></Object></Delete>")))
                .isInstanceOf(S3Exception.class);
    }
}
