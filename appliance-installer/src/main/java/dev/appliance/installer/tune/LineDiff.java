package dev.appliance.installer.tune;

import java.util.ArrayList;
import java.util.List;

/**
 * A line diff of two small files (a sysctl file, tens of lines): the longest common subsequence, printed whole with
 * {@code ' '}, {@code '-'} and {@code '+'} prefixes as {@code diff -u} marks lines.
 */
final class LineDiff {
    private LineDiff() {}

    /** Every line of both, marked; empty when they are equal. */
    static List<String> of(List<String> before, List<String> after) {
        if (before.equals(after)) {
            return List.of();
        }
        int n = before.size();
        int m = after.size();
        int[][] common = new int[n + 1][m + 1]; // common[i][j]: LCS length of before[i..] and after[j..]
        for (int i = n - 1; i >= 0; i--) {
            for (int j = m - 1; j >= 0; j--) {
                common[i][j] = before.get(i).equals(after.get(j))
                        ? common[i + 1][j + 1] + 1
                        : Math.max(common[i + 1][j], common[i][j + 1]);
            }
        }
        List<String> out = new ArrayList<>();
        int i = 0;
        int j = 0;
        while (i < n || j < m) {
            if (i < n && j < m && before.get(i).equals(after.get(j))) {
                out.add(" " + before.get(i++));
                j++;
            } else if (i < n && (j == m || common[i + 1][j] >= common[i][j + 1])) {
                out.add("-" + before.get(i++)); // a removal before the addition that replaces it, as diff -u does
            } else {
                out.add("+" + after.get(j++));
            }
        }
        return out;
    }
}
