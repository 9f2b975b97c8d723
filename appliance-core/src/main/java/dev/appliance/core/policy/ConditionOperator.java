package dev.appliance.core.policy;

import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/** The condition operators of AWS's policy language (without the {@code IfExists} suffix and set qualifiers). */
enum ConditionOperator {
    STRING_EQUALS("StringEquals", Family.STRING, Compare.EQ, false),
    STRING_NOT_EQUALS("StringNotEquals", Family.STRING, Compare.EQ, true),
    STRING_EQUALS_IGNORE_CASE("StringEqualsIgnoreCase", Family.STRING_IGNORE_CASE, Compare.EQ, false),
    STRING_NOT_EQUALS_IGNORE_CASE("StringNotEqualsIgnoreCase", Family.STRING_IGNORE_CASE, Compare.EQ, true),
    STRING_LIKE("StringLike", Family.STRING_LIKE, Compare.EQ, false),
    STRING_NOT_LIKE("StringNotLike", Family.STRING_LIKE, Compare.EQ, true),
    NUMERIC_EQUALS("NumericEquals", Family.NUMERIC, Compare.EQ, false),
    NUMERIC_NOT_EQUALS("NumericNotEquals", Family.NUMERIC, Compare.EQ, true),
    NUMERIC_LESS_THAN("NumericLessThan", Family.NUMERIC, Compare.LT, false),
    NUMERIC_LESS_THAN_EQUALS("NumericLessThanEquals", Family.NUMERIC, Compare.LE, false),
    NUMERIC_GREATER_THAN("NumericGreaterThan", Family.NUMERIC, Compare.GT, false),
    NUMERIC_GREATER_THAN_EQUALS("NumericGreaterThanEquals", Family.NUMERIC, Compare.GE, false),
    DATE_EQUALS("DateEquals", Family.DATE, Compare.EQ, false),
    DATE_NOT_EQUALS("DateNotEquals", Family.DATE, Compare.EQ, true),
    DATE_LESS_THAN("DateLessThan", Family.DATE, Compare.LT, false),
    DATE_LESS_THAN_EQUALS("DateLessThanEquals", Family.DATE, Compare.LE, false),
    DATE_GREATER_THAN("DateGreaterThan", Family.DATE, Compare.GT, false),
    DATE_GREATER_THAN_EQUALS("DateGreaterThanEquals", Family.DATE, Compare.GE, false),
    BOOL("Bool", Family.BOOL, Compare.EQ, false),
    BINARY_EQUALS("BinaryEquals", Family.BINARY, Compare.EQ, false),
    IP_ADDRESS("IpAddress", Family.IP, Compare.EQ, false),
    NOT_IP_ADDRESS("NotIpAddress", Family.IP, Compare.EQ, true),
    ARN_EQUALS("ArnEquals", Family.ARN, Compare.EQ, false),
    ARN_LIKE("ArnLike", Family.ARN, Compare.EQ, false),
    ARN_NOT_EQUALS("ArnNotEquals", Family.ARN, Compare.EQ, true),
    ARN_NOT_LIKE("ArnNotLike", Family.ARN, Compare.EQ, true),
    NULL("Null", Family.NULL, Compare.EQ, false);

    enum Family {
        STRING,
        STRING_IGNORE_CASE,
        STRING_LIKE,
        NUMERIC,
        DATE,
        BOOL,
        BINARY,
        IP,
        ARN,
        NULL;

        /** Policy variables are substituted in these operators' values only. */
        boolean takesVariables() {
            return this == STRING || this == STRING_IGNORE_CASE || this == STRING_LIKE || this == ARN;
        }

        /** {@code *} and {@code ?} are wildcards in these operators' values only. */
        boolean takesWildcards() {
            return this == STRING_LIKE || this == ARN;
        }
    }

    enum Compare {
        EQ,
        LT,
        LE,
        GT,
        GE;

        boolean holds(int comparison) {
            return switch (this) {
                case EQ -> comparison == 0;
                case LT -> comparison < 0;
                case LE -> comparison <= 0;
                case GT -> comparison > 0;
                case GE -> comparison >= 0;
            };
        }
    }

    private static final Map<String, ConditionOperator> BY_NAME = new TreeMap<>();

    static {
        for (ConditionOperator op : values()) {
            BY_NAME.put(op.awsName.toLowerCase(Locale.ROOT), op);
        }
    }

    final String awsName;
    final Family family;
    final Compare compare;

    /** Negated operators match when no value matches, and when the key is absent. */
    final boolean negated;

    ConditionOperator(String awsName, Family family, Compare compare, boolean negated) {
        this.awsName = awsName;
        this.family = family;
        this.compare = compare;
        this.negated = negated;
    }

    /** The operator named {@code name} (case-insensitive), or null. */
    static ConditionOperator named(String name) {
        return BY_NAME.get(name.toLowerCase(Locale.ROOT));
    }
}
