package dev.appliance.core.policy;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

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
 * list of statements whose Action/NotAction covers it, split into denies and allows; evaluating a known action is a
 * hash lookup and then only those statements' resources, principals and conditions. Unknown action names fall back
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

    private record Entry(CompiledStatement statement, Decision decision) {}

    private record Candidates(Entry[] denies, Entry[] allows) {}

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
                entries.add(new Entry(s, new Decision(outcome, p.name(), s.statement.sid(), s.statement.index())));
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
        List<Entry> denies = new ArrayList<>();
        List<Entry> allows = new ArrayList<>();
        for (Entry e : all) {
            if (e.statement.matchesAction(action)) {
                (e.decision.outcome() == Decision.Outcome.EXPLICIT_DENY ? denies : allows).add(e);
            }
        }
        return new Candidates(
                denies.isEmpty() ? NONE : denies.toArray(Entry[]::new),
                allows.isEmpty() ? NONE : allows.toArray(Entry[]::new));
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
