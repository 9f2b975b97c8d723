package dev.appliance.s3.api.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import dev.appliance.core.lifecycle.Lifecycle;
import dev.appliance.core.lifecycle.LifecycleConfiguration;
import dev.appliance.s3.xml.XmlReader;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The lifecycle XML both ways, and the x-amz-expiration header's exact form. */
class LifecycleHandlersTest {
    private static LifecycleConfiguration parse(String xml) {
        return LifecycleHandlers.parse(XmlReader.parse(xml.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void everyFilterForm_parsesAndIsWrittenBack() {
        LifecycleConfiguration c = parse("<LifecycleConfiguration>"
                + "<Rule><ID>a</ID><Prefix> spaced/ </Prefix><Status>Enabled</Status>"
                + "<Expiration><Days>3</Days></Expiration></Rule>"
                + "<Rule><ID>b</ID><Filter><And><Prefix>p/</Prefix><Tag><Key>k1</Key><Value>v1</Value></Tag>"
                + "<Tag><Key>k2</Key><Value></Value></Tag><ObjectSizeLessThan>100</ObjectSizeLessThan></And></Filter>"
                + "<Status>Disabled</Status><NoncurrentVersionExpiration><NoncurrentDays>2</NoncurrentDays>"
                + "</NoncurrentVersionExpiration></Rule>"
                + "<Rule><Filter/><Status>Enabled</Status><AbortIncompleteMultipartUpload>"
                + "<DaysAfterInitiation>7</DaysAfterInitiation></AbortIncompleteMultipartUpload></Rule>"
                + "</LifecycleConfiguration>");
        assertThat(c.rules()).hasSize(3);
        assertThat(c.rules().get(0).filter().prefix()).isEqualTo(" spaced/ ");
        assertThat(c.rules().get(1).filter().tags()).containsOnlyKeys("k1", "k2");
        assertThat(c.rules().get(1).filter().sizeLessThan()).isEqualTo(100L);
        assertThat(c.rules().get(1).enabled()).isFalse();
        assertThat(c.rules().get(2).id()).hasSize(32); // generated, as AWS does for a rule without ID
        String xml = new String(LifecycleHandlers.toXml(c), StandardCharsets.UTF_8);
        assertThat(xml)
                .contains("<Filter><Prefix> spaced/ </Prefix></Filter>")
                .contains("<Filter><And><Prefix>p/</Prefix><Tag><Key>k1</Key><Value>v1</Value></Tag>")
                .contains("<Filter><Prefix></Prefix></Filter>");
        assertThat(parse(xml)).isEqualTo(c);
    }

    @Test
    void expirationHeader_hasAwsForm() {
        assertThat(LifecycleHandlers.expirationHeader(
                        new Lifecycle.Expiry(Instant.parse("2012-12-23T00:00:00Z"), "picture-deletion-rule")))
                .isEqualTo("expiry-date=\"Sun, 23 Dec 2012 00:00:00 GMT\", rule-id=\"picture-deletion-rule\"");
        assertThat(LifecycleHandlers.expirationHeader(new Lifecycle.Expiry(Instant.EPOCH, "a\"b")))
                .endsWith("rule-id=\"a\\\"b\"");
    }

    @Test
    void dates_acceptTheFormsClientsSend() {
        Instant midnight = Instant.parse("2031-05-01T00:00:00Z");
        assertThat(LifecycleHandlers.date("2031-05-01T00:00:00Z")).isEqualTo(midnight);
        assertThat(LifecycleHandlers.date("2031-05-01T00:00:00.000Z")).isEqualTo(midnight);
        assertThat(LifecycleHandlers.date("2031-05-01T00:00:00")).isEqualTo(midnight);
        assertThat(LifecycleHandlers.date("2031-05-01T02:00:00+02:00")).isEqualTo(midnight);
        assertThat(LifecycleHandlers.date("2031-05-01")).isEqualTo(midnight);
    }
}
