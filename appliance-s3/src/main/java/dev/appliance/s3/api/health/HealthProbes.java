package dev.appliance.s3.api.health;

import dev.appliance.core.ObjectStore;
import dev.appliance.core.admin.SetQuorum;
import dev.appliance.core.admin.StoreAdmin;
import dev.appliance.core.naming.BucketNames;
import dev.appliance.s3.api.S3Response;
import dev.appliance.s3.error.S3ErrorCode;
import dev.appliance.s3.error.S3Exception;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The health probes load balancers and scripts poll on the S3 port, without credentials, as they poll MinIO's
 * {@code /minio/health/*}:
 *
 * <ul>
 *   <li>{@code /appliance/health/live}: 200 while the process answers requests.
 *   <li>{@code /appliance/health/ready}: 200 while every erasure set has read quorum (the drives in service hold the
 *       data shards of what it stores), else 503.
 *   <li>{@code /appliance/health/cluster}: 200 while every erasure set has write quorum, else 503. With {@code
 *       ?maintenance=true} it asks whether this node may be taken down and keep quorum: the appliance is one node
 *       holding every set, so the answer is 412 Precondition Failed whenever it has quorum at all (503 otherwise).
 * </ul>
 *
 * Only GET and HEAD are served (others: 405). The answer is the status and a one-line JSON body naming the first set
 * short of quorum, with counts only: nothing that names a drive path, a bucket or an object. A probe costs no drive
 * I/O: it reads the drives' in-service state the engine keeps ({@link StoreAdmin#setQuorums}), so the connection
 * handler answers it on its event loop, before authentication.
 *
 * <p>The probes live under the bucket name {@link BucketNames#RESERVED}, which no bucket may take: any other request
 * addressing it (path style or virtual-hosted) is refused with {@code 403 AllAccessDisabled}, as MinIO refuses
 * {@code minio}, and unknown paths under {@code /appliance/health/} get {@code 404}.
 */
public final class HealthProbes {
    private static final String PROBES =
            "/appliance/health/live, /appliance/health/ready and /appliance/health/cluster";

    /** Each set's quorum state, or null when the store keeps none (then ready and cluster answer 503). */
    private final Supplier<List<SetQuorum>> quorums;

    /** @param quorums each set's quorum state; must not block (it is asked on an event loop) */
    public HealthProbes(Supplier<List<SetQuorum>> quorums) {
        this.quorums = quorums;
    }

    /** The probes over {@code store}'s quorum state; the engine's store always keeps one ({@link StoreAdmin}). */
    public static HealthProbes of(ObjectStore store) {
        return new HealthProbes(store instanceof StoreAdmin admin ? admin::setQuorums : null);
    }

    /** Whether a request addressing {@code bucket} is this class's to answer: the reserved name. */
    public static boolean addresses(String bucket) {
        return BucketNames.RESERVED.equals(bucket);
    }

    /** The refusal of every request to the reserved bucket that is not a probe. */
    public static S3Exception reserved() {
        return new S3Exception(
                S3ErrorCode.AllAccessDisabled,
                "All access to this resource has been disabled: the bucket name " + BucketNames.RESERVED
                        + " is reserved for the health probes (" + PROBES + ").");
    }

    /**
     * Answers a request addressing the reserved bucket ({@link #addresses}); throws the S3 error for anything that is
     * not a probe.
     *
     * @param key the key as addressed (the path after {@code /appliance/}), or null
     */
    public S3Response answer(String method, String key, Map<String, String> query) {
        Probe probe = Probe.named(key);
        if (probe == null) {
            if (key != null && (key.equals("health") || key.startsWith("health/"))) {
                throw new S3Exception(
                        S3ErrorCode.NoSuchKey,
                        "No such health probe '/appliance/" + key + "': the probes are " + PROBES + ".");
            }
            throw reserved();
        }
        if (!method.equals("GET") && !method.equals("HEAD")) {
            throw new S3Exception(
                            S3ErrorCode.MethodNotAllowed,
                            "The health probes answer GET and HEAD only, not " + method + ".")
                    .withHeader("Allow", "GET, HEAD");
        }
        Outcome outcome =
                switch (probe) {
                    case LIVE -> Outcome.UP;
                    case READY -> check(false);
                    case CLUSTER -> {
                        Outcome quorum = check(true);
                        yield quorum.status == 200 && "true".equals(query.get("maintenance"))
                                ? new Outcome(
                                        412,
                                        "UP",
                                        "this node cannot be taken down without losing quorum: it holds every erasure set")
                                : quorum;
                    }
                };
        return outcome.render(method.equals("HEAD"));
    }

    /** The first set short of the quorum asked for, as an outcome; UP when none is. */
    private Outcome check(boolean write) {
        if (quorums == null) {
            return new Outcome(503, "DOWN", "the store reports no quorum state");
        }
        for (SetQuorum q : quorums.get()) {
            if (write ? !q.writable() : !q.readable()) {
                return new Outcome(
                        503,
                        "DOWN",
                        "erasure set " + q.set() + ": " + q.online() + " of " + q.drives() + " drives in service, "
                                + (write ? "writes need " + q.writeQuorum() : "reads need " + q.readQuorum()));
            }
        }
        return Outcome.UP;
    }

    private enum Probe {
        LIVE,
        READY,
        CLUSTER;

        static Probe named(String key) {
            if (key == null) {
                return null;
            }
            return switch (key) {
                case "health/live" -> LIVE;
                case "health/ready" -> READY;
                case "health/cluster" -> CLUSTER;
                default -> null;
            };
        }
    }

    /** A probe's status and what its one-line JSON body says; {@code reason} null when there is nothing to add. */
    private record Outcome(int status, String state, String reason) {
        static final Outcome UP = new Outcome(200, "UP", null);

        S3Response render(boolean head) {
            // the reason is built from counts and fixed words only: nothing to escape
            String json = reason == null
                    ? "{\"status\":\"" + state + "\"}"
                    : "{\"status\":\"" + state + "\",\"reason\":\"" + reason + "\"}";
            byte[] body = (json + "\n").getBytes(StandardCharsets.US_ASCII);
            S3Response r = S3Response.status(status)
                    .header("Content-Type", "application/json")
                    .header("Cache-Control", "no-store");
            // HEAD: the length GET would have, no body
            return head ? r.header("Content-Length", Integer.toString(body.length)) : r.body(body);
        }
    }
}
