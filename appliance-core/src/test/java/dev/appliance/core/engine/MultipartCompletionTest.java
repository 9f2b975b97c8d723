package dev.appliance.core.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.appliance.core.CompleteChecksum;
import dev.appliance.core.CompletedPart;
import dev.appliance.core.ObjectInfo;
import dev.appliance.core.PutRequest;
import dev.appliance.core.UploadedPart;
import dev.appliance.core.VersioningState;
import dev.appliance.core.WriteConditions;
import dev.appliance.core.error.ErrorKind;
import dev.appliance.core.error.StorageException;
import dev.appliance.core.multipart.MultipartUploads;
import dev.appliance.core.testing.TestStore;
import java.io.ByteArrayInputStream;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** CompleteMultipartUpload retried after success, and conditional completions (If-Match / If-None-Match: *). */
class MultipartCompletionTest {
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

    private List<CompletedPart> oneSmallPart(String key, String uploadId, String body) throws Exception {
        byte[] data = body.getBytes();
        UploadedPart p = store.uploadPart(
                "bucket", key, uploadId, 1, PutRequest.of(data.length), new ByteArrayInputStream(data));
        return List.of(new CompletedPart(1, p.etag()));
    }

    private void put(String key, String body) throws Exception {
        byte[] data = body.getBytes();
        store.putObject("bucket", key, PutRequest.of(data.length), new ByteArrayInputStream(data));
    }

    private static void assertKind(ErrorKind kind, org.assertj.core.api.ThrowableAssert.ThrowingCallable call) {
        assertThatThrownBy(call).isInstanceOfSatisfying(StorageException.class, e -> assertThat(e.kind())
                .isEqualTo(kind));
    }

    @Test
    void retriedCompletion_answersTheObjectItMade() throws Exception {
        store.setVersioning("bucket", VersioningState.ENABLED);
        String id = store.createMultipartUpload("bucket", "k", PutRequest.of(-1), null);
        List<CompletedPart> parts = oneSmallPart("k", id, "hello");
        ObjectInfo first = store.completeMultipartUpload("bucket", "k", id, parts);
        ObjectInfo again = store.completeMultipartUpload("bucket", "k", id, parts);
        assertThat(again.versionId()).isEqualTo(first.versionId());
        assertThat(again.etag()).isEqualTo(first.etag());
        assertThat(store.listObjectVersions("bucket", "k", null, null, null, 100)
                        .versions())
                .hasSize(1);
        // other parts than the ones completed are not that completion
        assertKind(
                ErrorKind.NO_SUCH_UPLOAD,
                () -> store.completeMultipartUpload(
                        "bucket", "k", id, List.of(new CompletedPart(1, "0123456789abcdef0123456789abcdef"))));
        // once something else is the current object, the upload is gone for good
        put("k", "newer");
        assertKind(ErrorKind.NO_SUCH_UPLOAD, () -> store.completeMultipartUpload("bucket", "k", id, parts));
    }

    @Test
    void internalUploadRecord_isNotCopied() throws Exception {
        String id = store.createMultipartUpload("bucket", "src", PutRequest.of(-1), null);
        store.completeMultipartUpload("bucket", "src", id, oneSmallPart("src", id, "data"));
        assertThat(store.headObject("bucket", "src", null).userMetadata()).containsKey(MultipartUploads.UPLOAD_ID_KEY);
        ObjectInfo copy = store.copyObject("bucket", "src", null, "bucket", "dst", null);
        assertThat(copy.userMetadata()).doesNotContainKey(MultipartUploads.UPLOAD_ID_KEY);
    }

    @Test
    void ifNoneMatchAny_refusesWhenTheKeyExists_andLeavesTheUploadOpen() throws Exception {
        put("k", "existing");
        String id = store.createMultipartUpload("bucket", "k", PutRequest.of(-1), null);
        List<CompletedPart> parts = oneSmallPart("k", id, "new");
        assertKind(
                ErrorKind.PRECONDITION_FAILED,
                () -> store.completeMultipartUpload(
                        "bucket", "k", id, parts, CompleteChecksum.NONE, new WriteConditions(null, true)));
        assertThat(store.headObject("bucket", "k", null).size()).isEqualTo(8);
        // the upload is still there to complete unconditionally (or abort)
        assertThat(store.completeMultipartUpload("bucket", "k", id, parts).size())
                .isEqualTo(3);
    }

    @Test
    void ifMatch_needsTheCurrentEtag_andAnObject() throws Exception {
        String id = store.createMultipartUpload("bucket", "k", PutRequest.of(-1), null);
        List<CompletedPart> parts = oneSmallPart("k", id, "new");
        assertKind(
                ErrorKind.OBJECT_NOT_FOUND,
                () -> store.completeMultipartUpload(
                        "bucket", "k", id, parts, CompleteChecksum.NONE, new WriteConditions("*", false)));
        put("k", "existing");
        String etag = store.headObject("bucket", "k", null).etag();
        assertKind(
                ErrorKind.PRECONDITION_FAILED,
                () -> store.completeMultipartUpload(
                        "bucket",
                        "k",
                        id,
                        parts,
                        CompleteChecksum.NONE,
                        new WriteConditions("\"0123456789abcdef0123456789abcdef\"", false)));
        ObjectInfo done = store.completeMultipartUpload(
                "bucket", "k", id, parts, CompleteChecksum.NONE, new WriteConditions("\"" + etag + "\"", false));
        assertThat(done.etag()).endsWith("-1");
    }
}
