package dev.appliance.s3.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.appliance.core.ObjectStore;
import dev.appliance.s3.S3Server;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.ObjectAttributes;
import software.amazon.awssdk.services.s3.model.ObjectPart;

/** GetObjectAttributes: parts of a multipart object, paged with x-amz-max-parts and x-amz-part-number-marker. */
class AttributesServerTest {
    private static final int MIB = 1 << 20;

    @TempDir
    static Path drives;

    private static ObjectStore store;
    private static S3Server server;
    private static S3Client s3;

    @BeforeAll
    static void start() throws Exception {
        TestServer started = TestServer.start(drives, (ak, action, bucket, key) -> true);
        store = started.store();
        server = started.server();
        s3 = started.client();
        s3.createBucket(b -> b.bucket("attrs"));
        String upload =
                s3.createMultipartUpload(b -> b.bucket("attrs").key("three")).uploadId();
        int[] sizes = {5 * MIB, 5 * MIB, 123};
        List<CompletedPart> parts = new ArrayList<>();
        for (int i = 0; i < sizes.length; i++) {
            int n = i + 1;
            var up = s3.uploadPart(
                    b -> b.bucket("attrs").key("three").uploadId(upload).partNumber(n),
                    RequestBody.fromBytes(new byte[sizes[i]]));
            // the client adds a CRC32 to each part by default; as on S3, completing names it
            parts.add(CompletedPart.builder()
                    .partNumber(n)
                    .eTag(up.eTag())
                    .checksumCRC32(up.checksumCRC32())
                    .build());
        }
        s3.completeMultipartUpload(
                b -> b.bucket("attrs").key("three").uploadId(upload).multipartUpload(m -> m.parts(parts)));
        s3.putObject(b -> b.bucket("attrs").key("single"), RequestBody.fromString("one piece"));
    }

    @AfterAll
    static void stop() {
        s3.close();
        server.close();
        store.close();
    }

    @Test
    void multipartObject_listsItsPartsWithTheirCount() {
        var attrs = s3.getObjectAttributes(
                b -> b.bucket("attrs").key("three").objectAttributes(ObjectAttributes.OBJECT_PARTS));
        assertThat(attrs.objectParts().totalPartsCount()).isEqualTo(3);
        assertThat(attrs.objectParts().isTruncated()).isFalse();
        assertThat(attrs.objectParts().parts())
                .extracting(ObjectPart::partNumber, ObjectPart::size)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(1, 5L * MIB),
                        org.assertj.core.groups.Tuple.tuple(2, 5L * MIB),
                        org.assertj.core.groups.Tuple.tuple(3, 123L));
    }

    @Test
    void parts_arePagedByMaxPartsAndMarker() {
        var first = s3.getObjectAttributes(
                b -> b.bucket("attrs").key("three").maxParts(2).objectAttributes(ObjectAttributes.OBJECT_PARTS));
        assertThat(first.objectParts().parts())
                .extracting(ObjectPart::partNumber)
                .containsExactly(1, 2);
        assertThat(first.objectParts().isTruncated()).isTrue();
        assertThat(first.objectParts().nextPartNumberMarker()).isEqualTo(2);
        var rest = s3.getObjectAttributes(b -> b.bucket("attrs")
                .key("three")
                .maxParts(2)
                .partNumberMarker(first.objectParts().nextPartNumberMarker())
                .objectAttributes(ObjectAttributes.OBJECT_PARTS));
        assertThat(rest.objectParts().parts())
                .extracting(ObjectPart::partNumber)
                .containsExactly(3);
        assertThat(rest.objectParts().isTruncated()).isFalse();
        assertThat(rest.objectParts().totalPartsCount()).isEqualTo(3);
    }

    @Test
    void singlePutObject_hasNoObjectParts() {
        var attrs = s3.getObjectAttributes(b -> b.bucket("attrs")
                .key("single")
                .objectAttributes(ObjectAttributes.OBJECT_PARTS, ObjectAttributes.OBJECT_SIZE));
        assertThat(attrs.objectParts()).isNull();
        assertThat(attrs.objectSize()).isEqualTo(9L);
    }
}
