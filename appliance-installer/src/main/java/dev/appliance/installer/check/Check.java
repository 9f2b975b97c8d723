package dev.appliance.installer.check;

import static java.util.Objects.requireNonNull;

/**
 * The outcome of one rule.
 *
 * @param id the rule ({@code cpu.avx2}, {@code net.core.rmem_max}, {@code drives.filesystem}); stable, for scripts
 * @param result pass, warn or fail
 * @param measured what this machine has
 * @param expected what the rule asks for
 * @param remediation what to do about a warn or fail; empty for a pass
 */
public record Check(String id, Result result, String measured, String expected, String remediation) {
    public Check {
        requireNonNull(id, "id");
        requireNonNull(result, "result");
        requireNonNull(measured, "measured");
        requireNonNull(expected, "expected");
        requireNonNull(remediation, "remediation");
        if (result != Result.PASS && remediation.isBlank()) {
            throw new IllegalArgumentException(
                    "remediation: blank for " + result.label() + " check " + id + " (expected what to do about it)");
        }
    }

    /** A check whose remediation is kept only when it did not pass. */
    static Check of(String id, Result result, String measured, String expected, String remediation) {
        return new Check(id, result, measured, expected, result == Result.PASS ? "" : remediation);
    }
}
