package dev.appliance.s3.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.appliance.s3.testing.S3TestServer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.ObjectAttributes;
import software.amazon.awssdk.services.s3.model.ObjectPart;

/** GetObjectAttributes: parts of a multipart object, paged with x-amz-max-parts and x-amz-part-number-marker. */
class AttributesServerTest {
    private static final int MIB = 1 << 20;

    @RegisterExtension
    static final S3TestServer SERVER = S3TestServer.allowingAll();

    @BeforeAll
    static void start() throws Exception {
        SERVER.s3().createBucket(b -> b.bucket("attrs"));
        String upload = SERVER.s3()
                .createMultipartUpload(b -> b.bucket("attrs").key("three"))
                .uploadId();
        int[] sizes = {5 * MIB, 5 * MIB, 123};
        List<CompletedPart> parts = new ArrayList<>();
        for (int i = 0; i < sizes.length; i++) {
            int n = i + 1;
            var up = SERVER.s3()
                    .uploadPart(
                            b -> b.bucket("attrs").key("three").uploadId(upload).partNumber(n),
                            RequestBody.fromBytes(new byte[sizes[i]]));
            // the client adds a CRC32 to each part by default; as on S3, completing names it
            parts.add(CompletedPart.builder()
                    .partNumber(n)
                    .eTag(up.eTag())
                    .checksumCRC32(up.checksumCRC32())
                    .build());
        }
        SERVER.s3()
                .completeMultipartUpload(
                        b -> b.bucket("attrs").key("three").uploadId(upload).multipartUpload(m -> m.parts(parts)));
        SERVER.s3().putObject(b -> b.bucket("attrs").key("single"), RequestBody.fromString("one piece"));
    }

    @Test
    void multipartObject_listsItsPartsWithTheirCount() {
        var attrs = SERVER.s3()
                .getObjectAttributes(
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
        var first = SERVER.s3()
                .getObjectAttributes(b ->
                        b.bucket("attrs").key("three").maxParts(2).objectAttributes(ObjectAttributes.OBJECT_PARTS));
        assertThat(first.objectParts().parts())
                .extracting(ObjectPart::partNumber)
                .containsExactly(1, 2);
        assertThat(first.objectParts().isTruncated()).isTrue();
        assertThat(first.objectParts().nextPartNumberMarker()).isEqualTo(2);
        var rest = SERVER.s3().getObjectAttributes(b -> b.bucket("attrs")
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
        var attrs = SERVER.s3().getObjectAttributes(b -> b.bucket("attrs")
                .key("single")
                .objectAttributes(ObjectAttributes.OBJECT_PARTS, ObjectAttributes.OBJECT_SIZE));
        assertThat(attrs.objectParts()).isNull();
        assertThat(attrs.objectSize()).isEqualTo(9L);
    }
}
