package dev.appliance.jmh;

import dev.appliance.core.StoreConfig;
import dev.appliance.core.admin.ApplianceStore;
import dev.appliance.core.engine.Stores;
import dev.appliance.core.identity.IdentityStore;
import dev.appliance.core.identity.ManagedPolicy;
import dev.appliance.core.identity.NewAccessKey;
import dev.appliance.core.identity.UserPolicies;
import dev.appliance.core.policy.PolicySetCache;
import dev.appliance.s3.S3Server;
import dev.appliance.s3.S3ServerConfig;
import dev.appliance.s3.auth.AccountCredentials;
import dev.appliance.s3.auth.PolicyAuthorizer;
import dev.appliance.s3.auth.SigV4;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;

/**
 * Load run for issue 14's target "4 KiB PUT/GET with a 20-statement user policy within 5% of the root key": a real
 * store on four drive directories, the real S3 server wired as the appliance wires it ({@link AccountCredentials},
 * {@link PolicyAuthorizer}), an IAM user whose one managed policy has 20 statements (the granting one near the end),
 * and client threads that PUT a 4 KiB object and GET it back, signed with SigV4. In each round as many callers use the
 * root key as the user's key, at the same time, so both see the same machine load (separate rounds on a shared machine
 * differ by more than the 5% to be resolved); each round prints both PUT+GET rates.
 *
 * <p>Not a JMH benchmark (it measures whole requests through the network stack): run it by hand, see
 * docs/benchmarks.md, "Authorization under load".
 *
 * <pre>
 * java -cp jmh/target/benchmarks.jar dev.appliance.jmh.AuthorizationLoad [callers per key] [seconds per round] [rounds] [dir]
 * </pre>
 */
public final class AuthorizationLoad {
    private static final String BUCKET = "load";
    private static final String ROOT_KEY = "loadroot";
    private static final String ROOT_SECRET = "loadroot-secret-0123456789";
    private static final int SIZE = 4096;
    private static final DateTimeFormatter AMZ_DATE = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'");

    private AuthorizationLoad() {}

    public static void main(String[] args) throws Exception {
        int threads = args.length > 0 ? Integer.parseInt(args[0]) : 8;
        int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 20;
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 3;
        Path dir = args.length > 3 ? Path.of(args[3]) : Files.createTempDirectory("authz-load-");
        List<Path> drives = new ArrayList<>();
        for (int i = 1; i <= 4; i++) {
            drives.add(Files.createDirectories(dir.resolve("drive" + i)));
        }
        byte[] identityKey = new byte[32];
        Arrays.fill(identityKey, (byte) 3);
        try (ApplianceStore store = Stores.open(StoreConfig.of(drives).withIdentityKey(identityKey))) {
            IdentityStore identity = store.identity();
            identity.reserveAccessKeyId(ROOT_KEY);
            PolicySetCache sets = new PolicySetCache(10_000);
            try (S3Server server = S3Server.start(
                    store,
                    new S3ServerConfig(
                            "127.0.0.1",
                            0,
                            null,
                            AccountCredentials.forS3(ROOT_KEY, ROOT_SECRET, identity),
                            new PolicyAuthorizer(ROOT_KEY, identity, new UserPolicies(identity, sets), b -> null)))) {
                store.makeBucket(BUCKET);
                identity.createUser("loaduser");
                NewAccessKey userKey = identity.createAccessKey("loaduser");
                ManagedPolicy policy = identity.createPolicy("Twenty", twentyStatements());
                identity.attachUserPolicy("loaduser", policy.arn());

                String endpoint = "http://127.0.0.1:" + server.port();
                HttpClient http = HttpClient.newBuilder()
                        .version(HttpClient.Version.HTTP_1_1)
                        .build();
                Caller root = new Caller(http, endpoint, ROOT_KEY, ROOT_SECRET);
                Caller user = new Caller(http, endpoint, userKey.key().accessKeyId(), userKey.secretAccessKey());
                System.out.printf(
                        "4 KiB PUT+GET, %d root and %d user callers at the same time, %d s per round, %d rounds; %s%n",
                        threads, threads, seconds, rounds, dir);
                run(root, user, threads, 3); // warm-up: JIT, connections, the user's compiled set
                double rootSum = 0;
                double userSum = 0;
                for (int r = 1; r <= rounds; r++) {
                    double[] ops = run(root, user, threads, seconds);
                    rootSum += ops[0];
                    userSum += ops[1];
                    System.out.printf(
                            "round %d: root %.1f ops/s, user %.1f ops/s (%+.1f %%)%n",
                            r, ops[0], ops[1], (ops[1] / ops[0] - 1) * 100);
                }
                System.out.printf(
                        "mean: root %.1f ops/s, user %.1f ops/s (%+.1f %%); policy sets compiled: %d%n",
                        rootSum / rounds, userSum / rounds, (userSum / rootSum - 1) * 100, sets.compilations());
            }
        } finally {
            if (args.length <= 3) {
                try (Stream<Path> files = Files.walk(dir)) {
                    for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                        Files.deleteIfExists(p);
                    }
                }
            }
        }
    }

    /** 19 Allows on other buckets (some with conditions), the granting Allow, and a conditional Deny. */
    static String twentyStatements() {
        List<String> statements = new ArrayList<>();
        for (int i = 0; i < 18; i++) {
            String bucket = "other-" + i;
            String condition =
                    switch (i % 3) {
                        case 0 -> ", \"Condition\": {\"IpAddress\": {\"aws:SourceIp\": [\"10.0.0.0/8\"]}}";
                        case 1 -> ", \"Condition\": {\"Bool\": {\"aws:SecureTransport\": \"true\"}}";
                        default -> "";
                    };
            statements.add("{\"Sid\": \"Bucket" + i + "\", \"Effect\": \"Allow\", \"Action\": [\"s3:GetObject\","
                    + " \"s3:PutObject\", \"s3:ListBucket\"], \"Resource\": [\"arn:aws:s3:::" + bucket + "\","
                    + " \"arn:aws:s3:::" + bucket + "/*\"]" + condition + "}");
        }
        statements.add("{\"Sid\": \"Load\", \"Effect\": \"Allow\", \"Action\": [\"s3:GetObject\", \"s3:PutObject\"],"
                + " \"Resource\": \"arn:aws:s3:::" + BUCKET + "/Veeam/*\", \"Condition\": {\"StringNotEqualsIfExists\":"
                + " {\"s3:x-amz-acl\": \"public-read\"}}}");
        statements.add("{\"Sid\": \"NoVersionDeletes\", \"Effect\": \"Deny\", \"Action\": \"s3:DeleteObjectVersion\","
                + " \"Resource\": \"*\", \"Condition\": {\"NotIpAddress\": {\"aws:SourceIp\": \"10.0.0.0/8\"}}}");
        return "{\"Version\": \"2012-10-17\", \"Statement\": [" + String.join(", ", statements) + "]}";
    }

    /**
     * PUT+GET operations per second of {@code threads} callers with the root key and as many with the user's key,
     * running in the same time window so that both see the same machine load: {root, user}.
     */
    private static double[] run(Caller root, Caller user, int threads, int seconds) throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        long[] counts = new long[threads * 2];
        ExecutorService pool = Executors.newFixedThreadPool(threads * 2);
        List<Future<?>> done = new ArrayList<>();
        long start = System.nanoTime();
        for (int t = 0; t < threads * 2; t++) {
            int id = t;
            Caller caller = t % 2 == 0 ? root : user;
            done.add(pool.submit(() -> {
                byte[] body = new byte[SIZE];
                new Random(id).nextBytes(body);
                String hash = SigV4.sha256Hex(body);
                for (int i = 0; !stop.get(); i++) {
                    String key = "Veeam/t" + id + "/o" + (i % 64);
                    caller.put(key, body, hash);
                    byte[] got = caller.get(key);
                    if (!Arrays.equals(got, body)) {
                        throw new IllegalStateException("GET " + key + " returned other bytes");
                    }
                    counts[id] += 2;
                }
                return null;
            }));
        }
        Thread.sleep(seconds * 1000L);
        stop.set(true);
        for (Future<?> f : done) {
            f.get();
        }
        double elapsed = (System.nanoTime() - start) / 1e9;
        pool.shutdown();
        long rootOps = 0;
        long userOps = 0;
        for (int t = 0; t < counts.length; t++) {
            if (t % 2 == 0) {
                rootOps += counts[t];
            } else {
                userOps += counts[t];
            }
        }
        return new double[] {rootOps / elapsed, userOps / elapsed};
    }

    /** Signs and sends requests with one key pair. */
    private record Caller(HttpClient http, String endpoint, String accessKey, String secret) {
        void put(String key, byte[] body, String hash) throws IOException, InterruptedException {
            HttpResponse<Void> r = http.send(
                    signed("PUT", key, hash)
                            .PUT(HttpRequest.BodyPublishers.ofByteArray(body))
                            .build(),
                    HttpResponse.BodyHandlers.discarding());
            if (r.statusCode() != 200) {
                throw new IllegalStateException("PUT " + key + " by " + accessKey + ": HTTP " + r.statusCode());
            }
        }

        byte[] get(String key) throws IOException, InterruptedException {
            HttpResponse<byte[]> r = http.send(
                    signed("GET", key, SigV4.EMPTY_SHA256).GET().build(), HttpResponse.BodyHandlers.ofByteArray());
            if (r.statusCode() != 200) {
                throw new IllegalStateException("GET " + key + " by " + accessKey + ": HTTP " + r.statusCode());
            }
            return r.body();
        }

        private HttpRequest.Builder signed(String method, String key, String payloadHash) {
            URI uri = URI.create(endpoint + "/" + BUCKET + "/" + key);
            String amzDate = ZonedDateTime.now(ZoneOffset.UTC).format(AMZ_DATE);
            String date = amzDate.substring(0, 8);
            TreeMap<String, List<String>> headers = new TreeMap<>();
            headers.put("host", List.of(uri.getHost() + ":" + uri.getPort()));
            headers.put("x-amz-content-sha256", List.of(payloadHash));
            headers.put("x-amz-date", List.of(amzDate));
            String signature = SigV4.sign(
                    secret,
                    date,
                    S3ServerConfig.DEFAULT_REGION,
                    amzDate,
                    method,
                    uri.getRawPath(),
                    "",
                    headers,
                    payloadHash);
            return HttpRequest.newBuilder(uri)
                    .header("x-amz-content-sha256", payloadHash)
                    .header("x-amz-date", amzDate)
                    .header(
                            "Authorization",
                            SigV4.ALGORITHM + " Credential=" + accessKey + "/"
                                    + SigV4.scope(date, S3ServerConfig.DEFAULT_REGION, "s3")
                                    + ", SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature=" + signature);
        }
    }
}
