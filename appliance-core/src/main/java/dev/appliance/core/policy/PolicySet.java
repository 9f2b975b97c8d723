package dev.appliance.core.policy;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The policies that apply to one caller on one bucket, compiled for evaluation: the caller's identity policies (its
 * own and its groups') and the bucket's policy, if any. This is the authorization seam's decision function.
 *
 * <h2>Evaluation (AWS's order, same-account access)</h2>
 *
 * A statement applies to a request when its Action (or NotAction) covers the action, its Resource (or NotResource)
 * the resource, its Principal (or NotPrincipal; bucket policies only) the caller, and every condition holds. Then:
 * <ol>
 *   <li>a Deny statement that applies, in any of the policies, denies (explicit deny wins over any allow);
 *   <li>else an Allow statement that applies, in an identity policy or in the bucket policy, allows (within one
 *       account either grant suffices);
 *   <li>else the request is denied (implicit deny: nothing is allowed by default).
 * </ol>
 * Identity policies never apply to an anonymous request: only a bucket policy naming {@code "*"} can allow one. The
 * {@link Decision} names the statement that decided: the first applying Deny, else the first applying Allow, in the
 * order the policies were given.
 *
 * <h2>Cost</h2>
 *
 * When the set is built, every action this appliance knows ({@link S3Action}, {@link AdminAction}) gets the ordered
 * list of statements whose Action/NotAction covers it, split into denies and allows, and narrowed once more by the
 * bucket the resource names (statements whose resources name other buckets literally are left out); evaluating a
 * known action is two hash lookups and then only those statements' resources, principals and conditions. Unknown action names fall back
 * to scanning every statement. Decisions naming a statement are built once with the set, so an evaluation that
 * reads no policy variable or typed condition value allocates nothing. {@link ReferenceEvaluator} is the
 * straightforward form of the same rules; a property test checks that both decide alike.
 */
public final class PolicySet {
    private static final Entry[] NONE = new Entry[0];

    private final List<NamedPolicy> identityPolicies;
    private final NamedPolicy bucketPolicy;
    private final Entry[] all;
    private final Map<String, Candidates> byAction;
    private final Decision unrestricted;

    /**
     * A statement with the Decision it makes, and the buckets its resources can name: null when it may apply to any
     * resource (a wildcard or variable in the bucket part, {@code *}, NotResource, a non-S3 ARN).
     */
    private record Entry(CompiledStatement statement, Decision decision, Set<String> buckets) {}

    /** The statements covering one action, in order; by bucket, those that can apply to a resource in it. */
    private record Candidates(Entry[] denies, Entry[] allows, BucketIndex byBucket) {
        /** The candidates for {@code resource}: narrowed to its bucket when it is an S3 ARN. */
        Candidates forResource(String resource) {
            if (byBucket == null || !resource.startsWith(S3_ARN)) {
                return this;
            }
            int end = resource.indexOf('/', S3_ARN.length());
            Candidates narrowed = byBucket.get(resource, S3_ARN.length(), end < 0 ? resource.length() : end);
            return narrowed != null ? narrowed : byBucket.unlisted;
        }
    }

    private static final String S3_ARN = "arn:aws:s3:::";

    private PolicySet(List<NamedPolicy> identityPolicies, NamedPolicy bucketPolicy, Decision unrestricted) {
        this.identityPolicies = List.copyOf(identityPolicies);
        this.bucketPolicy = bucketPolicy;
        this.unrestricted = unrestricted;
        List<Entry> entries = new ArrayList<>();
        List<NamedPolicy> ordered = new ArrayList<>(this.identityPolicies);
        if (bucketPolicy != null) {
            ordered.add(bucketPolicy);
        }
        for (NamedPolicy p : ordered) {
            for (CompiledStatement s : p.document().compiled()) {
                Decision.Outcome outcome = s.statement.effect() == Statement.Effect.DENY
                        ? Decision.Outcome.EXPLICIT_DENY
                        : Decision.Outcome.ALLOW;
                entries.add(new Entry(
                        s,
                        new Decision(outcome, p.name(), s.statement.sid(), s.statement.index()),
                        buckets(s.statement)));
            }
        }
        this.all = entries.toArray(Entry[]::new);
        Map<String, Candidates> index = new HashMap<>();
        for (S3Action a : S3Action.values()) {
            index(index, a.iamName());
        }
        for (AdminAction a : AdminAction.values()) {
            index(index, a.iamName());
        }
        this.byAction = Map.copyOf(index);
    }

    private void index(Map<String, Candidates> index, String action) {
        Candidates c = candidates(action);
        index.put(action, c);
        index.put(action.toLowerCase(Locale.ROOT), c);
    }

    private Candidates candidates(String action) {
        List<Entry> covering = new ArrayList<>();
        Set<String> buckets = new TreeSet<>();
        for (Entry e : all) {
            if (e.statement.matchesAction(action)) {
                covering.add(e);
                if (e.buckets != null) {
                    buckets.addAll(e.buckets);
                }
            }
        }
        BucketIndex byBucket = null;
        if (!buckets.isEmpty()) {
            byBucket = new BucketIndex(buckets.size(), split(covering, null, null));
            for (String bucket : buckets) {
                byBucket.put(bucket, split(covering, bucket, null));
            }
        }
        return split(covering, null, byBucket);
    }

    /**
     * The entries of {@code covering} (in order) that can apply in {@code bucket}: those naming it and those that may
     * name any bucket. A null bucket keeps every entry when {@code byBucket} is given (the full list), and only the
     * entries for any bucket when it is not (the list for buckets no statement names).
     */
    private static Candidates split(List<Entry> covering, String bucket, BucketIndex byBucket) {
        List<Entry> denies = new ArrayList<>();
        List<Entry> allows = new ArrayList<>();
        for (Entry e : covering) {
            boolean keep = byBucket != null || e.buckets == null || (bucket != null && e.buckets.contains(bucket));
            if (keep) {
                (e.decision.outcome() == Decision.Outcome.EXPLICIT_DENY ? denies : allows).add(e);
            }
        }
        return new Candidates(
                denies.isEmpty() ? NONE : denies.toArray(Entry[]::new),
                allows.isEmpty() ? NONE : allows.toArray(Entry[]::new),
                byBucket);
    }

    /**
     * The buckets a statement's resources can name, or null when it may apply to any resource. A resource pattern
     * names one bucket when its text up to the first {@code /} after {@code arn:aws:s3:::} is literal.
     */
    private static Set<String> buckets(Statement s) {
        if (s.notResource()) {
            return null;
        }
        Set<String> buckets = new HashSet<>();
        for (Template t : s.resources()) {
            if (t.tokens().isEmpty() || !(t.tokens().getFirst() instanceof Template.Literal first)) {
                return null;
            }
            String text = first.text();
            if (!text.startsWith(S3_ARN)) {
                return null;
            }
            int slash = text.indexOf('/', S3_ARN.length());
            if (slash < 0 && t.tokens().size() > 1) {
                return null; // a wildcard or variable inside the bucket name
            }
            buckets.add(text.substring(S3_ARN.length(), slash < 0 ? text.length() : slash));
        }
        return Set.copyOf(buckets);
    }

    /**
     * Candidates by bucket name, looked up by a region of the request's resource without cutting it out (no
     * allocation per request): open addressing over the region's hash, compared with {@code regionMatches}.
     */
    private static final class BucketIndex {
        private final String[] names;
        private final Candidates[] values;
        private final int mask;

        /** The candidates for buckets no statement names: only the statements for any bucket. */
        final Candidates unlisted;

        BucketIndex(int size, Candidates unlisted) {
            int capacity = Integer.highestOneBit(Math.max(4, size * 2 - 1)) << 1;
            this.names = new String[capacity];
            this.values = new Candidates[capacity];
            this.mask = capacity - 1;
            this.unlisted = unlisted;
        }

        private static int hash(String s, int from, int to) {
            int h = 0;
            for (int i = from; i < to; i++) {
                h = 31 * h + s.charAt(i);
            }
            return h ^ (h >>> 16);
        }

        void put(String name, Candidates candidates) {
            int i = hash(name, 0, name.length()) & mask;
            while (names[i] != null) {
                i = (i + 1) & mask;
            }
            names[i] = name;
            values[i] = candidates;
        }

        Candidates get(String resource, int from, int to) {
            int length = to - from;
            for (int i = hash(resource, from, to) & mask; names[i] != null; i = (i + 1) & mask) {
                if (names[i].length() == length && resource.regionMatches(from, names[i], 0, length)) {
                    return values[i];
                }
            }
            return null;
        }
    }

    /**
     * The set for a caller with {@code identityPolicies} (its own, then its groups', in a stable order) on a bucket
     * with {@code bucketPolicy} (null when the bucket has none, or for requests that name no bucket).
     */
    public static PolicySet of(List<NamedPolicy> identityPolicies, NamedPolicy bucketPolicy) {
        requireNonNull(identityPolicies, "identityPolicies");
        for (NamedPolicy p : identityPolicies) {
            if (p.document().kind().resourceBased()) {
                throw new IllegalArgumentException("identityPolicies: " + p.name() + " is a "
                        + p.document().kind() + " policy");
            }
        }
        if (bucketPolicy != null && !bucketPolicy.document().kind().resourceBased()) {
            throw new IllegalArgumentException("bucketPolicy: " + bucketPolicy.name() + " is a "
                    + bucketPolicy.document().kind() + " policy");
        }
        return new PolicySet(identityPolicies, bucketPolicy, null);
    }

    /**
     * The shortcut for the root credential: every request allowed without evaluating anything, reported as decided
     * by {@code name} (e.g. "root").
     */
    public static PolicySet unrestricted(String name) {
        return new PolicySet(List.of(), null, new Decision(Decision.Outcome.ALLOW, name, "", 0));
    }

    public Decision evaluate(RequestContext context) {
        if (unrestricted != null) {
            return unrestricted;
        }
        Candidates c = byAction.get(context.action());
        if (c == null) {
            return scan(context);
        }
        c = c.forResource(context.resource());
        for (Entry e : c.denies) {
            if (e.statement.appliesTo(context)) {
                return e.decision;
            }
        }
        for (Entry e : c.allows) {
            if (e.statement.appliesTo(context)) {
                return e.decision;
            }
        }
        return Decision.IMPLICIT_DENY;
    }

    /** An action outside the tables: every statement is checked for it. */
    private Decision scan(RequestContext context) {
        String action = context.action();
        for (Entry e : all) {
            if (e.decision.outcome() == Decision.Outcome.EXPLICIT_DENY
                    && e.statement.matchesAction(action)
                    && e.statement.appliesTo(context)) {
                return e.decision;
            }
        }
        for (Entry e : all) {
            if (e.decision.outcome() == Decision.Outcome.ALLOW
                    && e.statement.matchesAction(action)
                    && e.statement.appliesTo(context)) {
                return e.decision;
            }
        }
        return Decision.IMPLICIT_DENY;
    }

    public List<NamedPolicy> identityPolicies() {
        return identityPolicies;
    }

    /** The bucket policy, or null. */
    public NamedPolicy bucketPolicy() {
        return bucketPolicy;
    }
}
