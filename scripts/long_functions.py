#!/usr/bin/env python3
"""Lists the functions of the workspace's sources longer than a limit (100 lines by default).

A function's length is the lines from its `fn` line to its closing brace, both counted. Braces are
counted outside comments, strings (raw ones too) and character literals. Test code is left out:
`tests/`, `benches/` and `examples/` folders, and `#[cfg(test)]` modules. So are `crates/web` and
`crates/analysis` (worked on elsewhere), and generated files (`OUT_DIR`, `// @generated`).

    scripts/long_functions.py [--limit N] [paths...]   (default: src crates/*/src)
"""

import argparse
import glob
import os
import re
import sys

EXCLUDED = ("crates/web/", "crates/analysis/")
FN = re.compile(r"\bfn\s+([A-Za-z_][A-Za-z0-9_]*)")


def code_only(text):
    """The text with comments, strings and character literals blanked (newlines kept)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif re.match(r'b?r(#*)"', text[i:i + 260]) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'b?r(#*)"', text[i:])
            end = '"' + m.group(1)
            j = text.find(end, i + m.end())
            j = n if j < 0 else j + len(end)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            j += 1
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "'":
            # A character literal ('x', '\n', '\u{7f}') or a lifetime ('a).
            m = re.match(r"'(\\u\{[0-9a-fA-F]+\}|\\.|[^\\'])'", text[i:])
            if m:
                out.append(" " * m.end())
                i += m.end()
            else:
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def test_module_spans(code):
    """Line ranges of `#[cfg(test)]` items (their braces matched)."""
    spans = []
    for m in re.finditer(r"#\[cfg\(test\)\]", code):
        start = code.find("{", m.end())
        semi = code.find(";", m.end())
        if start < 0 or (0 <= semi < start):
            continue
        end = match_brace(code, start)
        spans.append((code.count("\n", 0, m.start()) + 1, code.count("\n", 0, end) + 1))
    return spans


def match_brace(code, open_at):
    depth = 0
    for j in range(open_at, len(code)):
        if code[j] == "{":
            depth += 1
        elif code[j] == "}":
            depth -= 1
            if depth == 0:
                return j
    return len(code) - 1


def functions(path):
    text = open(path, encoding="utf-8").read()
    if "@generated" in text[:500]:
        return
    code = code_only(text)
    tests = test_module_spans(code)
    for m in FN.finditer(code):
        # The body starts at the first `{` after the signature, unless a `;` ends it first (a trait's
        # declaration). Parentheses are skipped so that a `{` in a default-less signature is not taken.
        j, depth = m.end(), 0
        while j < len(code):
            c = code[j]
            if c in "([<" and not code.startswith("<=", j):
                depth += 1 if c != "<" or code[j - 1] != "-" else 0
            elif c in ")]" or (c == ">" and code[j - 1] != "-" and code[j - 1] != "="):
                depth = max(depth - 1, 0)
            elif c == ";" and depth == 0:
                j = -1
                break
            elif c == "{" and depth == 0:
                break
            j += 1
        if j < 0 or j >= len(code):
            continue
        end = match_brace(code, j)
        first = code.count("\n", 0, m.start()) + 1
        last = code.count("\n", 0, end) + 1
        if any(a <= first <= b for a, b in tests):
            continue
        yield m.group(1), first, last - first + 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--limit", type=int, default=100)
    ap.add_argument("paths", nargs="*")
    args = ap.parse_args()
    roots = args.paths or ["src"] + sorted(glob.glob("crates/*/src"))
    found = []
    for root in roots:
        for dirpath, _, files in os.walk(root):
            for f in files:
                path = os.path.join(dirpath, f)
                rel = os.path.relpath(path)
                if not f.endswith(".rs") or rel.startswith(EXCLUDED):
                    continue
                if any(part in ("tests", "benches", "examples") for part in rel.split(os.sep)):
                    continue
                for name, line, length in functions(path):
                    if length > args.limit:
                        found.append((length, f"{rel}:{line}", name))
    for length, where, name in sorted(found, reverse=True):
        print(f"{length:5} {where} {name}")
    print(f"{len(found)} functions over {args.limit} lines", file=sys.stderr)


if __name__ == "__main__":
    main()
