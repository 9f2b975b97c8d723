package dev.appliance.jmh;

import dev.appliance.core.policy.BuiltinPolicies;
import dev.appliance.core.policy.Decision;
import dev.appliance.core.policy.NamedPolicy;
import dev.appliance.core.policy.PolicyDocument;
import dev.appliance.core.policy.PolicyKind;
import dev.appliance.core.policy.PolicySet;
import dev.appliance.core.policy.PolicySetCache;
import dev.appliance.core.policy.RequestContext;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Setup;

/**
 * Policy evaluation per request (issue 14: authorization must not cost throughput). A user with a 20-statement
 * managed policy (19 Allows over other buckets and prefixes, several with conditions, and one Deny with a condition)
 * asks for a PutObject and a GetObject that the 18th statement allows. {@code put20Wildcards} is the same policy with a
 * wildcard in front of each bucket name ({@code *bucket-7}), so that the set cannot narrow the statements by bucket and
 * all 17 before the granting one are matched and passed over. Against them: the root shortcut ({@link
 * PolicySet#unrestricted}, no evaluation) and the built-in admin policy. {@code put20WithCache} adds what the S3 front
 * end will do per request besides evaluating: build the {@link RequestContext} and look the user's compiled set up in
 * a {@link PolicySetCache}. Scores are nanoseconds per evaluation.
 *
 * <pre>
 * ./appliance mvn -q -o -pl appliance-core,appliance-s3,jmh -am -DskipTests package
 * /usr/lib/jvm/temurin-25-jdk-amd64/bin/java -jar jmh/target/benchmarks.jar PolicyBenchmark -f 1 -wi 2 -i 3 -r 2s
 * </pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class PolicyBenchmark extends BenchmarkBase {
    private static final Instant NOW = Instant.parse("2026-11-26T12:00:00Z");
    private static final String KEY = "Veeam/Backup/repo/Clients/c/b/CloudStg/Data/17/12345.blk";

    private List<NamedPolicy> userPolicies;
    private PolicySet user20;
    private PolicySet user20Wildcards;
    private PolicySet admin;
    private PolicySet root;
    private PolicySetCache cache;
    private RequestContext put;
    private RequestContext get;

    /** The 20-statement policy: statement 17 (from 0) grants the benchmarked bucket. */
    static String twentyStatements(String bucketPrefix) {
        List<String> statements = new ArrayList<>();
        for (int i = 0; i < 19; i++) {
            String bucket = bucketPrefix + i;
            String condition =
                    switch (i % 4) {
                        case 0 ->
                            ", \"Condition\": {\"IpAddress\": {\"aws:SourceIp\": [\"10.0.0.0/8\", \"192.168.0.0/16\"]}}";
                        case 1 -> ", \"Condition\": {\"Bool\": {\"aws:SecureTransport\": \"true\"}}";
                        case 2 -> ", \"Condition\": {\"StringNotEqualsIfExists\": {\"s3:x-amz-acl\": \"public-read\"}}";
                        default -> "";
                    };
            statements.add("{\"Sid\": \"Bucket" + i + "\", \"Effect\": \"Allow\", \"Action\": [\"s3:GetObject\","
                    + " \"s3:PutObject\", \"s3:GetObjectVersion\", \"s3:DeleteObject\", \"s3:ListBucket\"], \"Resource\":"
                    + " [\"arn:aws:s3:::" + bucket + "\", \"arn:aws:s3:::" + bucket + "/Veeam/*\"]" + condition + "}");
        }
        statements.add(
                "{\"Sid\": \"NoVersionDeletesOffSite\", \"Effect\": \"Deny\", \"Action\": \"s3:DeleteObjectVersion\","
                        + " \"Resource\": \"*\", \"Condition\": {\"NotIpAddress\": {\"aws:SourceIp\": \"10.0.0.0/8\"}}}");
        return "{\"Version\": \"2012-10-17\", \"Statement\": [" + String.join(", ", statements) + "]}";
    }

    @Setup
    public void setUp() {
        PolicyDocument doc = PolicyDocument.parse(twentyStatements("bucket-"), PolicyKind.MANAGED);
        PolicyDocument wildcards = PolicyDocument.parse(twentyStatements("*bucket-"), PolicyKind.MANAGED);
        if (doc.statementCount() != 20 || wildcards.statementCount() != 20) {
            throw new IllegalStateException("expected 20 statements, got " + doc.statementCount());
        }
        userPolicies = List.of(new NamedPolicy("veeam-user", doc));
        user20 = PolicySet.of(userPolicies, null);
        user20Wildcards = PolicySet.of(List.of(new NamedPolicy("veeam-user", wildcards)), null);
        admin = PolicySet.of(List.of(BuiltinPolicies.get(BuiltinPolicies.ADMIN)), null);
        root = PolicySet.unrestricted("root");
        cache = new PolicySetCache(1024);
        put = context("s3:PutObject");
        get = context("s3:GetObject");
        for (PolicySet set : List.of(user20, user20Wildcards, admin, root)) {
            if (!set.evaluate(put).allowed() || !set.evaluate(get).allowed()) {
                throw new IllegalStateException("the benchmarked requests must be allowed");
            }
        }
    }

    private static RequestContext context(String action) {
        return RequestContext.builder(action, "arn:aws:s3:::bucket-17/" + KEY)
                .user("000000000000", "veeam", "AIDAVEEAM")
                .time(NOW)
                .secureTransport(true)
                .sourceIp("10.1.2.3")
                .build();
    }

    @Benchmark
    public Decision put20() {
        return user20.evaluate(put);
    }

    @Benchmark
    public Decision get20() {
        return user20.evaluate(get);
    }

    @Benchmark
    public Decision put20Wildcards() {
        return user20Wildcards.evaluate(put);
    }

    @Benchmark
    public Decision putAdminPolicy() {
        return admin.evaluate(put);
    }

    @Benchmark
    public Decision putRootShortcut() {
        return root.evaluate(put);
    }

    @Benchmark
    public Decision put20WithCache() {
        return cache.get(userPolicies, null).evaluate(context("s3:PutObject"));
    }
}
