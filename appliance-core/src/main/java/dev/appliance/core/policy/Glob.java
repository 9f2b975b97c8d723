package dev.appliance.core.policy;

import java.util.ArrayList;
import java.util.List;

/**
 * A compiled wildcard pattern ({@code *} any run, {@code ?} one character) with a matcher that takes time linear in
 * the text, whatever the pattern.
 *
 * <p>The pattern is cut at its stars into segments (literal characters and {@code ?}). Text matches when the first
 * segment matches at its start, the last at its end, and the segments in between occur in order, each searched from
 * where the previous one ended; taking the leftmost occurrence of each is always safe, because a later occurrence can
 * only leave less text for the segments that follow. So no segment is ever searched twice, and a pattern such as
 * {@code a*a*a*a*b} costs one pass, where a backtracking matcher (or a regular expression) can take exponential time.
 * Each search is a bit-parallel scan (shift-and: one bit per segment position, all advanced by one AND per text
 * character) for segments of up to 64 characters, so the whole match reads each text character a bounded number of
 * times; longer segments (rare: a policy is at most 20 KiB) fall back to a plain search.
 *
 * <p>Case-insensitive globs (actions) fold both sides with {@link Character#toLowerCase(char)}.
 */
final class Glob {
    private static final int ASCII = 128;

    private final Segment[] segments;
    private final boolean hasStar;
    private final boolean ignoreCase;
    private final boolean matchesEverything;

    private Glob(Segment[] segments, boolean hasStar, boolean ignoreCase) {
        this.segments = segments;
        this.hasStar = hasStar;
        this.ignoreCase = ignoreCase;
        this.matchesEverything =
                hasStar && segments.length == 2 && segments[0].length() == 0 && segments[1].length() == 0;
    }

    /**
     * A glob over {@code tokens} (literals, stars and any-char only; variables resolved). {@code precompute} builds the
     * shift-and masks: worth it for patterns compiled once, not for ones built per request.
     */
    static Glob of(List<Template.Token> tokens, boolean ignoreCase, boolean precompute) {
        List<Segment> segments = new ArrayList<>();
        StringBuilder chars = new StringBuilder();
        List<Integer> any = new ArrayList<>();
        boolean hasStar = false;
        for (Template.Token t : tokens) {
            switch (t) {
                case Template.Literal l -> {
                    String text = ignoreCase ? fold(l.text()) : l.text();
                    chars.append(text);
                }
                case Template.AnyChar a -> {
                    any.add(chars.length());
                    chars.append('\0');
                }
                case Template.Star s -> {
                    hasStar = true;
                    segments.add(Segment.of(chars.toString(), any, precompute));
                    chars.setLength(0);
                    any.clear();
                }
                case Template.Variable v -> throw new IllegalArgumentException("glob: unresolved variable " + v.key());
            }
        }
        segments.add(Segment.of(chars.toString(), any, precompute));
        return new Glob(segments.toArray(Segment[]::new), hasStar, ignoreCase);
    }

    private static String fold(String s) {
        char[] out = s.toCharArray();
        for (int i = 0; i < out.length; i++) {
            out[i] = Character.toLowerCase(out[i]);
        }
        return new String(out);
    }

    boolean matches(String text) {
        if (matchesEverything) {
            return true;
        }
        int n = text.length();
        if (!hasStar) {
            Segment only = segments[0];
            return only.length() == n && only.matchesAt(text, 0, ignoreCase);
        }
        Segment first = segments[0];
        Segment last = segments[segments.length - 1];
        if (first.length() + last.length() > n) {
            return false;
        }
        if (!first.matchesAt(text, 0, ignoreCase) || !last.matchesAt(text, n - last.length(), ignoreCase)) {
            return false;
        }
        int from = first.length();
        int limit = n - last.length();
        for (int i = 1; i < segments.length - 1; i++) {
            Segment s = segments[i];
            if (s.length() == 0) {
                continue;
            }
            int at = s.indexIn(text, from, limit, ignoreCase);
            if (at < 0) {
                return false;
            }
            from = at + s.length();
        }
        return true;
    }

    /** Characters between two stars; {@code any} marks the {@code ?} positions. */
    private record Segment(char[] chars, boolean[] any, String literal, long[] asciiMasks, long anyMask) {
        static Segment of(String text, List<Integer> anyPositions, boolean precompute) {
            char[] chars = text.toCharArray();
            boolean[] any = new boolean[chars.length];
            for (int p : anyPositions) {
                any[p] = true;
            }
            long[] masks = null;
            long anyMask = 0;
            if (precompute && chars.length > 0 && chars.length <= 64) {
                masks = new long[ASCII];
                for (int i = 0; i < chars.length; i++) {
                    if (any[i]) {
                        anyMask |= 1L << i;
                    } else if (chars[i] < ASCII) {
                        masks[chars[i]] |= 1L << i;
                    }
                }
            }
            // without '?' an anchored segment is compared by String.startsWith, which the JIT vectorises
            String literal = anyPositions.isEmpty() ? text : null;
            return new Segment(chars, any, literal, masks, anyMask);
        }

        int length() {
            return chars.length;
        }

        boolean matchesAt(String text, int at, boolean ignoreCase) {
            if (literal != null && !ignoreCase) {
                return text.startsWith(literal, at);
            }
            for (int i = 0; i < chars.length; i++) {
                if (!any[i] && chars[i] != charAt(text, at + i, ignoreCase)) {
                    return false;
                }
            }
            return true;
        }

        /** The leftmost start in [from, limit - length] where this segment matches, or -1. */
        int indexIn(String text, int from, int limit, boolean ignoreCase) {
            int k = chars.length;
            if (asciiMasks == null) {
                for (int at = from; at + k <= limit; at++) {
                    if (matchesAt(text, at, ignoreCase)) {
                        return at;
                    }
                }
                return -1;
            }
            long done = 1L << (k - 1);
            long state = 0;
            // while no partial match is under way, jump to the next occurrence of the segment's first character
            // (String.indexOf, vectorised); every text character is still read at most once
            boolean skip = !any[0] && !ignoreCase;
            for (int j = from; j < limit; j++) {
                if (state == 0 && skip) {
                    j = text.indexOf(chars[0], j);
                    if (j < 0 || j >= limit) {
                        return -1;
                    }
                }
                state = ((state << 1) | 1L) & maskOf(charAt(text, j, ignoreCase));
                if ((state & done) != 0) {
                    return j - k + 1;
                }
            }
            return -1;
        }

        private long maskOf(char c) {
            if (c < ASCII) {
                return asciiMasks[c] | anyMask;
            }
            long mask = anyMask;
            for (int i = 0; i < chars.length; i++) {
                if (!any[i] && chars[i] == c) {
                    mask |= 1L << i;
                }
            }
            return mask;
        }

        private static char charAt(String text, int i, boolean ignoreCase) {
            char c = text.charAt(i);
            return ignoreCase ? Character.toLowerCase(c) : c;
        }
    }
}
