package dev.appliance.s3.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.appliance.core.ObjectStore;
import dev.appliance.s3.S3Server;
import dev.appliance.s3.auth.Authorizer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;

/**
 * A wrong secret must fail on every authentication style and every operation, and change nothing: signed and unsigned
 * payloads, aws-chunked with chunk signatures and with trailers, presigned URLs; reads, writes, parts, copies and
 * deletes. (The bug class of recent CVEs in S3 servers: one path that forgot to verify.)
 */
class AuthMatrixTest {
    private static final String WRONG = "not-the-secret-key-000";

    @TempDir
    static Path drives;

    private static ObjectStore store;
    private static S3Server server;
    private static S3Client good;
    private static String uploadId;
    private static final List<S3Client> clients = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        TestServer started = TestServer.start(drives, Authorizer.allowAll());
        store = started.store();
        server = started.server();
        good = client(TestServer.SECRET_KEY, b -> {});
        good.createBucket(b -> b.bucket("matrix"));
        good.putObject(b -> b.bucket("matrix").key("existing"), RequestBody.fromString("keep me"));
        uploadId = good.createMultipartUpload(b -> b.bucket("matrix").key("upload"))
                .uploadId();
    }

    @AfterAll
    static void stop() {
        clients.forEach(S3Client::close);
        server.close();
        store.close();
    }

    private static S3Client client(String secret, Consumer<software.amazon.awssdk.services.s3.S3ClientBuilder> custom) {
        var b = S3Client.builder()
                .endpointOverride(URI.create("http://127.0.0.1:" + server.port()))
                .region(Region.US_EAST_1)
                .credentialsProvider(
                        StaticCredentialsProvider.create(AwsBasicCredentials.create(TestServer.ACCESS_KEY, secret)))
                .forcePathStyle(true)
                // Apache's client reads the error body of a request refused while it waits for 100 Continue.
                .httpClient(ApacheHttpClient.create());
        custom.accept(b);
        S3Client c = b.build();
        clients.add(c);
        return c;
    }

    /** Signing styles of the SDK, each with the wrong secret. */
    static Stream<Arguments> styles() {
        return Stream.of(
                Arguments.of(
                        "aws-chunked, signed chunks + trailer",
                        (Consumer<software.amazon.awssdk.services.s3.S3ClientBuilder>) b -> {}),
                Arguments.of("aws-chunked, signed chunks, no trailer", (Consumer<
                                software.amazon.awssdk.services.s3.S3ClientBuilder>)
                        b -> b.requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)),
                Arguments.of("signed payload (SHA-256), no chunking", (Consumer<
                                software.amazon.awssdk.services.s3.S3ClientBuilder>)
                        b -> b.requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                                .serviceConfiguration(S3Configuration.builder()
                                        .chunkedEncodingEnabled(false)
                                        .build())));
    }

    /** Every operation, as the wrong-secret client performs it. */
    static Stream<Arguments> matrix() {
        List<Arguments> out = new ArrayList<>();
        for (Arguments style : styles().toList()) {
            for (String op : List.of(
                    "PutObject",
                    "UploadPart",
                    "CopyObject",
                    "DeleteObject",
                    "DeleteObjects",
                    "GetObject",
                    "ListObjectsV2",
                    "CreateBucket",
                    "CompleteMultipartUpload")) {
                out.add(Arguments.of(style.get()[0], style.get()[1], op));
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0}: {2}")
    @MethodSource("matrix")
    void wrongSecret_isRefusedAndChangesNothing(
            String style, Consumer<software.amazon.awssdk.services.s3.S3ClientBuilder> config, String op) {
        S3Client bad = client(WRONG, config);
        Runnable call =
                switch (op) {
                    case "PutObject" ->
                        () -> bad.putObject(
                                b -> b.bucket("matrix").key("new"), RequestBody.fromString("x".repeat(70_000)));
                    case "UploadPart" ->
                        () -> bad.uploadPart(
                                b -> b.bucket("matrix")
                                        .key("upload")
                                        .uploadId(uploadId)
                                        .partNumber(1),
                                RequestBody.fromString("part"));
                    case "CopyObject" ->
                        () -> bad.copyObject(b -> b.sourceBucket("matrix")
                                .sourceKey("existing")
                                .destinationBucket("matrix")
                                .destinationKey("copied"));
                    case "DeleteObject" ->
                        () -> bad.deleteObject(b -> b.bucket("matrix").key("existing"));
                    case "DeleteObjects" ->
                        () -> bad.deleteObjects(b -> b.bucket("matrix")
                                .delete(d -> d.objects(ObjectIdentifier.builder()
                                        .key("existing")
                                        .build())));
                    case "GetObject" ->
                        () -> bad.getObjectAsBytes(b -> b.bucket("matrix").key("existing"));
                    case "ListObjectsV2" -> () -> bad.listObjectsV2(b -> b.bucket("matrix"));
                    case "CreateBucket" -> () -> bad.createBucket(b -> b.bucket("intruder"));
                    case "CompleteMultipartUpload" ->
                        () -> bad.completeMultipartUpload(b -> b.bucket("matrix")
                                .key("upload")
                                .uploadId(uploadId)
                                .multipartUpload(
                                        m -> m.parts(p -> p.partNumber(1).eTag("\"00\""))));
                    default -> throw new IllegalArgumentException(op);
                };
        S3Exception e = catchThrowableOfType(S3Exception.class, call::run);
        assertThat(e).as("%s with a wrong secret must fail", op).isNotNull();
        assertThat(e.statusCode()).isEqualTo(403);
        assertThat(e.awsErrorDetails().errorCode()).isEqualTo("SignatureDoesNotMatch");

        assertThat(good.getObjectAsBytes(b -> b.bucket("matrix").key("existing"))
                        .asUtf8String())
                .isEqualTo("keep me");
        assertThat(good.listObjectsV2(b -> b.bucket("matrix")).contents())
                .extracting(o -> o.key())
                .containsExactly("existing");
        assertThat(good.listParts(b -> b.bucket("matrix").key("upload").uploadId(uploadId))
                        .parts())
                .isEmpty();
        assertThat(good.listBuckets().buckets()).extracting(b -> b.name()).containsExactly("matrix");
    }

    @ParameterizedTest(name = "presigned {0}")
    @MethodSource("presignedMethods")
    void presignedUrlWithWrongSecret_isRefusedAndChangesNothing(String method) throws Exception {
        try (S3Presigner presigner = S3Presigner.builder()
                .endpointOverride(URI.create("http://127.0.0.1:" + server.port()))
                .region(Region.US_EAST_1)
                .credentialsProvider(
                        StaticCredentialsProvider.create(AwsBasicCredentials.create(TestServer.ACCESS_KEY, WRONG)))
                .serviceConfiguration(
                        S3Configuration.builder().pathStyleAccessEnabled(true).build())
                .build()) {
            URI url =
                    switch (method) {
                        case "GET" ->
                            presigner
                                    .presignGetObject(p -> p.signatureDuration(Duration.ofMinutes(5))
                                            .getObjectRequest(
                                                    g -> g.bucket("matrix").key("existing")))
                                    .url()
                                    .toURI();
                        case "PUT" ->
                            presigner
                                    .presignPutObject(p -> p.signatureDuration(Duration.ofMinutes(5))
                                            .putObjectRequest(
                                                    g -> g.bucket("matrix").key("presigned-new")))
                                    .url()
                                    .toURI();
                        default ->
                            presigner
                                    .presignDeleteObject(p -> p.signatureDuration(Duration.ofMinutes(5))
                                            .deleteObjectRequest(
                                                    g -> g.bucket("matrix").key("existing")))
                                    .url()
                                    .toURI();
                    };
            HttpRequest.Builder req = HttpRequest.newBuilder(url);
            req = switch (method) {
                case "GET" -> req.GET();
                case "PUT" -> req.PUT(HttpRequest.BodyPublishers.ofString("intruder"));
                default -> req.DELETE();
            };
            HttpResponse<String> resp =
                    HttpClient.newHttpClient().send(req.build(), HttpResponse.BodyHandlers.ofString());
            assertThat(resp.statusCode()).isEqualTo(403);
            assertThat(resp.body()).contains("<Code>SignatureDoesNotMatch</Code>");
        }
        assertThat(good.getObjectAsBytes(b -> b.bucket("matrix").key("existing"))
                        .asUtf8String())
                .isEqualTo("keep me");
        assertThat(good.listObjectsV2(b -> b.bucket("matrix")).contents())
                .extracting(o -> o.key())
                .containsExactly("existing");
    }

    static Stream<String> presignedMethods() {
        return Stream.of("GET", "PUT", "DELETE");
    }
}
