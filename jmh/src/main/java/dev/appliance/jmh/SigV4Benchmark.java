package dev.appliance.jmh;

import dev.appliance.s3.auth.AuthResult;
import dev.appliance.s3.auth.SigV4;
import dev.appliance.s3.auth.SigV4Verifier;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;

/**
 * SigV4 verification of header-signed GETs, each signed by the next of {@code keys} access keys in turn: the cost of a
 * request's access-key lookup, signing-key derivation (cached per key and day, 256 entries) and signature check. With
 * more keys than the cache holds every request derives its signing key afresh: the worst case of many clients on
 * short-lived connections. Scores are verifications per second per thread.
 *
 * <pre>
 * ./appliance mvn -q -o -pl appliance-core,appliance-s3,jmh -DskipTests package
 * /usr/lib/jvm/temurin-25-jdk-amd64/bin/java --add-modules=jdk.incubator.vector -jar jmh/target/benchmarks.jar \
 *     SigV4Benchmark -f 1 -wi 3 -i 5 -w 1s -r 1s
 * </pre>
 */
@OutputTimeUnit(TimeUnit.SECONDS)
public class SigV4Benchmark extends BenchmarkBase {
    private static final String AMZ_DATE = "20261121T083000Z";

    @Param({"1", "256", "10000"})
    public int keys;

    private SigV4Verifier verifier;
    private List<Map<String, List<String>>> requests;
    private int next;

    @Setup
    public void setUp() {
        Map<String, String> secrets = new HashMap<>();
        requests = new java.util.ArrayList<>();
        for (int i = 0; i < keys; i++) {
            String accessKey = String.format("AKBENCH%08d", i);
            String secret = "secret/" + i + "/" + Integer.toHexString(i * 31 + 7);
            secrets.put(accessKey, secret);
            TreeMap<String, List<String>> headers = new TreeMap<>();
            headers.put("host", List.of("127.0.0.1:9000"));
            headers.put("x-amz-content-sha256", List.of(SigV4.EMPTY_SHA256));
            headers.put("x-amz-date", List.of(AMZ_DATE));
            String signature = SigV4.sign(
                    secret, "20261121", "us-east-1", AMZ_DATE, "GET", "/bucket/key", null, headers, SigV4.EMPTY_SHA256);
            Map<String, List<String>> signed = new HashMap<>(headers);
            signed.put(
                    "authorization",
                    List.of(SigV4.ALGORITHM + " Credential=" + accessKey + "/20261121/us-east-1/s3/aws4_request,"
                            + " SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature=" + signature));
            requests.add(signed);
        }
        Clock clock = Clock.fixed(Instant.parse("2026-11-21T08:31:00Z"), ZoneOffset.UTC);
        verifier = new SigV4Verifier(ak -> Optional.ofNullable(secrets.get(ak)), "us-east-1", clock);
        for (Map<String, List<String>> r : requests) {
            verifier.verify("GET", "/bucket/key", null, r); // fails loudly here if the set-up signed wrongly
        }
    }

    @Benchmark
    public AuthResult verify() {
        Map<String, List<String>> r = requests.get(next);
        next = next + 1 == requests.size() ? 0 : next + 1;
        return verifier.verify("GET", "/bucket/key", null, r);
    }
}
