package dev.appliance.core.identity;

import static java.util.Objects.requireNonNull;

import dev.appliance.core.policy.BuiltinPolicies;
import dev.appliance.core.policy.Decision;
import dev.appliance.core.policy.MalformedPolicyException;
import dev.appliance.core.policy.NamedPolicy;
import dev.appliance.core.policy.PolicyDocument;
import dev.appliance.core.policy.PolicyKind;
import dev.appliance.core.policy.PolicySet;
import dev.appliance.core.policy.PolicySetCache;
import dev.appliance.core.policy.RequestContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Logger;

/**
 * The policies of a user, as the authorization seam evaluates them: the user's inline policies, the managed policies
 * attached to it (customer policies of this store and the built-ins, {@code arn:aws:iam::aws:policy/<name>}), then the
 * same of each group it is a member of, compiled into one {@link PolicySet} with the bucket's policy when there is one.
 *
 * <p><b>Cost.</b> A user's set is resolved once per published identity state: the state is a new object after every
 * change, so a change is seen by the next request, and a request under an unchanged state is one map lookup. Documents
 * are parsed once per text and the compiled sets come from a {@link PolicySetCache} keyed by the documents, so a new
 * state (another user changed) costs an unchanged user a re-resolution of names but no parsing and no compilation.
 *
 * <p><b>Deny by default.</b> An unknown user, or a user whose policies cannot be read (a stored document the engine
 * refuses), gets a set that allows nothing: skipping only the bad document could drop a Deny and widen access. An
 * attached policy that no longer exists or an unknown built-in name contributes nothing.
 */
public final class UserPolicies {
    private static final Logger LOG = Logger.getLogger(UserPolicies.class.getName());
    private static final String BUILT_IN_ARN = "arn:aws:iam::aws:policy/";
    /** Parsed documents kept across states; emptied when over this, as the set cache is. */
    private static final int MAX_DOCUMENTS = 4096;

    private final IdentityStore store;
    private final PolicySetCache sets;
    private final PolicySet nothing;
    private final ConcurrentHashMap<String, PolicyDocument> documents = new ConcurrentHashMap<>();
    private volatile Resolved resolved = new Resolved(null);

    /** The users' sets under one published state. */
    private static final class Resolved {
        final IdentityState state;
        final ConcurrentHashMap<String, UserSet> byUser = new ConcurrentHashMap<>();

        Resolved(IdentityState state) {
            this.state = state;
        }
    }

    /** A user's identity policies and their compiled set (no bucket policy). */
    private record UserSet(List<NamedPolicy> policies, PolicySet set) {}

    public UserPolicies(IdentityStore store, PolicySetCache sets) {
        this.store = requireNonNull(store, "store");
        this.sets = requireNonNull(sets, "sets");
        this.nothing = sets.get(List.of(), null);
    }

    /**
     * Evaluates {@code context} for {@code userName} under the user's policies and {@code bucketPolicy} (null: the
     * bucket has none, or the request names no bucket). The caller has authenticated the user with an active key.
     */
    public Decision evaluate(String userName, RequestContext context, NamedPolicy bucketPolicy) {
        return policySet(userName, bucketPolicy).evaluate(context);
    }

    /** The compiled set for {@code userName} with {@code bucketPolicy} (may be null). */
    public PolicySet policySet(String userName, NamedPolicy bucketPolicy) {
        UserSet u = userSet(userName);
        return bucketPolicy == null ? u.set : sets.get(u.policies, bucketPolicy);
    }

    /**
     * The compiled set for a request without credentials: {@code bucketPolicy} alone (identity policies never apply to
     * an anonymous caller).
     */
    public PolicySet anonymousSet(NamedPolicy bucketPolicy) {
        requireNonNull(bucketPolicy, "bucketPolicy");
        return sets.get(List.of(), bucketPolicy);
    }

    /** The identity policies of {@code userName} in evaluation order (empty for an unknown user). */
    public List<NamedPolicy> policies(String userName) {
        return userSet(userName).policies;
    }

    /**
     * The compiled set of the managed and built-in policies {@code policyArns} name, in that order (an admin token's
     * scope): an ARN that names no policy grants nothing, so a scope whose policies are all gone allows nothing.
     */
    public PolicySet scopeSet(List<String> policyArns) {
        requireNonNull(policyArns, "policyArns");
        IdentityState state = store.snapshot();
        if (state == null) {
            return nothing;
        }
        List<NamedPolicy> out = new ArrayList<>();
        try {
            add(out, state, "scope/", Map.of(), policyArns);
        } catch (MalformedPolicyException e) {
            LOG.warning("a token scope's policy does not parse, every request is denied: " + e.getMessage());
            return nothing;
        }
        return sets.get(List.copyOf(out), null);
    }

    /** The account id of the published state, or null while the store is unavailable. */
    public String accountId() {
        IdentityState s = store.snapshot();
        return s == null ? null : s.account;
    }

    private UserSet userSet(String userName) {
        requireNonNull(userName, "userName");
        IdentityState state = store.snapshot();
        Resolved r = resolved;
        if (r.state != state) {
            r = new Resolved(state);
            resolved = r;
        }
        if (state == null) {
            return new UserSet(List.of(), nothing);
        }
        return r.byUser.computeIfAbsent(IdentityState.key(userName), k -> resolve(state, k));
    }

    private UserSet resolve(IdentityState state, String userKey) {
        IdentityState.UserEntry entry = state.users.get(userKey);
        if (entry == null) {
            return new UserSet(List.of(), nothing);
        }
        User user = entry.user();
        List<NamedPolicy> out = new ArrayList<>();
        try {
            add(out, state, "user/" + user.name() + "/", user.inlinePolicies(), user.attachedPolicies());
            for (Group g : state.groups.values()) {
                if (g.members().stream().anyMatch(m -> m.equalsIgnoreCase(user.name()))) {
                    add(out, state, "group/" + g.name() + "/", g.inlinePolicies(), g.attachedPolicies());
                }
            }
        } catch (MalformedPolicyException e) {
            LOG.warning("user " + user.name() + ": a stored policy does not parse, every request is denied: "
                    + e.getMessage());
            return new UserSet(List.of(), nothing);
        }
        List<NamedPolicy> policies = List.copyOf(out);
        return new UserSet(policies, sets.get(policies, null));
    }

    private void add(
            List<NamedPolicy> out,
            IdentityState state,
            String inlinePrefix,
            Map<String, String> inline,
            List<String> attached) {
        for (Map.Entry<String, String> e : inline.entrySet()) {
            out.add(new NamedPolicy(inlinePrefix + e.getKey(), parse(e.getValue())));
        }
        String customerArn = "arn:aws:iam::" + state.account + ":policy/";
        for (String arn : attached) {
            if (arn.startsWith(customerArn)) {
                ManagedPolicy p = state.policies.get(IdentityState.key(arn.substring(customerArn.length())));
                if (p != null && p.arn().equals(arn)) {
                    out.add(new NamedPolicy(p.name(), parse(p.document())));
                }
            } else if (arn.startsWith(BUILT_IN_ARN)) {
                String name = arn.substring(BUILT_IN_ARN.length()).toLowerCase(Locale.ROOT);
                if (BuiltinPolicies.names().contains(name)) {
                    out.add(BuiltinPolicies.get(name));
                } else {
                    LOG.fine(() -> "attached built-in policy " + arn + " is unknown: it grants nothing");
                }
            }
        }
    }

    /**
     * The store checked each document's size where it was attached (up to a managed policy's limit for inline ones
     * too), so every stored document is read as a managed one.
     */
    private PolicyDocument parse(String json) {
        PolicyDocument d = documents.get(json);
        if (d != null) {
            return d;
        }
        if (documents.size() >= MAX_DOCUMENTS) {
            documents.clear();
        }
        d = PolicyDocument.parse(json, PolicyKind.MANAGED);
        documents.put(json, d);
        return d;
    }
}
