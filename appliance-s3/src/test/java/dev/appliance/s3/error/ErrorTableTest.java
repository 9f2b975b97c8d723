package dev.appliance.s3.error;

import static org.assertj.core.api.Assertions.assertThat;

import dev.appliance.core.error.ErrorKind;
import dev.appliance.core.error.StorageException;
import java.io.IOException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class ErrorTableTest {
    @ParameterizedTest
    @EnumSource(S3ErrorCode.class)
    void everyEntry_hasAnErrorStatusAndADefaultMessage(S3ErrorCode code) {
        S3Exception e = new S3Exception(code);
        assertThat(e.getMessage()).isNotBlank();
        assertThat(code.status()).isBetween(400, 599);
    }

    /** Only the engine's own internal failure becomes S3's opaque InternalError; every other kind keeps its meaning. */
    @ParameterizedTest
    @EnumSource(ErrorKind.class)
    void everyEngineKind_butInternal_mapsToASpecificEntry(ErrorKind kind) {
        S3ErrorCode code = ErrorMapper.map(new StorageException(kind, "detail")).code();
        if (kind == ErrorKind.INTERNAL) {
            assertThat(code).isEqualTo(S3ErrorCode.InternalError);
        } else {
            assertThat(code).isNotEqualTo(S3ErrorCode.InternalError);
        }
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
