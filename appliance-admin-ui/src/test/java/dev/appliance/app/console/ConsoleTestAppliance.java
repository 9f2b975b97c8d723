package dev.appliance.app.console;

import dev.appliance.app.cli.ServerOptions;
import dev.appliance.core.PutRequest;
import dev.appliance.core.admin.ApplianceStore;
import dev.appliance.core.identity.IdentityStore;
import dev.appliance.core.identity.UserPolicies;
import dev.appliance.core.policy.PolicySetCache;
import dev.appliance.core.testing.TestStore;
import dev.appliance.s3.S3Server;
import dev.appliance.s3.S3ServerConfig;
import dev.appliance.s3.auth.AccountCredentials;
import dev.appliance.s3.auth.Authorizer;
import dev.appliance.s3.auth.CredentialsProvider;
import dev.appliance.s3.auth.PolicyAuthorizer;
import dev.appliance.s3.auth.SigV4;
import dev.appliance.s3.auth.StoreBucketPolicies;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The console tests' appliance: a real store on four drive directories (one bucket, one object), the S3 server and
 * the console on OS-chosen ports (fault injection on), one root key, and requests sent with the path byte for byte as
 * given, unsigned or SigV4-signed as the CLI signs them (service s3).
 */
final class ConsoleTestAppliance implements AutoCloseable {
    static final String ACCESS_KEY = "ROOTKEY";

    final ApplianceStore store;
    final S3Server s3;
    final ConsoleApplication.Running console;
    final HttpClient http;
    private final String secret;

    private ConsoleTestAppliance(
            ApplianceStore store, S3Server s3, ConsoleApplication.Running console, HttpClient http, String secret) {
        this.store = store;
        this.s3 = s3;
        this.console = console;
        this.http = http;
        this.secret = secret;
    }

    /** Opens the store with {@code bucket/key} written; the caller may prepare more before {@link #start}. */
    static ApplianceStore openStore(Path tmp, String bucket, String key) throws IOException {
        ApplianceStore store = TestStore.on(tmp).open();
        store.makeBucket(bucket);
        byte[] data = "hello".getBytes(StandardCharsets.UTF_8);
        store.putObject(bucket, key, PutRequest.of(data.length), new ByteArrayInputStream(data));
        return store;
    }

    /** Starts S3 and the console over {@code store}; {@code extra} adds beans before the console's context starts. */
    static ConsoleTestAppliance start(
            ApplianceStore store,
            String secret,
            Authorizer authorizer,
            ApplicationContextInitializer<ConfigurableApplicationContext> extra)
            throws Exception {
        return start(store, secret, authorizer, Map.of(), extra);
    }

    /** As above, with {@code appliance.*} settings given as {@code -D} system properties are. */
    static ConsoleTestAppliance start(
            ApplianceStore store,
            String secret,
            Authorizer authorizer,
            Map<String, String> settings,
            ApplicationContextInitializer<ConfigurableApplicationContext> extra)
            throws Exception {
        CredentialsProvider credentials = k -> k.equals(ACCESS_KEY) ? Optional.of(secret) : Optional.empty();
        store.identity().reserveAccessKeyId(ACCESS_KEY); // the root key, as the appliance's start marks it
        S3Server s3 = S3Server.start(store, new S3ServerConfig("127.0.0.1", 0, null, credentials, authorizer));
        var properties = ServerOptions.parse(
                        List.of("--console-address", "127.0.0.1:0"),
                        Map.of(),
                        // on, so that a fault-injection request that got through would visibly break a drive
                        withFaultInjection(settings))
                .properties();
        var console = ConsoleApplication.start(properties, store, s3, credentials, authorizer, extra);
        HttpClient http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10))
                .build();
        return new ConsoleTestAppliance(store, s3, console, http, secret);
    }

    private static Map<String, String> withFaultInjection(Map<String, String> settings) {
        Map<String, String> out = new TreeMap<>(settings);
        out.put("appliance.faultInjection", "true");
        return out;
    }

    /**
     * Starts S3 and the console over {@code store}, whose identity state must be unlocked, authenticating the root key
     * and IAM users' keys and authorizing by their policies, as the appliance's start does.
     */
    static ConsoleTestAppliance startWithIdentity(ApplianceStore store, String secret) throws Exception {
        return startWithIdentity(store, secret, c -> {});
    }

    /** As {@link #startWithIdentity(ApplianceStore, String)}; {@code extra} adds beans (e.g. a {@code Clock}). */
    static ConsoleTestAppliance startWithIdentity(
            ApplianceStore store, String secret, ApplicationContextInitializer<ConfigurableApplicationContext> extra)
            throws Exception {
        IdentityStore identity = store.identity();
        identity.reserveAccessKeyId(ACCESS_KEY);
        // as the appliance's start: S3 refuses the root key while it is off for S3, the console always takes it
        CredentialsProvider credentials = AccountCredentials.forS3(ACCESS_KEY, secret, identity);
        CredentialsProvider consoleCredentials = new AccountCredentials(ACCESS_KEY, secret, identity);
        Authorizer authorizer = new PolicyAuthorizer(
                ACCESS_KEY,
                identity,
                new UserPolicies(identity, new PolicySetCache(100)),
                new StoreBucketPolicies(store));
        S3Server s3 = S3Server.start(store, new S3ServerConfig("127.0.0.1", 0, null, credentials, authorizer));
        var properties = ServerOptions.parse(
                        List.of("--console-address", "127.0.0.1:0"),
                        Map.of(),
                        Map.of("appliance.faultInjection", "true"))
                .properties();
        var console = ConsoleApplication.start(properties, store, s3, consoleCredentials, authorizer, extra);
        HttpClient http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10))
                .build();
        return new ConsoleTestAppliance(store, s3, console, http, secret);
    }

    /** One request to the console; {@code secret} null: unsigned. The query (after '?') is signed with the path. */
    HttpResponse<String> send(String method, String rawPathAndQuery, String body, String secret) throws Exception {
        return sendAs(method, rawPathAndQuery, body, ACCESS_KEY, secret);
    }

    /** As {@link #send(String, String, String, String)}, signed by {@code accessKey}. */
    HttpResponse<String> sendAs(String method, String rawPathAndQuery, String body, String accessKey, String secret)
            throws Exception {
        return sendTo(console.port(), method, rawPathAndQuery, body, accessKey, secret);
    }

    /** As {@link #sendAs}, to the S3 port. */
    HttpResponse<String> s3As(String method, String rawPathAndQuery, String body, String accessKey, String secret)
            throws Exception {
        return sendTo(s3.port(), method, rawPathAndQuery, body, accessKey, secret);
    }

    private HttpResponse<String> sendTo(
            int port, String method, String rawPathAndQuery, String body, String accessKey, String secret)
            throws Exception {
        return http.send(
                request(
                        port,
                        method,
                        rawPathAndQuery,
                        body == null ? null : body.getBytes(StandardCharsets.UTF_8),
                        "application/json",
                        accessKey,
                        secret),
                HttpResponse.BodyHandlers.ofString());
    }

    /** As {@link #sendAs}, with a body of any bytes and type, answered as bytes (uploads, downloads). */
    HttpResponse<byte[]> bytesAs(
            String method, String rawPathAndQuery, byte[] body, String contentType, String accessKey, String secret)
            throws Exception {
        return http.send(
                request(console.port(), method, rawPathAndQuery, body, contentType, accessKey, secret),
                HttpResponse.BodyHandlers.ofByteArray());
    }

    private HttpRequest request(
            int port,
            String method,
            String rawPathAndQuery,
            byte[] body,
            String contentType,
            String accessKey,
            String secret) {
        byte[] bytes = body == null ? new byte[0] : body;
        int q = rawPathAndQuery.indexOf('?');
        String path = q < 0 ? rawPathAndQuery : rawPathAndQuery.substring(0, q);
        String query = q < 0 ? "" : rawPathAndQuery.substring(q + 1);
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + rawPathAndQuery))
                .timeout(Duration.ofSeconds(30))
                .method(
                        method,
                        body == null
                                ? HttpRequest.BodyPublishers.noBody()
                                : HttpRequest.BodyPublishers.ofByteArray(bytes));
        if (body != null) {
            b.header("Content-Type", contentType);
        }
        if (secret != null) {
            String amzDate =
                    DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").format(ZonedDateTime.now(ZoneOffset.UTC));
            String date = amzDate.substring(0, 8);
            String payload = SigV4.sha256Hex(bytes);
            TreeMap<String, List<String>> headers = new TreeMap<>();
            headers.put("host", List.of("127.0.0.1:" + port));
            headers.put("x-amz-content-sha256", List.of(payload));
            headers.put("x-amz-date", List.of(amzDate));
            String signature = SigV4.sign(
                    secret, date, S3ServerConfig.DEFAULT_REGION, amzDate, method, path, query, headers, payload);
            b.header("x-amz-content-sha256", payload)
                    .header("x-amz-date", amzDate)
                    .header(
                            "Authorization",
                            SigV4.ALGORITHM + " Credential=" + accessKey + "/"
                                    + SigV4.scope(date, S3ServerConfig.DEFAULT_REGION, "s3")
                                    + ", SignedHeaders=" + String.join(";", headers.keySet()) + ", Signature="
                                    + signature);
        }
        return b.build();
    }

    /** As {@link #send(String, String, String, String)}, signed with the appliance's own secret. */
    HttpResponse<String> signed(String method, String rawPathAndQuery, String body) throws Exception {
        return send(method, rawPathAndQuery, body, secret);
    }

    @Override
    public void close() {
        http.close();
        console.close();
        s3.close();
        store.close();
    }
}
