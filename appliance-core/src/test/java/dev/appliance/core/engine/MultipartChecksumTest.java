package dev.appliance.core.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.appliance.core.CompleteChecksum;
import dev.appliance.core.CompletedPart;
import dev.appliance.core.MultipartChecksum;
import dev.appliance.core.ObjectInfo;
import dev.appliance.core.PutRequest;
import dev.appliance.core.UploadedPart;
import dev.appliance.core.checksum.ChecksumAlgorithm;
import dev.appliance.core.checksum.ChecksumType;
import dev.appliance.core.error.ErrorKind;
import dev.appliance.core.error.StorageException;
import dev.appliance.core.testing.TestStore;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Multipart checksums in the engine: per-part values, composite and full-object results, and S3's refusals. */
class MultipartChecksumTest {
    private static final int MIB = 1 << 20;

    @TempDir
    Path tmp;

    private ErasureObjectStore store;
    private List<Path> drives;

    @BeforeEach
    void open() throws Exception {
        TestStore layout = TestStore.on(tmp);
        drives = layout.drives();
        store = TestEngine.open(layout);
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

    private static byte[] concat(List<byte[]> parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        parts.forEach(out::writeBytes);
        return out.toByteArray();
    }

    private String create(String key, ChecksumAlgorithm a, ChecksumType t) {
        return store.createMultipartUpload(
                "bucket", key, PutRequest.of(-1), a == null ? null : new MultipartChecksum(a, t));
    }

    /** A part without a request checksum. */
    private UploadedPart part(String key, String id, int n, byte[] data) throws Exception {
        return store.uploadPart("bucket", key, id, n, PutRequest.of(data.length), new ByteArrayInputStream(data));
    }

    /** A part whose request carried a (verified) checksum of {@code a}. */
    private UploadedPart part(String key, String id, int n, byte[] data, ChecksumAlgorithm a, String value)
            throws Exception {
        PutRequest r = PutRequest.of(data.length).withVerifiedChecksum(a, () -> Map.of(a.headerName(), value));
        return store.uploadPart("bucket", key, id, n, r, new ByteArrayInputStream(data));
    }

    private static List<CompletedPart> named(List<UploadedPart> parts) {
        return parts.stream()
                .map(p -> new CompletedPart(
                        p.partNumber(),
                        p.etag(),
                        p.checksum() == null ? Map.of() : Map.of(p.checksumAlgorithm(), p.checksum())))
                .toList();
    }

    @ParameterizedTest
    @EnumSource(
            value = ChecksumAlgorithm.class,
            names = {"CRC32", "CRC32C", "SHA1", "SHA256"})
    void composite_isTheChecksumOfThePartChecksumsWithThePartCount(ChecksumAlgorithm a) throws Exception {
        String id = create("c", a, ChecksumType.COMPOSITE);
        List<byte[]> data = List.of(random(5 * MIB, 1), random(5 * MIB + 7, 2), random(99, 3));
        List<UploadedPart> parts = new ArrayList<>();
        parts.add(part("c", id, 1, data.get(0), a, a.base64Of(data.get(0)))); // sent by the client
        parts.add(part("c", id, 2, data.get(1))); // computed here
        parts.add(part("c", id, 3, data.get(2)));
        for (int i = 0; i < 3; i++) {
            assertThat(parts.get(i).checksumAlgorithm()).isEqualTo(a);
            assertThat(parts.get(i).checksum()).isEqualTo(a.base64Of(data.get(i)));
        }
        assertThat(store.listParts("bucket", "c", id, 0, 1000))
                .extracting(UploadedPart::checksum)
                .containsExactly(a.base64Of(data.get(0)), a.base64Of(data.get(1)), a.base64Of(data.get(2)));

        ObjectInfo done = store.completeMultipartUpload("bucket", "c", id, named(parts), CompleteChecksum.NONE);

        byte[] raw = concat(data.stream().map(a::of).toList());
        String expected = a.base64Of(raw) + "-3";
        assertThat(done.userMetadata())
                .containsEntry(a.headerName(), expected)
                .containsEntry("x-amz-checksum-type", "COMPOSITE");
        ObjectInfo head = store.headObject("bucket", "c", null);
        assertThat(head.userMetadata()).containsEntry(a.headerName(), expected);
        assertThat(head.partChecksums())
                .containsExactly(a.base64Of(data.get(0)), a.base64Of(data.get(1)), a.base64Of(data.get(2)));
    }

    @ParameterizedTest
    @EnumSource(
            value = ChecksumAlgorithm.class,
            names = {"CRC32", "CRC32C", "CRC64NVME"})
    void fullObject_isTheCrcOfTheWholeObject_andTheRequestValueIsChecked(ChecksumAlgorithm a) throws Exception {
        String id = create("f", a, ChecksumType.FULL_OBJECT);
        List<byte[]> data = List.of(random(5 * MIB + 1, 4), random(5 * MIB, 5), random(1, 6));
        List<UploadedPart> parts = new ArrayList<>();
        for (int i = 0; i < data.size(); i++) {
            parts.add(part("f", id, i + 1, data.get(i)));
        }
        String whole = a.base64Of(concat(data));
        String wrong = a.base64Of("other".getBytes(StandardCharsets.US_ASCII));

        assertThatThrownBy(() -> store.completeMultipartUpload(
                        "bucket", "f", id, named(parts), new CompleteChecksum(null, a, wrong)))
                .isInstanceOfSatisfying(
                        StorageException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.BAD_DIGEST));
        assertThatThrownBy(() -> store.headObject("bucket", "f", null)).isInstanceOf(StorageException.class);

        // The part checksums are optional when completing a full-object upload.
        List<CompletedPart> etagsOnly = parts.stream()
                .map(p -> new CompletedPart(p.partNumber(), p.etag()))
                .toList();
        ObjectInfo done = store.completeMultipartUpload(
                "bucket", "f", id, etagsOnly, new CompleteChecksum(ChecksumType.FULL_OBJECT, a, whole));
        assertThat(done.userMetadata())
                .containsEntry(a.headerName(), whole)
                .containsEntry("x-amz-checksum-type", "FULL_OBJECT");
    }

    @Test
    void partWithAnotherAlgorithm_isRefusedBeforeAnythingIsStored() throws Exception {
        String id = create("m", ChecksumAlgorithm.CRC32, ChecksumType.COMPOSITE);
        byte[] data = random(1000, 7);
        assertThatThrownBy(
                        () -> part("m", id, 1, data, ChecksumAlgorithm.CRC32C, ChecksumAlgorithm.CRC32C.base64Of(data)))
                .isInstanceOfSatisfying(StorageException.class, e -> {
                    assertThat(e.kind()).isEqualTo(ErrorKind.INVALID_REQUEST);
                    assertThat(e.getMessage())
                            .isEqualTo("Checksum Type mismatch occurred, expected checksum Type: crc32,"
                                    + " actual checksum Type: crc32c");
                });
        assertThat(store.listParts("bucket", "m", id, 0, 1000)).isEmpty();
    }

    @Test
    void compositeCompletion_needsEveryPartChecksum_andTheRightOnes() throws Exception {
        String id = create("n", ChecksumAlgorithm.SHA256, ChecksumType.COMPOSITE);
        UploadedPart p1 = part("n", id, 1, random(5 * MIB, 8));
        UploadedPart p2 = part("n", id, 2, random(10, 9));
        assertThatThrownBy(() -> store.completeMultipartUpload(
                        "bucket",
                        "n",
                        id,
                        List.of(
                                new CompletedPart(1, p1.etag(), Map.of(ChecksumAlgorithm.SHA256, p1.checksum())),
                                new CompletedPart(2, p2.etag())),
                        CompleteChecksum.NONE))
                .isInstanceOfSatisfying(StorageException.class, e -> {
                    assertThat(e.kind()).isEqualTo(ErrorKind.INVALID_REQUEST);
                    assertThat(e.getMessage())
                            .isEqualTo("The upload was created using a sha256 checksum. The complete request must"
                                    + " include the checksum for each part. It was missing for part 2 in the"
                                    + " request.");
                });
        assertThatThrownBy(() -> store.completeMultipartUpload(
                        "bucket",
                        "n",
                        id,
                        List.of(
                                new CompletedPart(1, p1.etag(), Map.of(ChecksumAlgorithm.SHA256, p2.checksum())),
                                new CompletedPart(2, p2.etag(), Map.of(ChecksumAlgorithm.SHA256, p2.checksum()))),
                        CompleteChecksum.NONE))
                .isInstanceOfSatisfying(
                        StorageException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.INVALID_PART));
        assertThatThrownBy(() -> store.completeMultipartUpload(
                        "bucket",
                        "n",
                        id,
                        named(List.of(p1, p2)),
                        new CompleteChecksum(ChecksumType.FULL_OBJECT, null, null)))
                .isInstanceOfSatisfying(StorageException.class, e -> {
                    assertThat(e.kind()).isEqualTo(ErrorKind.INVALID_REQUEST);
                    assertThat(e.getMessage())
                            .isEqualTo("The upload was created using the COMPOSITE checksum mode. The complete"
                                    + " request must use the same checksum mode.");
                });
        // A composite value stated for the whole object may come with or without its "-N".
        byte[] raw = concat(List.of(
                Base64.getDecoder().decode(p1.checksum()), Base64.getDecoder().decode(p2.checksum())));
        String composite = ChecksumAlgorithm.SHA256.base64Of(raw);
        ObjectInfo done = store.completeMultipartUpload(
                "bucket",
                "n",
                id,
                named(List.of(p1, p2)),
                new CompleteChecksum(ChecksumType.COMPOSITE, ChecksumAlgorithm.SHA256, composite));
        assertThat(done.userMetadata()).containsEntry("x-amz-checksum-sha256", composite + "-2");
    }

    @Test
    void undeclaredUpload_getsTheDefaultFullObjectCrc64nvme_andKeepsTheClientsPartChecksum() throws Exception {
        String id = create("d", null, null);
        assertThat(store.multipartUpload("bucket", "d", id).checksum()).isNull();
        byte[] d1 = random(5 * MIB + 3, 10);
        byte[] d2 = random(3, 11);
        UploadedPart p1 = part("d", id, 1, d1, ChecksumAlgorithm.CRC32, ChecksumAlgorithm.CRC32.base64Of(d1));
        UploadedPart p2 = part("d", id, 2, d2);
        assertThat(p1.checksumAlgorithm()).isEqualTo(ChecksumAlgorithm.CRC32);
        assertThat(p2.checksum()).isNull();
        // A named part checksum must match; ETags alone are enough (unlike AWS, which wants the SDK's default
        // part checksums named again).
        assertThatThrownBy(() -> store.completeMultipartUpload(
                        "bucket",
                        "d",
                        id,
                        List.of(
                                new CompletedPart(
                                        1,
                                        p1.etag(),
                                        java.util.Map.of(
                                                ChecksumAlgorithm.CRC32, ChecksumAlgorithm.CRC32.base64Of(d2))),
                                new CompletedPart(2, p2.etag())),
                        CompleteChecksum.NONE))
                .isInstanceOfSatisfying(
                        StorageException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.INVALID_PART));
        ObjectInfo done = store.completeMultipartUpload(
                "bucket",
                "d",
                id,
                List.of(new CompletedPart(1, p1.etag()), new CompletedPart(2, p2.etag())),
                CompleteChecksum.NONE);
        String whole = ChecksumAlgorithm.CRC64NVME.base64Of(concat(List.of(d1, d2)));
        assertThat(done.userMetadata())
                .containsEntry("x-amz-checksum-crc64nvme", whole)
                .containsEntry("x-amz-checksum-type", "FULL_OBJECT")
                .doesNotContainKey("x-amz-checksum-crc32");
        assertThat(done.partChecksums())
                .containsExactly(ChecksumAlgorithm.CRC64NVME.base64Of(d1), ChecksumAlgorithm.CRC64NVME.base64Of(d2));
    }

    @Test
    void declaredChecksum_isListedWithTheUpload() {
        String id = create("l", ChecksumAlgorithm.CRC32C, ChecksumType.FULL_OBJECT);
        MultipartChecksum expected = new MultipartChecksum(ChecksumAlgorithm.CRC32C, ChecksumType.FULL_OBJECT);
        assertThat(store.multipartUpload("bucket", "l", id).checksum()).isEqualTo(expected);
        assertThat(store.listMultipartUploads("bucket", "l").getFirst().checksum())
                .isEqualTo(expected);
    }

    @Test
    void copy_keepsAFullObjectChecksum_andDropsACompositeOne() throws Exception {
        String full = create("full", ChecksumAlgorithm.CRC32, ChecksumType.FULL_OBJECT);
        byte[] data = random(2000, 12);
        store.completeMultipartUpload("bucket", "full", full, named(List.of(part("full", full, 1, data))));
        String comp = create("comp", ChecksumAlgorithm.CRC32, ChecksumType.COMPOSITE);
        store.completeMultipartUpload("bucket", "comp", comp, named(List.of(part("comp", comp, 1, data))));

        ObjectInfo fullCopy = store.copyObject("bucket", "full", null, "bucket", "full-copy", null);
        assertThat(fullCopy.userMetadata())
                .containsEntry("x-amz-checksum-crc32", ChecksumAlgorithm.CRC32.base64Of(data))
                .doesNotContainKey("x-amz-checksum-type");
        ObjectInfo compCopy = store.copyObject("bucket", "comp", null, "bucket", "comp-copy", null);
        assertThat(compCopy.userMetadata().keySet()).noneMatch(k -> k.startsWith("x-amz-checksum-"));
    }

    /** Records written before checksums existed (no checksum fields in upload.json and part.N.json) still complete. */
    @Test
    void recordsWithoutChecksumFields_stillComplete() throws Exception {
        String id = create("old", ChecksumAlgorithm.CRC32, ChecksumType.COMPOSITE);
        byte[] data = random(100, 13);
        UploadedPart p = part("old", id, 1, data);
        for (Path d : drives) {
            try (Stream<Path> files = Files.walk(d.resolve(".appliance.sys/multipart"))) {
                for (Path f : files.filter(f -> f.toString().endsWith(".json")).toList()) {
                    String json = Files.readString(f)
                            .replaceAll(",\"checksumAlgorithm\":(null|\"[A-Z0-9]+\")", "")
                            .replaceAll(",\"checksumType\":(null|\"[A-Z_]+\")", "")
                            .replaceAll(",\"checksum\":(null|\"[^\"]*\")", "")
                            .replaceAll(",\"crc64nvme\":(null|\"[^\"]*\")", "");
                    assertThat(json).doesNotContain("checksum").doesNotContain("crc64nvme");
                    Files.writeString(f, json);
                }
            }
        }
        assertThat(store.multipartUpload("bucket", "old", id).checksum()).isNull();
        ObjectInfo done = store.completeMultipartUpload("bucket", "old", id, List.of(new CompletedPart(1, p.etag())));
        assertThat(done.userMetadata().keySet()).noneMatch(k -> k.startsWith("x-amz-checksum-"));
        assertThat(done.size()).isEqualTo(100);
    }
}
