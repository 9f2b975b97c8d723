package dev.appliance.s3.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.appliance.s3.testing.S3TestServer;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.BucketVersioningStatus;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * A GET whose shards turn out unreadable only while the body is read (the metadata agreed, then more shards than the
 * parity failed their bitrot checks). A small body (up to 64 KiB) is read before anything is sent, so the client gets
 * S3's error (503 ServiceUnavailable) and the connection stays usable; a larger one has sent its status line by then,
 * so the connection is cut and the client sees a short body, never wrong bytes.
 */
class ReadFailureResponseTest {
    private static final String BUCKET = "damaged";

    @RegisterExtension
    static final S3TestServer SERVER = S3TestServer.allowingAll();

    private static S3Client s3;

    @BeforeAll
    static void start() {
        s3 = SERVER.client(b -> b.overrideConfiguration(o -> o.retryStrategy(r -> r.maxAttempts(1))));
        s3.createBucket(b -> b.bucket(BUCKET));
        // versioned: bodies over 16 KiB go to part files, whose shards are checked only as they are read
        s3.putBucketVersioning(
                b -> b.bucket(BUCKET).versioningConfiguration(v -> v.status(BucketVersioningStatus.ENABLED)));
    }

    private static byte[] put(String key, int size) {
        byte[] data = new byte[size];
        new Random(size).nextBytes(data);
        s3.putObject(b -> b.bucket(BUCKET).key(key), RequestBody.fromBytes(data));
        return data;
    }

    /** Flips bytes inside the shard data of the part files of {@code key} on three of the four drives. */
    private static void corruptThreeDrives(String key) throws IOException {
        for (int d = 1; d <= 3; d++) {
            Path objectDir =
                    SERVER.drives().resolve("drive" + d).resolve(BUCKET).resolve(key);
            List<Path> parts;
            try (Stream<Path> files = Files.walk(objectDir)) {
                parts = files.filter(f -> f.getFileName().toString().startsWith("part."))
                        .toList();
            }
            assertThat(parts).as("part files on drive %d", d).isNotEmpty();
            for (Path p : parts) {
                try (RandomAccessFile raf = new RandomAccessFile(p.toFile(), "rw")) {
                    long at = raf.length() / 2; // past the first block's checksum, inside its shard
                    raf.seek(at);
                    int b = raf.read();
                    raf.seek(at);
                    raf.write(b ^ 0x5a);
                }
            }
        }
    }

    @Test
    void smallBody_unreadableWhileRead_isAnsweredWithServiceUnavailable_andTheConnectionServesTheNextRequest()
            throws Exception {
        byte[] intact = put("intact", 40 * 1024);
        put("small", 40 * 1024);
        corruptThreeDrives("small");

        assertThatThrownBy(() -> s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("small")))
                .isInstanceOfSatisfying(S3Exception.class, e -> {
                    assertThat(e.statusCode()).isEqualTo(503);
                    assertThat(e.awsErrorDetails().errorCode()).isEqualTo("ServiceUnavailable");
                });
        // the same client (its pooled connection, kept alive after the error) still reads an intact object
        assertThat(s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("intact")).asByteArray())
                .isEqualTo(intact);
    }

    @Test
    void largerBody_unreadableWhileRead_cutsTheConnection_neverSendsWrongBytes() throws Exception {
        put("large", 300 * 1024);
        corruptThreeDrives("large");

        assertThatThrownBy(() -> s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("large")))
                .as("a connection cut short is an error to the client, not an object")
                .isInstanceOf(SdkClientException.class)
                .isNotInstanceOf(S3Exception.class);
    }
}
