#!/usr/bin/env python3
"""Report relative Markdown links in README.md and docs/**/*.md whose target file or #anchor does not exist.

Usage: python3 docs/check-links.py  (from anywhere; exits 1 and lists each broken link when there is one)

Anchors are checked against GitHub's heading slugs: lower case, punctuation other than '-' and '_' dropped,
spaces turned into '-', repeated headings numbered -1, -2, ... Links inside code spans and fenced code blocks
are ignored; absolute URLs (http:, https:, mailto:) are not checked. The same rules are enforced by the test
appliance-admin-ui DocsLinksTest, so a broken link fails the build.
"""
import os
import re
import sys

LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^ {0,3}(```|~~~)")
CODE_SPAN = re.compile(r"(`+).*?\1")


def slug(heading):
    parts = heading.split("`")  # odd parts are code spans, whose text is literal
    for i in range(0, len(parts), 2):
        parts[i] = re.sub(r"<[^>]+>", "", parts[i])  # inline HTML
        parts[i] = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", parts[i])  # links keep their text
    text = "".join(parts).strip().lower()
    text = "".join(c for c in text if c.isalnum() or c in " -_")
    return text.replace(" ", "-")


def prose_lines(path):
    """The file's lines outside fenced code blocks."""
    fenced = False
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if FENCE.match(line):
                fenced = not fenced
                continue
            if not fenced:
                yield number, line.rstrip("\n")


def anchors(path):
    seen = {}
    result = set()
    for _, line in prose_lines(path):
        m = HEADING.match(line)
        if m:
            base = slug(m.group(2))
            n = seen.get(base, 0)
            seen[base] = n + 1
            result.add(base if n == 0 else f"{base}-{n}")
    with open(path, encoding="utf-8") as f:  # explicit <a name="..."> / id="..." targets
        result.update(re.findall(r"<a\s+(?:name|id)=\"([^\"]+)\"", f.read()))
    return result


def markdown_files(root):
    files = [os.path.join(root, "README.md")]
    for directory, _, names in os.walk(os.path.join(root, "docs")):
        files.extend(os.path.join(directory, n) for n in names if n.endswith(".md"))
    return sorted(f for f in files if os.path.isfile(f))


def broken_links(root):
    problems = []
    cache = {}
    for source in markdown_files(root):
        for number, line in prose_lines(source):
            for target in LINK.findall(CODE_SPAN.sub("", line)):
                if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):
                    continue  # absolute URL
                file_part, _, anchor = target.partition("#")
                resolved = source if not file_part else os.path.normpath(
                    os.path.join(os.path.dirname(source), file_part))
                where = f"{os.path.relpath(source, root)}:{number}: {target}"
                if not os.path.exists(resolved):
                    problems.append(f"{where} (no file {os.path.relpath(resolved, root)})")
                elif anchor and resolved.endswith(".md"):
                    if resolved not in cache:
                        cache[resolved] = anchors(resolved)
                    if anchor.lower() not in cache[resolved]:
                        problems.append(f"{where} (no heading #{anchor} in {os.path.relpath(resolved, root)})")
    return problems


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    problems = broken_links(root)
    for p in problems:
        print(p)
    print(f"{len(problems)} broken link(s)" if problems else "all relative links resolve", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
