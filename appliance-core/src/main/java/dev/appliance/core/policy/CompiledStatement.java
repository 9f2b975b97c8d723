package dev.appliance.core.policy;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;

/**
 * A statement ready to evaluate: action and resource patterns compiled to {@link Glob}s, condition values parsed to
 * their types, once, when the document is parsed. Evaluating allocates nothing unless a pattern holds a policy
 * variable (resolved per request) or a condition reads a typed value from the request (a number, a date other than
 * the request time, an address).
 */
final class CompiledStatement {
    final Statement statement;
    private final Glob[] actions;
    private final Pattern[] resources;
    private final CompiledCondition[] conditions;

    CompiledStatement(Statement statement) {
        this.statement = statement;
        this.actions = statement.actions().stream()
                .map(a -> Glob.of(Template.parse(a, true, false).tokens(), true, true))
                .toArray(Glob[]::new);
        this.resources =
                statement.resources().stream().map(t -> new Pattern(t, false)).toArray(Pattern[]::new);
        this.conditions =
                statement.conditions().stream().map(CompiledCondition::new).toArray(CompiledCondition[]::new);
    }

    boolean matchesAction(String action) {
        boolean any = false;
        for (Glob g : actions) {
            if (g.matches(action)) {
                any = true;
                break;
            }
        }
        return any != statement.notAction();
    }

    /** Everything but the action: principal, resource, conditions. */
    boolean appliesTo(RequestContext context) {
        return matchesPrincipal(context) && matchesResource(context) && conditionsHold(context);
    }

    private boolean matchesPrincipal(RequestContext context) {
        Statement.Principals p = statement.principals();
        if (p == null) {
            // an identity policy speaks for the user it is attached to; an anonymous caller has none
            return !context.anonymous();
        }
        return principalIn(p, context) != statement.notPrincipal();
    }

    static boolean principalIn(Statement.Principals p, RequestContext context) {
        if (p.anyone()) {
            return true;
        }
        if (context.anonymous()) {
            return false;
        }
        String account = context.accountId();
        for (String a : p.aws()) {
            if (a.equals(account) || a.equals(context.principalArn()) || isAccountRoot(a, account)) {
                return true;
            }
        }
        return false;
    }

    /** {@code arn:aws:iam::<account>:root}: the account, i.e. any principal of it. */
    private static boolean isAccountRoot(String arn, String account) {
        String prefix = "arn:aws:iam::";
        return arn.length() == prefix.length() + account.length() + ":root".length()
                && arn.startsWith(prefix)
                && arn.startsWith(account, prefix.length())
                && arn.endsWith(":root");
    }

    private boolean matchesResource(RequestContext context) {
        boolean any = false;
        for (Pattern r : resources) {
            if (r.matches(context.resource(), context)) {
                any = true;
                break;
            }
        }
        return any != statement.notResource();
    }

    private boolean conditionsHold(RequestContext context) {
        for (CompiledCondition c : conditions) {
            if (!c.holds(context)) {
                return false;
            }
        }
        return true;
    }

    /** A template compiled once when it has no variables, resolved and matched per request when it has. */
    static final class Pattern {
        private final Template template;
        private final Glob glob;
        private final boolean ignoreCase;

        Pattern(Template template, boolean ignoreCase) {
            this.template = template;
            this.ignoreCase = ignoreCase;
            this.glob = template.hasVariables() ? null : Glob.of(template.tokens(), ignoreCase, true);
        }

        boolean matches(String text, RequestContext context) {
            if (glob != null) {
                return glob.matches(text);
            }
            List<Template.Token> resolved = template.resolve(context);
            return resolved != null && Glob.of(resolved, ignoreCase, false).matches(text);
        }
    }

    /** One condition key under one operator, its values parsed. */
    static final class CompiledCondition {
        private final Statement.Condition condition;
        private final ConditionOperator op;
        private final Pattern[] patterns;
        private final Pattern[][] arnPatterns;
        private final BigDecimal[] numbers;
        private final Instant[] dates;
        private final PolicyValues.Cidr[] blocks;
        private final boolean[] booleans;
        private final boolean timeKey;

        /** Stands for the request time's one value when a date operator reads it (see requestDate). */
        private static final List<String> REQUEST_TIME = List.of("");

        CompiledCondition(Statement.Condition condition) {
            this.condition = condition;
            this.op = condition.operator();
            this.timeKey = op.family == ConditionOperator.Family.DATE
                    && (condition.key().equals("aws:currenttime")
                            || condition.key().equals("aws:epochtime"));
            List<String> values = condition.values();
            boolean ignoreCase = op.family == ConditionOperator.Family.STRING_IGNORE_CASE;
            this.patterns = condition.templates().stream()
                    .map(t -> new Pattern(t, ignoreCase))
                    .toArray(Pattern[]::new);
            this.arnPatterns = condition.arnParts().stream()
                    .map(parts -> parts.stream().map(t -> new Pattern(t, false)).toArray(Pattern[]::new))
                    .toArray(Pattern[][]::new);
            this.numbers = op.family == ConditionOperator.Family.NUMERIC
                    ? values.stream().map(PolicyValues::number).toArray(BigDecimal[]::new)
                    : null;
            this.dates = op.family == ConditionOperator.Family.DATE
                    ? values.stream().map(PolicyValues::date).toArray(Instant[]::new)
                    : null;
            this.blocks = op.family == ConditionOperator.Family.IP
                    ? values.stream().map(PolicyValues::cidr).toArray(PolicyValues.Cidr[]::new)
                    : null;
            this.booleans = new boolean[values.size()];
            for (int i = 0; i < values.size(); i++) {
                booleans[i] = values.get(i).equalsIgnoreCase("true");
            }
        }

        boolean holds(RequestContext context) {
            // the request time is always present; its value is read from the context (requestDate), not formatted
            List<String> present = timeKey ? REQUEST_TIME : context.values(condition.key());
            boolean absent = present == null || present.isEmpty();
            if (op == ConditionOperator.NULL) {
                for (boolean wantAbsent : booleans) {
                    if (wantAbsent == absent) {
                        return true;
                    }
                }
                return false;
            }
            if (absent) {
                if (condition.ifExists()) {
                    return true;
                }
                return switch (condition.qualifier()) {
                    case FOR_ALL_VALUES -> true;
                    case FOR_ANY_VALUE -> false;
                    case NONE -> op.negated;
                };
            }
            switch (condition.qualifier()) {
                case FOR_ANY_VALUE -> {
                    for (int i = 0; i < present.size(); i++) {
                        if (matchesAny(present.get(i), context) != op.negated) {
                            return true;
                        }
                    }
                    return false;
                }
                case FOR_ALL_VALUES -> {
                    for (int i = 0; i < present.size(); i++) {
                        if (matchesAny(present.get(i), context) == op.negated) {
                            return false;
                        }
                    }
                    return true;
                }
                default -> {
                    boolean any = false;
                    for (int i = 0; i < present.size() && !any; i++) {
                        any = matchesAny(present.get(i), context);
                    }
                    return any != op.negated;
                }
            }
        }

        /** Whether {@code value} from the request matches any of the policy's values (values are ORed). */
        private boolean matchesAny(String value, RequestContext context) {
            switch (op.family) {
                case STRING, STRING_IGNORE_CASE, STRING_LIKE -> {
                    for (Pattern p : patterns) {
                        if (p.matches(value, context)) {
                            return true;
                        }
                    }
                    return false;
                }
                case ARN -> {
                    String[] parts = PolicyValues.arnComponents(value);
                    if (parts == null) {
                        return false;
                    }
                    for (Pattern[] arn : arnPatterns) {
                        boolean all = true;
                        for (int i = 0; i < 6 && all; i++) {
                            all = arn[i].matches(parts[i], context);
                        }
                        if (all) {
                            return true;
                        }
                    }
                    return false;
                }
                case NUMERIC -> {
                    BigDecimal n = PolicyValues.number(value);
                    if (n == null) {
                        return false;
                    }
                    for (BigDecimal want : numbers) {
                        if (op.compare.holds(n.compareTo(want))) {
                            return true;
                        }
                    }
                    return false;
                }
                case DATE -> {
                    Instant t = requestDate(value, context);
                    if (t == null) {
                        return false;
                    }
                    for (Instant want : dates) {
                        if (op.compare.holds(t.compareTo(want))) {
                            return true;
                        }
                    }
                    return false;
                }
                case BOOL -> {
                    boolean isTrue = value.equalsIgnoreCase("true");
                    if (!isTrue && !value.equalsIgnoreCase("false")) {
                        return false;
                    }
                    for (boolean want : booleans) {
                        if (want == isTrue) {
                            return true;
                        }
                    }
                    return false;
                }
                case IP -> {
                    byte[] address = PolicyValues.address(value);
                    if (address == null) {
                        return false;
                    }
                    for (PolicyValues.Cidr block : blocks) {
                        if (block.contains(address)) {
                            return true;
                        }
                    }
                    return false;
                }
                case BINARY -> {
                    return condition.values().contains(value);
                }
                default -> throw new IllegalStateException("operator " + op + " has no value comparison");
            }
        }

        /** The request time is read from the context, not re-parsed from its text. */
        private Instant requestDate(String value, RequestContext context) {
            return switch (condition.key()) {
                case "aws:currenttime" -> context.time();
                case "aws:epochtime" -> Instant.ofEpochSecond(context.time().getEpochSecond());
                default -> PolicyValues.date(value);
            };
        }
    }
}
