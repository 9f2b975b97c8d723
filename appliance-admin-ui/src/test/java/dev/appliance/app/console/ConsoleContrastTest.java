package dev.appliance.app.console;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The console's text colours against their backgrounds, read from its style sheet (the {@code :root} variables and the
 * header's literal colours), keep WCAG AA contrast: at least 4.5:1 for text, 3:1 for the inputs' borders.
 */
class ConsoleContrastTest {
    /** foreground, background, the least ratio; a name starting with # is a colour, else a :root variable. */
    private static final List<List<String>> PAIRS = List.of(
            List.of("fg", "bg", "4.5"),
            List.of("fg", "panel", "4.5"),
            List.of("muted", "bg", "4.5"),
            List.of("muted", "panel", "4.5"),
            List.of("accent", "bg", "4.5"),
            List.of("accent", "panel", "4.5"),
            List.of("accent-fg", "accent", "4.5"),
            List.of("ok", "bg", "4.5"),
            List.of("ok", "panel", "4.5"),
            List.of("ok", "#eef7f0", "4.5"),
            List.of("warn", "bg", "4.5"),
            List.of("warn", "panel", "4.5"),
            List.of("#5c3c00", "#fdf6e7", "4.5"),
            List.of("bad", "bg", "4.5"),
            List.of("bad", "panel", "4.5"),
            List.of("bad", "#fdf1f0", "4.5"),
            List.of("#ffffff", "bad", "4.5"),
            // the header: white on its background, the hovered and the current nav entry; who is signed in
            List.of("#ffffff", "#14293f", "4.5"),
            List.of("#ffffff", "#24476b", "4.5"),
            List.of("#ffffff", "#2f5d8c", "4.5"),
            List.of("#dde6ef", "#14293f", "4.5"),
            // an input's border against the page (a user interface component: 3:1)
            List.of("#7a8795", "bg", "3"));

    @Test
    void textColoursKeepWcagAaContrastAgainstTheirBackgrounds() throws IOException {
        String css;
        try (InputStream in = getClass().getResourceAsStream("/static/console/console.css")) {
            assertThat(in).as("console.css on the classpath").isNotNull();
            css = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        Map<String, String> vars = new HashMap<>();
        Matcher m = Pattern.compile("--([a-z-]+):\\s*(#[0-9a-fA-F]{6})\\s*;").matcher(css);
        while (m.find()) {
            vars.put(m.group(1), m.group(2));
        }
        for (List<String> pair : PAIRS) {
            String fg = colour(pair.get(0), vars, css);
            String bg = colour(pair.get(1), vars, css);
            assertThat(ratio(fg, bg))
                    .as(pair.get(0) + " (" + fg + ") on " + pair.get(1) + " (" + bg + ")")
                    .isGreaterThanOrEqualTo(Double.parseDouble(pair.get(2)));
        }
    }

    /** A variable's value, or a literal colour that the style sheet must still use (else the pair checks nothing). */
    private static String colour(String name, Map<String, String> vars, String css) {
        if (name.startsWith("#")) {
            assertThat(css.toLowerCase(java.util.Locale.ROOT))
                    .as("console.css uses " + name)
                    .contains(name);
            return name;
        }
        assertThat(vars).as("console.css defines --" + name).containsKey(name);
        return vars.get(name);
    }

    /** WCAG 2 contrast ratio of two sRGB colours. */
    static double ratio(String a, String b) {
        double la = luminance(a);
        double lb = luminance(b);
        return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
    }

    private static double luminance(String hex) {
        double[] c = new double[3];
        for (int i = 0; i < 3; i++) {
            double v = Integer.parseInt(hex.substring(1 + 2 * i, 3 + 2 * i), 16) / 255.0;
            c[i] = v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
        }
        return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
    }

    @Test
    void theRatioIsComputedAsWcagDefinesIt() {
        assertThat(ratio("#000000", "#ffffff")).isEqualTo(21.0);
        assertThat(ratio("#777777", "#ffffff")).isBetween(4.47, 4.49); // the classic just-failing grey
    }
}
