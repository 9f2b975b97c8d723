package dev.appliance.core.policy;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * One validated statement of a policy document, as written (wildcards and variables still in their strings and
 * templates). The compiled evaluator ({@link CompiledStatement}) and the reference evaluator both start from here.
 *
 * @param index the statement's position in its document, from 0
 * @param sid the Sid, or "" when the statement has none
 * @param principals who the statement is about (bucket policies), null in identity policies
 * @param actions action patterns, lower-cased (actions ignore case)
 */
record Statement(
        int index,
        String sid,
        Effect effect,
        Principals principals,
        boolean notPrincipal,
        List<String> actions,
        boolean notAction,
        List<Template> resources,
        boolean notResource,
        List<Condition> conditions) {

    Statement {
        requireNonNull(sid, "sid");
        requireNonNull(effect, "effect");
        actions = List.copyOf(actions);
        resources = List.copyOf(resources);
        conditions = List.copyOf(conditions);
        if (actions.isEmpty()) {
            throw new IllegalArgumentException("actions: none (expected at least one)");
        }
        if (resources.isEmpty()) {
            throw new IllegalArgumentException("resources: none (expected at least one)");
        }
    }

    enum Effect {
        ALLOW,
        DENY
    }

    /**
     * The Principal (or NotPrincipal) element: {@code anyone} for {@code "*"} or {@code {"AWS": "*"}}; {@code aws}
     * holds account ids and ARNs; principals of other types (Service, Federated, CanonicalUser) never match a request
     * here, as this appliance has none, and are only kept to be shown back.
     */
    record Principals(boolean anyone, List<String> aws, List<String> others) {
        Principals {
            aws = List.copyOf(aws);
            others = List.copyOf(others);
        }
    }

    enum Qualifier {
        NONE,
        FOR_ANY_VALUE,
        FOR_ALL_VALUES
    }

    /**
     * One key under one operator: {@code "StringLike": {"s3:prefix": ["home/", "home/${aws:username}/*"]}}.
     *
     * @param key the condition key, lower-cased
     * @param values the policy's values as written
     * @param templates one per value, for the string families (variables and, for StringLike, wildcards parsed)
     * @param arnParts one per value for the ARN family: its six components as templates
     */
    record Condition(
            ConditionOperator operator,
            Qualifier qualifier,
            boolean ifExists,
            String key,
            List<String> values,
            List<Template> templates,
            List<List<Template>> arnParts) {
        Condition {
            requireNonNull(operator, "operator");
            requireNonNull(qualifier, "qualifier");
            requireNonNull(key, "key");
            values = List.copyOf(values);
            templates = List.copyOf(templates);
            arnParts = List.copyOf(arnParts);
            if (values.isEmpty()) {
                throw new IllegalArgumentException("values: none for key " + key);
            }
        }
    }
}
