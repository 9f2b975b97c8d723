package dev.appliance.core.policy;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The evaluation rules written plainly, beside {@link PolicySet}'s compiled form: every statement of every policy,
 * in order, patterns turned into regular expressions on the spot, condition values parsed on every use. It is slow
 * on purpose and kept only to check the fast path against (style practice 10: a readable reference beside every fast
 * path, and a test that they agree).
 */
final class ReferenceEvaluator {
    private ReferenceEvaluator() {}

    static Decision evaluate(List<NamedPolicy> identityPolicies, NamedPolicy bucketPolicy, RequestContext context) {
        List<NamedPolicy> policies = new ArrayList<>(identityPolicies);
        if (bucketPolicy != null) {
            policies.add(bucketPolicy);
        }
        // 1. an explicit deny anywhere wins
        for (NamedPolicy p : policies) {
            for (Statement s : p.document().statements()) {
                if (s.effect() == Statement.Effect.DENY && applies(s, context)) {
                    return new Decision(Decision.Outcome.EXPLICIT_DENY, p.name(), s.sid(), s.index());
                }
            }
        }
        // 2. then any allow
        for (NamedPolicy p : policies) {
            for (Statement s : p.document().statements()) {
                if (s.effect() == Statement.Effect.ALLOW && applies(s, context)) {
                    return new Decision(Decision.Outcome.ALLOW, p.name(), s.sid(), s.index());
                }
            }
        }
        // 3. else nothing allowed it
        return Decision.IMPLICIT_DENY;
    }

    static boolean applies(Statement s, RequestContext context) {
        if (s.principals() == null) {
            if (context.anonymous()) {
                return false;
            }
        } else if (principalNamed(s.principals(), context) == s.notPrincipal()) {
            return false;
        }
        boolean actionListed = false;
        for (String a : s.actions()) {
            if (globRegex(Template.parse(a, true, false).tokens(), true)
                    .matcher(lower(context.action()))
                    .matches()) {
                actionListed = true;
            }
        }
        if (actionListed == s.notAction()) {
            return false;
        }
        boolean resourceListed = false;
        for (Template r : s.resources()) {
            if (templateMatches(r, context.resource(), false, context)) {
                resourceListed = true;
            }
        }
        if (resourceListed == s.notResource()) {
            return false;
        }
        for (Statement.Condition c : s.conditions()) {
            if (!conditionHolds(c, context)) {
                return false;
            }
        }
        return true;
    }

    private static boolean principalNamed(Statement.Principals p, RequestContext context) {
        if (p.anyone()) {
            return true;
        }
        if (context.anonymous()) {
            return false;
        }
        for (String a : p.aws()) {
            if (a.equals(context.accountId())
                    || a.equals("arn:aws:iam::" + context.accountId() + ":root")
                    || a.equals(context.principalArn())) {
                return true;
            }
        }
        return false;
    }

    private static boolean conditionHolds(Statement.Condition c, RequestContext context) {
        List<String> present = context.values(c.key());
        boolean absent = present == null || present.isEmpty();
        ConditionOperator op = c.operator();
        if (op == ConditionOperator.NULL) {
            for (String v : c.values()) {
                if (Boolean.parseBoolean(v.toLowerCase()) == absent) {
                    return true;
                }
            }
            return false;
        }
        if (absent) {
            if (c.ifExists() || c.qualifier() == Statement.Qualifier.FOR_ALL_VALUES) {
                return true;
            }
            if (c.qualifier() == Statement.Qualifier.FOR_ANY_VALUE) {
                return false;
            }
            // a key the request lacks matches no value: only a negated operator holds
            return op.negated;
        }
        // for each request value: does it satisfy the operator (a negated one: matches none of the values)?
        List<Boolean> satisfied = new ArrayList<>();
        for (String value : present) {
            boolean matched = false;
            for (int i = 0; i < c.values().size(); i++) {
                if (valueMatches(c, i, value, context)) {
                    matched = true;
                }
            }
            satisfied.add(op.negated ? !matched : matched);
        }
        return switch (c.qualifier()) {
            case FOR_ANY_VALUE -> satisfied.contains(true);
            case FOR_ALL_VALUES -> !satisfied.contains(false);
            // a single-valued key: the request's values together against the policy's
            case NONE -> op.negated ? !satisfied.contains(false) : satisfied.contains(true);
        };
    }

    private static boolean valueMatches(Statement.Condition c, int i, String value, RequestContext context) {
        String want = c.values().get(i);
        ConditionOperator op = c.operator();
        switch (op.family) {
            case STRING, STRING_LIKE -> {
                return templateMatches(c.templates().get(i), value, false, context);
            }
            case STRING_IGNORE_CASE -> {
                return templateMatches(c.templates().get(i), value, true, context);
            }
            case ARN -> {
                String[] parts = PolicyValues.arnComponents(value);
                if (parts == null) {
                    return false;
                }
                List<Template> pattern = c.arnParts().get(i);
                for (int k = 0; k < 6; k++) {
                    if (!templateMatches(pattern.get(k), parts[k], false, context)) {
                        return false;
                    }
                }
                return true;
            }
            case NUMERIC -> {
                BigDecimal have = PolicyValues.number(value);
                return have != null && op.compare.holds(have.compareTo(PolicyValues.number(want)));
            }
            case DATE -> {
                Instant have = PolicyValues.date(value);
                return have != null && op.compare.holds(have.compareTo(PolicyValues.date(want)));
            }
            case BOOL -> {
                return (value.equalsIgnoreCase("true") || value.equalsIgnoreCase("false"))
                        && value.equalsIgnoreCase(want);
            }
            case IP -> {
                byte[] address = PolicyValues.address(value);
                return address != null && PolicyValues.cidr(want).contains(address);
            }
            case BINARY -> {
                return value.equals(want);
            }
            default -> throw new IllegalStateException("operator " + op);
        }
    }

    private static boolean templateMatches(Template t, String text, boolean ignoreCase, RequestContext context) {
        List<Template.Token> tokens = t.resolve(context);
        if (tokens == null) {
            return false;
        }
        return globRegex(tokens, ignoreCase)
                .matcher(ignoreCase ? lower(text) : text)
                .matches();
    }

    /** The tokens as a regular expression; {@code ignoreCase} folds the literal text (the caller folds the input). */
    private static Pattern globRegex(List<Template.Token> tokens, boolean ignoreCase) {
        StringBuilder regex = new StringBuilder();
        for (Template.Token t : tokens) {
            switch (t) {
                case Template.Literal l -> regex.append(Pattern.quote(ignoreCase ? lower(l.text()) : l.text()));
                case Template.Star s -> regex.append(".*");
                case Template.AnyChar a -> regex.append('.');
                case Template.Variable v -> throw new IllegalStateException("unresolved " + v.key());
            }
        }
        return Pattern.compile(regex.toString(), Pattern.DOTALL);
    }

    /** Per-character lower case, as the compiled matcher folds (no locale, no length change). */
    private static String lower(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            b.append(Character.toLowerCase(s.charAt(i)));
        }
        return b.toString();
    }
}
