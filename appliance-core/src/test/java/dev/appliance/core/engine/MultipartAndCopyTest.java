package dev.appliance.core.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.appliance.core.CompletedPart;
import dev.appliance.core.ObjectInfo;
import dev.appliance.core.PutRequest;
import dev.appliance.core.UploadedPart;
import dev.appliance.core.VersioningState;
import dev.appliance.core.drive.LocalDrive;
import dev.appliance.core.error.ErrorKind;
import dev.appliance.core.error.StorageException;
import dev.appliance.core.testing.LendingSink;
import dev.appliance.core.testing.TestStore;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MultipartAndCopyTest {
    private static final int MIB = 1 << 20;

    @TempDir
    Path tmp;

    private ErasureObjectStore store;

    @BeforeEach
    void open() throws Exception {
        store = TestEngine.open(TestStore.on(tmp));
        store.makeBucket("bucket");
    }

    @AfterEach
    void close() {
        store.close();
    }

    private static byte[] random(int size, long seed) {
        byte[] b = new byte[size];
        new Random(seed).nextBytes(b);
        return b;
    }

    /** Reads to a plain stream and to a sink lent the shard buffers, and checks both got the same bytes. */
    private byte[] read(String key, String versionId, long offset, long length) throws Exception {
        return LendingSink.readBothWays(() -> store.getObject("bucket", key, versionId, offset, length));
    }

    private UploadedPart part(String key, String uploadId, int n, byte[] data) throws Exception {
        return store.uploadPart("bucket", key, uploadId, n, PutRequest.of(data.length), new ByteArrayInputStream(data));
    }

    @Test
    void multipart_assemblesPartsWithoutCopyingAndComputesTheMultipartEtag() throws Exception {
        String id = store.createMultipartUpload(
                "bucket", "big", new PutRequest(-1, "video/mp4", Map.of("x-amz-meta-a", "1"), null));
        byte[] p1 = random(5 * MIB + 3, 1);
        byte[] p2 = random(5 * MIB, 2);
        byte[] p3 = random(1234, 3);
        UploadedPart u1 = part("big", id, 1, p1);
        part("big", id, 2, random(100, 9)); // replaced below
        UploadedPart u2 = part("big", id, 2, p2);
        UploadedPart u3 = part("big", id, 4, p3);
        part("big", id, 7, random(10, 7)); // uploaded, never completed: must be dropped
        assertThat(store.listParts("bucket", "big", id, 0, 1000))
                .extracting(UploadedPart::partNumber)
                .containsExactly(1, 2, 4, 7);
        assertThat(store.listMultipartUploads("bucket", ""))
                .extracting(u -> u.uploadId())
                .containsExactly(id);

        ObjectInfo done = store.completeMultipartUpload(
                "bucket",
                "big",
                id,
                List.of(
                        new CompletedPart(1, "\"" + u1.etag() + "\""),
                        new CompletedPart(2, u2.etag()),
                        new CompletedPart(4, u3.etag())));
        MessageDigest md5 = MessageDigest.getInstance("MD5");
        for (UploadedPart u : List.of(u1, u2, u3)) {
            md5.update(HexFormat.of().parseHex(u.etag()));
        }
        assertThat(done.etag()).isEqualTo(HexFormat.of().formatHex(md5.digest()) + "-3");
        assertThat(done.size()).isEqualTo(p1.length + p2.length + p3.length);
        assertThat(done.partSizes()).containsExactly((long) p1.length, (long) p2.length, (long) p3.length);

        ByteArrayOutputStream all = new ByteArrayOutputStream();
        all.write(p1);
        all.write(p2);
        all.write(p3);
        byte[] expected = all.toByteArray();
        assertThat(read("big", null, 0, -1)).isEqualTo(expected);
        long cut = p1.length - 10;
        assertThat(read("big", null, cut, 5_000_000))
                .isEqualTo(java.util.Arrays.copyOfRange(expected, (int) cut, (int) cut + 5_000_000));
        ObjectInfo head = store.headObject("bucket", "big", null);
        assertThat(head.contentType()).isEqualTo("video/mp4");
        assertThat(head.userMetadata()).containsEntry("x-amz-meta-a", "1");

        assertThat(store.listMultipartUploads("bucket", "")).isEmpty();
        for (LocalDrive d : store.drives()) {
            try (Stream<Path> s = Files.walk(d.objectDir("bucket", "big"))) {
                assertThat(s.filter(p -> p.getFileName().toString().startsWith("part."))
                                .map(p -> p.getFileName().toString()))
                        .containsExactlyInAnyOrder("part.1", "part.2", "part.4");
            }
        }
    }

    @Test
    void complete_refusesBadPartListsAndUnknownUploads() throws Exception {
        String id = store.createMultipartUpload("bucket", "k", PutRequest.of(-1));
        UploadedPart small = part("k", id, 1, random(100, 1));
        UploadedPart last = part("k", id, 2, random(100, 2));
        assertThatThrownBy(() -> store.completeMultipartUpload(
                        "bucket",
                        "k",
                        id,
                        List.of(new CompletedPart(1, small.etag()), new CompletedPart(2, last.etag()))))
                .extracting(e -> ((StorageException) e).kind())
                .isEqualTo(ErrorKind.ENTITY_TOO_SMALL);
        assertThatThrownBy(() -> store.completeMultipartUpload(
                        "bucket",
                        "k",
                        id,
                        List.of(new CompletedPart(2, last.etag()), new CompletedPart(1, small.etag()))))
                .extracting(e -> ((StorageException) e).kind())
                .isEqualTo(ErrorKind.INVALID_PART_ORDER);
        assertThatThrownBy(() -> store.completeMultipartUpload("bucket", "k", id, List.of(new CompletedPart(1, "00"))))
                .extracting(e -> ((StorageException) e).kind())
                .isEqualTo(ErrorKind.INVALID_PART);
        assertThatThrownBy(() -> store.uploadPart(
                        "bucket", "k", id, 10_001, PutRequest.of(1), new ByteArrayInputStream(new byte[1])))
                .extracting(e -> ((StorageException) e).kind())
                .isEqualTo(ErrorKind.INVALID_ARGUMENT);
        store.abortMultipartUpload("bucket", "k", id);
        assertThatThrownBy(() -> store.listParts("bucket", "k", id, 0, 10))
                .extracting(e -> ((StorageException) e).kind())
                .isEqualTo(ErrorKind.NO_SUCH_UPLOAD);
        assertThatThrownBy(() -> store.abortMultipartUpload("bucket", "k", "not-an-upload"))
                .extracting(e -> ((StorageException) e).kind())
                .isEqualTo(ErrorKind.NO_SUCH_UPLOAD);
        assertThatThrownBy(() -> store.headObject("bucket", "k", null)).isInstanceOf(StorageException.class);
    }

    @Test
    void multipartInVersionedBucket_addsAVersion() throws Exception {
        store.setVersioning("bucket", VersioningState.ENABLED);
        byte[] first = random(1000, 1);
        store.putObject("bucket", "k", PutRequest.of(first.length), new ByteArrayInputStream(first));
        String id = store.createMultipartUpload("bucket", "k", PutRequest.of(-1));
        byte[] p = random(2000, 2);
        UploadedPart u = part("k", id, 1, p);
        ObjectInfo done = store.completeMultipartUpload("bucket", "k", id, List.of(new CompletedPart(1, u.etag())));
        assertThat(store.listObjectVersions("bucket", "k", null, null, null, 10).versions())
                .hasSize(2);
        assertThat(read("k", done.versionId(), 0, -1)).isEqualTo(p);
    }

    @Test
    void copy_keepsOrReplacesMetadataAndCopiesBytes() throws Exception {
        byte[] data = random(3 * MIB + 17, 5);
        store.putObject(
                "bucket",
                "src",
                new PutRequest(data.length, "text/plain", Map.of("x-amz-meta-k", "v"), null),
                new ByteArrayInputStream(data));
        ObjectInfo copy = store.copyObject("bucket", "src", null, "bucket", "dst", null);
        assertThat(read("dst", null, 0, -1)).isEqualTo(data);
        assertThat(copy.etag())
                .isEqualTo(store.headObject("bucket", "src", null).etag());
        assertThat(store.headObject("bucket", "dst", null).userMetadata()).containsEntry("x-amz-meta-k", "v");
        assertThat(store.headObject("bucket", "dst", null).contentType()).isEqualTo("text/plain");

        store.copyObject(
                "bucket",
                "src",
                null,
                "bucket",
                "src",
                new PutRequest(-1, "application/json", Map.of("x-amz-meta-new", "1"), null));
        ObjectInfo replaced = store.headObject("bucket", "src", null);
        assertThat(replaced.contentType()).isEqualTo("application/json");
        assertThat(replaced.userMetadata()).containsEntry("x-amz-meta-new", "1").doesNotContainKey("x-amz-meta-k");
        assertThat(read("src", null, 0, -1)).isEqualTo(data);

        assertThatThrownBy(() -> store.copyObject("bucket", "missing", null, "bucket", "x", null))
                .extracting(e -> ((StorageException) e).kind())
                .isEqualTo(ErrorKind.OBJECT_NOT_FOUND);
    }

    @Test
    void conditionalWrites_followIfMatchAndIfNoneMatch() throws Exception {
        byte[] a = "a".getBytes();
        PutRequest createOnly = PutRequest.of(a.length).withConditions(null, true);
        ObjectInfo first = store.putObject("bucket", "k", createOnly, new ByteArrayInputStream(a));
        assertThatThrownBy(() -> store.putObject("bucket", "k", createOnly, new ByteArrayInputStream(a)))
                .extracting(e -> ((StorageException) e).kind())
                .isEqualTo(ErrorKind.PRECONDITION_FAILED);
        byte[] b = "bb".getBytes();
        store.putObject(
                "bucket",
                "k",
                PutRequest.of(b.length).withConditions("\"" + first.etag() + "\"", false),
                new ByteArrayInputStream(b));
        assertThat(read("k", null, 0, -1)).isEqualTo(b);
        assertThatThrownBy(() -> store.putObject(
                        "bucket",
                        "k",
                        PutRequest.of(a.length).withConditions(first.etag(), false),
                        new ByteArrayInputStream(a)))
                .extracting(e -> ((StorageException) e).kind())
                .isEqualTo(ErrorKind.PRECONDITION_FAILED);
        assertThatThrownBy(() -> store.putObject(
                        "bucket",
                        "none",
                        PutRequest.of(a.length).withConditions("*", false),
                        new ByteArrayInputStream(a)))
                .extracting(e -> ((StorageException) e).kind())
                .isEqualTo(ErrorKind.OBJECT_NOT_FOUND);
    }
}
