package dev.appliance.core.policy;

import java.time.Instant;
import java.util.List;

/** Shared set-up for the policy tests: a fixed account, user, request time and source address. */
final class PolicyTestSupport {
    static final String ACCOUNT = "123456789012";
    static final Instant NOW = Instant.parse("2026-06-01T12:00:00Z");

    private PolicyTestSupport() {}

    /** An identity policy (2012-10-17) made of {@code statements} (JSON objects). */
    static PolicyDocument identity(String... statements) {
        return PolicyDocument.parse(document(statements), PolicyKind.MANAGED);
    }

    static PolicyDocument bucket(String bucket, String... statements) {
        return PolicyDocument.parseBucketPolicy(document(statements), bucket);
    }

    static String document(String... statements) {
        return "{\"Version\": \"2012-10-17\", \"Statement\": [" + String.join(",", statements) + "]}";
    }

    /** A request by user alice of {@link #ACCOUNT} over TLS from 203.0.113.7 at {@link #NOW}. */
    static RequestContext.Builder alice(String action, String resource) {
        return RequestContext.builder(action, resource)
                .user(ACCOUNT, "alice", "AIDAALICE")
                .time(NOW)
                .secureTransport(true)
                .sourceIp("203.0.113.7");
    }

    static RequestContext.Builder anonymous(String action, String resource) {
        return RequestContext.builder(action, resource).account(ACCOUNT).time(NOW);
    }

    static Decision decide(PolicyDocument policy, RequestContext context) {
        return decide(List.of(new NamedPolicy("p", policy)), null, context);
    }

    /** Decides with the compiled set, checking the reference evaluator agrees. */
    static Decision decide(List<NamedPolicy> identity, NamedPolicy bucketPolicy, RequestContext context) {
        Decision compiled = PolicySet.of(identity, bucketPolicy).evaluate(context);
        Decision reference = ReferenceEvaluator.evaluate(identity, bucketPolicy, context);
        if (!compiled.equals(reference)) {
            throw new AssertionError("compiled " + compiled + " but reference " + reference + " for " + context);
        }
        return compiled;
    }
}
