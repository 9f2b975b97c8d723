package dev.appliance.core.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The wildcard matcher: AWS's {@code *} and {@code ?}, case folding for actions, and no pathological patterns. */
class GlobTest {
    private static Glob glob(String pattern, boolean ignoreCase) {
        return Glob.of(Template.parse(pattern, true, false).tokens(), ignoreCase, true);
    }

    @Test
    void wildcards() {
        assertThat(glob("arn:aws:s3:::b/*", false).matches("arn:aws:s3:::b/")).isTrue();
        assertThat(glob("arn:aws:s3:::b/*", false).matches("arn:aws:s3:::b")).isFalse();
        assertThat(glob("*", false).matches("")).isTrue();
        assertThat(glob("", false).matches("")).isTrue();
        assertThat(glob("", false).matches("a")).isFalse();
        assertThat(glob("a?c", false).matches("abc")).isTrue();
        assertThat(glob("a?c", false).matches("ac")).isFalse();
        assertThat(glob("*a*b*", false).matches("xxaxxbxx")).isTrue();
        assertThat(glob("*a*b*", false).matches("xxbxxaxx")).isFalse();
        assertThat(glob("ab*ba", false).matches("aba")).isFalse();
        assertThat(glob("s3:get*", true).matches("S3:GetObject")).isTrue();
        assertThat(glob("S3:GET*", true).matches("s3:getobject")).isTrue();
        assertThat(glob("b/Key", false).matches("b/key")).isFalse();
        // characters outside ASCII, in patterns with and without precomputed masks
        assertThat(glob("b/ä*ö?", false).matches("b/äxxöü")).isTrue();
        assertThat(glob("*" + "x".repeat(70) + "*", false).matches("a" + "x".repeat(70) + "b"))
                .isTrue();
        assertThat(glob("*" + "x".repeat(70) + "*", false).matches("a" + "x".repeat(69) + "b"))
                .isFalse();
    }

    @Test
    void pathologicalPattern_takesLinearTime() {
        // a backtracking matcher (or java.util.regex on .*a.*a...b) explores ~n^k ways to split this text
        String pattern = "a*".repeat(40) + "b";
        String text = "a".repeat(200_000);
        Glob g = glob(pattern, false);
        assertTimeoutPreemptively(Duration.ofSeconds(5), () -> {
            for (int i = 0; i < 20; i++) {
                assertThat(g.matches(text)).isFalse();
                assertThat(g.matches(text + "b")).isTrue();
            }
        });
        Glob plain = Glob.of(Template.parse(pattern, true, false).tokens(), false, false);
        assertTimeoutPreemptively(
                Duration.ofSeconds(5), () -> assertThat(plain.matches(text)).isFalse());
    }
}
