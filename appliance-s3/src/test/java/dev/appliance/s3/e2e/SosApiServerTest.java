package dev.appliance.s3.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.appliance.core.BucketSettings;
import dev.appliance.core.admin.StoreAdmin;
import dev.appliance.s3.testing.S3TestServer;
import java.io.ByteArrayInputStream;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.w3c.dom.Document;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.model.BucketVersioningStatus;
import software.amazon.awssdk.services.s3.model.DeleteMarkerEntry;
import software.amazon.awssdk.services.s3.model.DeletedObject;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.S3Error;
import software.amazon.awssdk.services.s3.model.S3Exception;

/** Veeam SOSAPI: the virtual system.xml and capacity.xml, per bucket, read-only, with live figures. */
class SosApiServerTest {
    private static final String SYSTEM = ".system-d26a9498-cb7c-4a87-a44a-8ae204f5ba6c/system.xml";
    private static final String CAPACITY = ".system-d26a9498-cb7c-4a87-a44a-8ae204f5ba6c/capacity.xml";

    @RegisterExtension
    static final S3TestServer SERVER = S3TestServer.allowingAll();

    @BeforeAll
    static void start() throws Exception {
        SERVER.s3().createBucket(b -> b.bucket("veeam"));
        SERVER.s3().createBucket(b -> b.bucket("plain"));
        SERVER.store().setBucketSettings("veeam", new BucketSettings(null, true));
    }

    private static Document xml(byte[] body) throws Exception {
        return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(new ByteArrayInputStream(body));
    }

    private static long number(Document d, String element) {
        return Long.parseLong(d.getElementsByTagName(element).item(0).getTextContent());
    }

    @Test
    void systemXml_hasTheQuotedVersionAndModel_andExactHeaders() throws Exception {
        var got = SERVER.s3().getObjectAsBytes(b -> b.bucket("veeam").key(SYSTEM));
        byte[] body = got.asByteArray();
        Document d = xml(body);
        assertThat(d.getDocumentElement().getTagName()).isEqualTo("SystemInfo");
        assertThat(d.getDocumentElement().getNamespaceURI()).isNull();
        assertThat(d.getElementsByTagName("ProtocolVersion").item(0).getTextContent())
                .isEqualTo("\"1.0\"");
        assertThat(d.getElementsByTagName("ModelName").item(0).getTextContent()).startsWith("\"Appliance ");
        assertThat(d.getElementsByTagName("CapacityInfo").item(0).getTextContent())
                .isEqualTo("true");
        // no empty optional blocks
        assertThat(d.getElementsByTagName("APIEndpoints").getLength()).isZero();
        assertThat(d.getElementsByTagName("SystemRecommendations").getLength()).isZero();
        assertThat(got.response().contentType()).isEqualTo("application/xml");
        assertThat(got.response().contentLength()).isEqualTo(body.length);
        String md5 = HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(body));
        assertThat(got.response().eTag()).isEqualTo("\"" + md5 + "\"");
        var head = SERVER.s3().headObject(b -> b.bucket("veeam").key(SYSTEM));
        assertThat(head.contentLength()).isEqualTo(body.length);
        assertThat(head.eTag()).isEqualTo(got.response().eTag());
        assertThat(head.lastModified()).isNotNull();
        var part =
                SERVER.s3().getObjectAsBytes(b -> b.bucket("veeam").key(SYSTEM).range("bytes=0-9"));
        assertThat(part.asByteArray()).isEqualTo(java.util.Arrays.copyOf(body, 10));
        assertThat(part.response().contentRange()).isEqualTo("bytes 0-9/" + body.length);
    }

    @Test
    void capacityXml_reportsUsableCapacityAndLiveUsage_orTheQuota() throws Exception {
        ((StoreAdmin) SERVER.store()).usageRefreshInterval(Duration.ZERO);
        SERVER.s3().putObject(b -> b.bucket("veeam").key("blocks/1"), RequestBody.fromBytes(new byte[300_000]));
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        Document d = xml(SERVER.s3()
                .getObjectAsBytes(b -> b.bucket("veeam").key(CAPACITY))
                .asByteArray());
        while (number(d, "Used") != 300_000 && System.nanoTime() < deadline) {
            Thread.sleep(50);
            d = xml(SERVER.s3()
                    .getObjectAsBytes(b -> b.bucket("veeam").key(CAPACITY))
                    .asByteArray());
        }
        assertThat(d.getDocumentElement().getTagName()).isEqualTo("CapacityInfo");
        assertThat(number(d, "Used")).isEqualTo(300_000);
        // without a quota the figures add up exactly: the test drives share a file system holding other data, so the
        // pool's total (other data and reserved blocks included) would not
        assertThat(number(d, "Capacity")).isEqualTo(number(d, "Used") + number(d, "Available"));
        assertThat(number(d, "Available"))
                .isPositive()
                .isLessThan(SERVER.store().capacity().usableBytes());

        SERVER.store().setBucketSettings("veeam", new BucketSettings(200_000L, true));
        try {
            Document quota = xml(SERVER.s3()
                    .getObjectAsBytes(b -> b.bucket("veeam").key(CAPACITY))
                    .asByteArray());
            assertThat(number(quota, "Capacity")).isEqualTo(200_000);
            assertThat(number(quota, "Available")).isZero(); // over quota: never negative
            // and a bucket over its quota takes no more writes
            var refused = org.assertj.core.api.Assertions.catchThrowableOfType(
                    software.amazon.awssdk.services.s3.model.S3Exception.class, () -> SERVER.s3()
                            .putObject(b -> b.bucket("veeam").key("blocks/2"), RequestBody.fromBytes(new byte[10])));
            assertThat(refused.statusCode()).isEqualTo(403);
            assertThat(refused.awsErrorDetails().errorCode()).isEqualTo("QuotaExceeded");
        } finally {
            SERVER.store().setBucketSettings("veeam", new BucketSettings(null, true));
        }
    }

    @Test
    void deleteObjects_refusesTheVirtualKeysOneByOne_andWritesNoDeleteMarkerForThem() {
        SERVER.s3().createBucket(b -> b.bucket("veeam-versioned"));
        SERVER.s3().putBucketVersioning(b -> b.bucket("veeam-versioned")
                .versioningConfiguration(v -> v.status(BucketVersioningStatus.ENABLED)));
        SERVER.store().setBucketSettings("veeam-versioned", new BucketSettings(null, true));
        SERVER.s3().putObject(b -> b.bucket("veeam-versioned").key("blocks/1"), RequestBody.fromBytes(new byte[10]));

        var result = SERVER.s3().deleteObjects(b -> b.bucket("veeam-versioned")
                .delete(d -> d.objects(
                        ObjectIdentifier.builder().key(SYSTEM).build(),
                        ObjectIdentifier.builder().key(CAPACITY).build(),
                        ObjectIdentifier.builder().key("blocks/1").build())));

        // the same refusal as a single DELETE of these keys, in each key's own <Error>
        S3Exception single = catchThrowableOfType(S3Exception.class, () -> SERVER.s3()
                .deleteObject(b -> b.bucket("veeam-versioned").key(SYSTEM)));
        assertThat(result.errors()).extracting(S3Error::key).containsExactly(SYSTEM, CAPACITY);
        assertThat(result.errors()).allSatisfy(e -> {
            assertThat(e.code()).isEqualTo(single.awsErrorDetails().errorCode()).isEqualTo("AccessDenied");
            assertThat(e.message()).isEqualTo(single.awsErrorDetails().errorMessage());
        });
        assertThat(result.deleted()).extracting(DeletedObject::key).containsExactly("blocks/1");
        var versions = SERVER.s3().listObjectVersions(b -> b.bucket("veeam-versioned"));
        assertThat(versions.deleteMarkers()).extracting(DeleteMarkerEntry::key).containsExactly("blocks/1");
        assertThat(versions.versions()).noneMatch(v -> v.key().startsWith(".system-"));
        // and the virtual objects still answer
        assertThat(SERVER.s3()
                        .headObject(b -> b.bucket("veeam-versioned").key(SYSTEM))
                        .contentLength())
                .isPositive();
    }

    @Test
    void virtualObjects_areReadOnly_unlisted_andAbsentWhereSosapiIsOff() {
        for (String key : new String[] {SYSTEM, CAPACITY}) {
            S3Exception put = catchThrowableOfType(S3Exception.class, () -> SERVER.s3()
                    .putObject(b -> b.bucket("veeam").key(key), RequestBody.fromString("<x/>")));
            assertThat(put.statusCode()).isEqualTo(403);
            S3Exception delete = catchThrowableOfType(S3Exception.class, () -> SERVER.s3()
                    .deleteObject(b -> b.bucket("veeam").key(key)));
            assertThat(delete.statusCode()).isEqualTo(403);
        }
        assertThat(SERVER.s3().listObjectsV2(b -> b.bucket("veeam")).contents())
                .noneMatch(o -> o.key().startsWith(".system-"));
        S3Exception off = catchThrowableOfType(S3Exception.class, () -> SERVER.s3()
                .getObject(b -> b.bucket("plain").key(SYSTEM)));
        assertThat(off.awsErrorDetails().errorCode()).isEqualTo("NoSuchKey");
    }
}
