package dev.appliance.core.policy;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A policy string split into literal text, wildcards ({@code *}, {@code ?}) and policy variables ({@code
 * ${aws:username}}, with an optional default {@code ${aws:username, 'nobody'}}). The escapes {@code ${*}}, {@code ${?}}
 * and {@code ${$}} stand for the literal character. Wildcards are only tokens where the element allows them (Resource,
 * StringLike, Arn*); elsewhere they are literal text. Variables are only recognised in 2012-10-17 documents: in
 * 2008-10-17 documents AWS treats {@code ${...}} as literal text, and so do we.
 */
record Template(String source, List<Token> tokens, boolean hasVariables) {
    Template {
        requireNonNull(source, "source");
        tokens = List.copyOf(tokens);
    }

    sealed interface Token permits Literal, Star, AnyChar, Variable {}

    /** Literal text (never empty). */
    record Literal(String text) implements Token {
        Literal {
            if (text.isEmpty()) {
                throw new IllegalArgumentException("literal: empty");
            }
        }
    }

    /** {@code *}: any run of characters, including none. */
    record Star() implements Token {}

    /** {@code ?}: exactly one character. */
    record AnyChar() implements Token {}

    /** {@code ${key}} or {@code ${key, 'default'}}; {@code key} is lower-cased (condition keys ignore case). */
    record Variable(String key, String defaultValue) implements Token {
        Variable {
            requireNonNull(key, "key");
        }
    }

    static final Token STAR = new Star();
    static final Token ANY_CHAR = new AnyChar();

    static Template parse(String source, boolean wildcards, boolean variables) {
        List<Token> tokens = new ArrayList<>();
        StringBuilder literal = new StringBuilder();
        boolean hasVariables = false;
        int i = 0;
        while (i < source.length()) {
            char c = source.charAt(i);
            if (variables && c == '$' && i + 1 < source.length() && source.charAt(i + 1) == '{') {
                int close = source.indexOf('}', i + 2);
                if (close > 0) {
                    String inner = source.substring(i + 2, close);
                    Token variable = variable(inner);
                    if (variable != null) {
                        if (variable instanceof Literal l) {
                            literal.append(l.text());
                        } else {
                            flush(literal, tokens);
                            tokens.add(variable);
                            hasVariables = true;
                        }
                        i = close + 1;
                        continue;
                    }
                }
            }
            if (wildcards && (c == '*' || c == '?')) {
                flush(literal, tokens);
                tokens.add(c == '*' ? STAR : ANY_CHAR);
            } else {
                literal.append(c);
            }
            i++;
        }
        flush(literal, tokens);
        return new Template(source, tokens, hasVariables);
    }

    /** The token for the text between {@code ${} and {@code }}, or null when it is no variable (kept as text). */
    private static Token variable(String inner) {
        switch (inner) {
            case "*", "?", "$" -> {
                return new Literal(inner);
            }
            default -> {}
        }
        String key = inner;
        String defaultValue = null;
        int comma = inner.indexOf(',');
        if (comma >= 0) {
            key = inner.substring(0, comma);
            String rest = inner.substring(comma + 1).strip();
            if (rest.length() < 2 || rest.charAt(0) != '\'' || rest.charAt(rest.length() - 1) != '\'') {
                return null;
            }
            // a quote inside the default is written twice
            defaultValue = rest.substring(1, rest.length() - 1).replace("''", "'");
        }
        key = key.strip();
        if (key.isEmpty() || key.chars().anyMatch(Character::isWhitespace)) {
            return null;
        }
        return new Variable(key.toLowerCase(Locale.ROOT), defaultValue);
    }

    private static void flush(StringBuilder literal, List<Token> tokens) {
        if (!literal.isEmpty()) {
            tokens.add(new Literal(literal.toString()));
            literal.setLength(0);
        }
    }

    /**
     * This template with its variables replaced by their values in {@code context} (as literal text), or null when a
     * variable has no single value and no default: such a value matches nothing.
     */
    List<Token> resolve(RequestContext context) {
        if (!hasVariables) {
            return tokens;
        }
        List<Token> out = new ArrayList<>(tokens.size());
        StringBuilder literal = new StringBuilder();
        for (Token t : tokens) {
            String text;
            if (t instanceof Variable v) {
                text = resolve(v, context);
                if (text == null) {
                    return null;
                }
            } else if (t instanceof Literal l) {
                text = l.text();
            } else {
                flush(literal, out);
                out.add(t);
                continue;
            }
            literal.append(text);
        }
        flush(literal, out);
        return out;
    }

    static String resolve(Variable v, RequestContext context) {
        List<String> values = context.values(v.key());
        if (values != null && values.size() == 1) {
            return values.getFirst();
        }
        return v.defaultValue();
    }
}
