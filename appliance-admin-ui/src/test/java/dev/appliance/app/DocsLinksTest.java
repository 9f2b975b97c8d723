package dev.appliance.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every relative link in README.md and docs/**.md points at a file that exists and, with a #anchor, at a heading
 * that exists (GitHub's heading slugs). The same rules as docs/check-links.py, so the docs cannot drift from the
 * tree unnoticed. This module is the one that runs it because it is the product that ships the docs; the engine
 * modules know nothing of them.
 */
class DocsLinksTest {
    private static final Pattern LINK =
            Pattern.compile("!?\\[(?:[^\\[\\]]|\\[[^\\]]*\\])*\\]\\(\\s*<?([^)\\s>]+)>?(?:\\s+\"[^\"]*\")?\\s*\\)");
    private static final Pattern HEADING = Pattern.compile("^ {0,3}(#{1,6})\\s+(.*?)\\s*#*\\s*$");
    private static final Pattern FENCE = Pattern.compile("^ {0,3}(```|~~~).*");
    private static final Pattern CODE_SPAN = Pattern.compile("(`+).*?\\1");
    private static final Pattern HTML_ANCHOR = Pattern.compile("<a\\s+(?:name|id)=\"([^\"]+)\"");
    private static final Pattern ABSOLUTE = Pattern.compile("^[a-zA-Z][a-zA-Z0-9+.-]*:.*");

    @Test
    void everyRelativeLinkInTheDocs_reachesAnExistingFileAndHeading() throws IOException {
        Path root = repositoryRoot();
        assertThat(root.resolve("docs")).isDirectory();
        assertThat(brokenLinks(root))
                .as("broken links (fix them or run python3 docs/check-links.py)")
                .isEmpty();
    }

    @Test
    void aMissingFileAndAMissingHeading_areBothReported(@TempDir Path root) throws IOException {
        Files.createDirectories(root.resolve("docs/formats"));
        Files.writeString(
                root.resolve("README.md"),
                "See [ops](docs/ops.md#start-here), [gone](docs/gone.md) and [a url](https://example.com/x.md).\n");
        Files.writeString(
                root.resolve("docs/ops.md"),
                "# Start here\n\n## Trusted clock (`RetentionClock`)\n\n[up](../README.md) [self](#start-here)"
                        + " [fmt](formats/layout.md#bucket-records-bucketsbucketjson) [bad](#no-such-heading)\n"
                        + "```\n[in a fence](missing.md)\n```\n`[in a code span](missing.md)`\n"
                        + "[clock](#trusted-clock-retentionclock)\n");
        Files.writeString(root.resolve("docs/formats/layout.md"), "## Bucket records (`buckets/<bucket>.json`)\n");

        assertThat(brokenLinks(root))
                .containsExactly(
                        "README.md:1: docs/gone.md (no file docs/gone.md)",
                        "docs/ops.md:5: #no-such-heading (no heading #no-such-heading in docs/ops.md)");
    }

    /** The directory above the module's working directory that holds README.md and docs/. */
    static Path repositoryRoot() {
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.isRegularFile(p.resolve("README.md")) && Files.isDirectory(p.resolve("docs"))) {
                return p;
            }
        }
        throw new IllegalStateException(
                "no README.md with a docs/ folder above " + Path.of("").toAbsolutePath());
    }

    static List<String> brokenLinks(Path root) throws IOException {
        List<Path> sources = new ArrayList<>();
        if (Files.isRegularFile(root.resolve("README.md"))) {
            sources.add(root.resolve("README.md"));
        }
        try (Stream<Path> docs = Files.walk(root.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(sources::add);
        }
        Map<Path, Set<String>> anchorsByFile = new HashMap<>();
        List<String> problems = new ArrayList<>();
        for (Path source : sources) {
            List<String> lines = Files.readAllLines(source);
            boolean fenced = false;
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i);
                if (FENCE.matcher(line).matches()) {
                    fenced = !fenced;
                    continue;
                }
                if (fenced) {
                    continue;
                }
                Matcher m = LINK.matcher(CODE_SPAN.matcher(line).replaceAll(""));
                while (m.find()) {
                    String target = m.group(1);
                    if (ABSOLUTE.matcher(target).matches()) {
                        continue;
                    }
                    int hash = target.indexOf('#');
                    String filePart = hash < 0 ? target : target.substring(0, hash);
                    String anchor = hash < 0 ? "" : target.substring(hash + 1);
                    Path resolved = filePart.isEmpty()
                            ? source
                            : source.getParent().resolve(filePart).normalize();
                    String where = root.relativize(source) + ":" + (i + 1) + ": " + target;
                    if (!Files.exists(resolved)) {
                        problems.add(where + " (no file " + root.relativize(resolved) + ")");
                    } else if (!anchor.isEmpty() && resolved.toString().endsWith(".md")) {
                        Set<String> anchors = anchorsByFile.computeIfAbsent(resolved, DocsLinksTest::anchors);
                        if (!anchors.contains(anchor.toLowerCase())) {
                            problems.add(where + " (no heading #" + anchor + " in " + root.relativize(resolved) + ")");
                        }
                    }
                }
            }
        }
        return problems;
    }

    /** GitHub's anchors for a file's headings (repeats numbered -1, -2, ...) plus explicit {@code <a name>} ones. */
    static Set<String> anchors(Path file) {
        try {
            String text = Files.readString(file);
            Set<String> result = new HashSet<>();
            Map<String, Integer> seen = new HashMap<>();
            boolean fenced = false;
            for (String line : text.split("\n", -1)) {
                if (FENCE.matcher(line).matches()) {
                    fenced = !fenced;
                    continue;
                }
                Matcher h = HEADING.matcher(line);
                if (!fenced && h.matches()) {
                    String base = slug(h.group(2));
                    int n = seen.merge(base, 1, Integer::sum) - 1;
                    result.add(n == 0 ? base : base + "-" + n);
                }
            }
            Matcher a = HTML_ANCHOR.matcher(text);
            while (a.find()) {
                result.add(a.group(1));
            }
            return result;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Lower case, code spans literal, HTML tags and link targets dropped, punctuation but '-' and '_' removed. */
    static String slug(String heading) {
        String[] parts = heading.split("`", -1);
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < parts.length; i++) {
            String part = parts[i];
            if (i % 2 == 0) {
                part = part.replaceAll("<[^>]+>", "").replaceAll("\\[([^\\]]*)\\]\\([^)]*\\)", "$1");
            }
            text.append(part);
        }
        StringBuilder slug = new StringBuilder();
        for (int c : text.toString().strip().toLowerCase().codePoints().toArray()) {
            if (Character.isLetterOrDigit(c) || c == '-' || c == '_') {
                slug.appendCodePoint(c);
            } else if (c == ' ') {
                slug.append('-');
            }
        }
        return slug.toString();
    }
}
