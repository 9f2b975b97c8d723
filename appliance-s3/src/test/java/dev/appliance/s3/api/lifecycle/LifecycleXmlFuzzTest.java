package dev.appliance.s3.api.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.appliance.core.error.ErrorKind;
import dev.appliance.core.error.StorageException;
import dev.appliance.core.lifecycle.LifecycleConfiguration;
import dev.appliance.s3.error.S3ErrorCode;
import dev.appliance.s3.error.S3Exception;
import dev.appliance.s3.xml.XmlReader;
import dev.appliance.s3.xml.XmlWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Fuzzes the lifecycle XML: a document built from fuzzed rule parts (or arbitrary bytes) is either accepted, and then
 * written back and read again to the same configuration, or refused with an S3 client error, never another exception.
 */
class LifecycleXmlFuzzTest {
    private static final List<String> PARTS = List.of(
            "<ID>%s</ID>",
            "<Status>%s</Status>",
            "<Prefix>%s</Prefix>",
            "<Filter><Prefix>%s</Prefix></Filter>",
            "<Filter><Tag><Key>%s</Key><Value>v</Value></Tag></Filter>",
            "<Filter><And><Prefix>p</Prefix><ObjectSizeGreaterThan>%s</ObjectSizeGreaterThan></And></Filter>",
            "<Filter><ObjectSizeLessThan>%s</ObjectSizeLessThan></Filter>",
            "<Filter></Filter>",
            "<Expiration><Days>%s</Days></Expiration>",
            "<Expiration><Date>%s</Date></Expiration>",
            "<Expiration><ExpiredObjectDeleteMarker>%s</ExpiredObjectDeleteMarker></Expiration>",
            "<NoncurrentVersionExpiration><NoncurrentDays>%s</NoncurrentDays></NoncurrentVersionExpiration>",
            "<NoncurrentVersionExpiration><NewerNoncurrentVersions>%s</NewerNoncurrentVersions>"
                    + "<NoncurrentDays>1</NoncurrentDays></NoncurrentVersionExpiration>",
            "<AbortIncompleteMultipartUpload><DaysAfterInitiation>%s</DaysAfterInitiation>"
                    + "</AbortIncompleteMultipartUpload>",
            "<Transition><Days>%s</Days></Transition>",
            "%s");
    private static final List<String> VALUES = List.of(
            "1",
            "0",
            "-1",
            "30",
            "Enabled",
            "Disabled",
            "true",
            "false",
            "2030-01-01T00:00:00Z",
            "2030-01-01T01:00:00Z",
            "2030-01-01",
            "",
            "logs/",
            "x".repeat(300),
            "99999999999999999999");

    @FuzzTest
    void parseAcceptsAndRoundTrips_orRefusesWithAClientError(FuzzedDataProvider data) {
        byte[] body;
        if (data.consumeBoolean()) {
            StringBuilder doc = new StringBuilder("<LifecycleConfiguration xmlns=\"" + XmlWriter.S3_NS + "\">");
            int rules = data.consumeInt(0, 4);
            for (int r = 0; r < rules; r++) {
                doc.append("<Rule>");
                int parts = data.consumeInt(0, 6);
                for (int p = 0; p < parts; p++) {
                    String part = PARTS.get(data.consumeInt(0, PARTS.size() - 1));
                    String value = data.consumeBoolean()
                            ? VALUES.get(data.consumeInt(0, VALUES.size() - 1))
                            : XmlWriter.escape(data.consumeString(40));
                    doc.append(part.replace("%s", value));
                }
                doc.append("</Rule>");
            }
            body = doc.append("</LifecycleConfiguration>").toString().getBytes(StandardCharsets.UTF_8);
        } else {
            body = data.consumeRemainingAsBytes();
        }
        LifecycleConfiguration parsed;
        try {
            parsed = LifecycleHandlers.parse(XmlReader.parse(body, LifecycleHandlers.MAX_BODY));
        } catch (S3Exception e) {
            assertThat(e.code().status()).isBetween(400, 501);
            assertThat(e.code()).isNotEqualTo(S3ErrorCode.InternalError);
            return;
        } catch (StorageException e) {
            assertThat(e.kind()).isIn(ErrorKind.INVALID_ARGUMENT, ErrorKind.INVALID_REQUEST);
            return;
        }
        LifecycleConfiguration again =
                LifecycleHandlers.parse(XmlReader.parse(LifecycleHandlers.toXml(parsed), LifecycleHandlers.MAX_BODY));
        assertThat(again).isEqualTo(parsed);
    }
}
