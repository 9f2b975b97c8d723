package dev.appliance.s3.error;

import static org.assertj.core.api.Assertions.assertThat;

import dev.appliance.core.error.ErrorKind;
import dev.appliance.core.error.StorageException;
import dev.appliance.s3.xml.XmlElement;
import dev.appliance.s3.xml.XmlReader;
import dev.appliance.s3.xml.XmlWriter;
import java.io.IOException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class ErrorTableTest {
    @ParameterizedTest
    @EnumSource(S3ErrorCode.class)
    void everyEntry_rendersAsS3ErrorDocument(S3ErrorCode code) {
        S3Exception e = new S3Exception(code);
        byte[] doc = new XmlWriter()
                .start("Error")
                .element("Code", e.code().code())
                .element("Message", e.getMessage())
                .element("Resource", "/b/k")
                .element("RequestId", "ID")
                .toBytes();
        XmlElement root = XmlReader.parse(doc);
        assertThat(root.name()).isEqualTo("Error");
        assertThat(root.childText("Code")).contains(code.name());
        assertThat(root.childText("Message")).get().asString().isNotBlank();
        assertThat(code.status()).isBetween(400, 599);
    }

    @ParameterizedTest
    @EnumSource(ErrorKind.class)
    void everyEngineKind_mapsToAnEntry(ErrorKind kind) {
        S3Exception e = ErrorMapper.map(new StorageException(kind, "detail"));
        assertThat(e.code()).isEqualTo(ErrorMapper.codeFor(kind));
    }

    @Test
    void mapper_quorumLossIs503_fullIs507_internalHidesDetail() {
        assertThat(ErrorMapper.map(new StorageException(ErrorKind.WRITE_QUORUM, "x"))
                        .code()
                        .status())
                .isEqualTo(503);
        assertThat(ErrorMapper.map(new StorageException(ErrorKind.STORAGE_FULL, "x"))
                        .code()
                        .status())
                .isEqualTo(507);
        S3Exception internal = ErrorMapper.map(new StorageException(ErrorKind.INTERNAL, "/secret/path"));
        assertThat(internal.getMessage()).doesNotContain("/secret/path");
    }

    @Test
    void mapper_deleteMarkerAddsHeaders_andBodyFailureSurvivesWrapping() {
        S3Exception e = ErrorMapper.map(new StorageException(ErrorKind.OBJECT_NOT_FOUND, "gone", null, true, "v1"));
        assertThat(e.code()).isEqualTo(S3ErrorCode.NoSuchKey);
        assertThat(e.headers()).containsEntry("x-amz-delete-marker", "true").containsEntry("x-amz-version-id", "v1");

        BodyException body = new BodyException(S3ErrorCode.XAmzContentSHA256Mismatch, "m");
        assertThat(ErrorMapper.map(new StorageException(ErrorKind.INTERNAL, "wrap", body))
                        .code())
                .isEqualTo(S3ErrorCode.XAmzContentSHA256Mismatch);
        assertThat(ErrorMapper.map(new IOException("reset")).code()).isEqualTo(S3ErrorCode.IncompleteBody);
        assertThat(ErrorMapper.map(new IllegalStateException()).code()).isEqualTo(S3ErrorCode.InternalError);
    }
}
