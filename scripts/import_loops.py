#!/usr/bin/env python3
"""Reports every import loop between the files of a crate; exits 1 when there is one.

For each crate's sources (`src/` and `crates/*/src/`) it builds the graph of which file uses which,
then reports each group of files that use one another in a circle (a strongly connected component),
with one line of evidence for each of its edges. Exit code 0 when no crate has a loop.

What counts as file A using file B:

* a `use` in A whose path leads into B: `use crate::b::X`, `use super::X` (X defined in, or re-exported
  by, the parent), `use self::child::X`, `use child::X` (a module A declares);
* a path in A's code (outside `use`) that leads into B: `crate::b::f()`, `super::X`, `self::c::Y`, or
  `child::f()` for a module `child` that A's module declares.

A path is followed to the file that defines the item, not to a file that only re-exports it: a
`pub use b::X;` in `lib.rs` makes `crate::X` lead to `b.rs`, and is no edge of `lib.rs` by itself
(only when `lib.rs`'s own code also names X). Paths that end in a module (`use crate::text;`) lead
to that module's file.

What does not count: a `mod child;` declaration. A parent declaring its child is not a use of it,
while a child using its parent's items (`super::X`, `crate::X` defined in `lib.rs`) is. Paths into
other crates are ignored. Test code (`#[cfg(test)]` modules) counts like any other code: it is
compiled code of the crate.

    scripts/import_loops.py [--edges] [crate_src_dirs...]   (default: src crates/*/src)

`--edges` prints every edge of the graphs as well.
"""

import argparse
import glob
import os
import re
import sys

# Comments, strings and character literals are blanked, and braces matched, as the long-function
# check does.
from long_functions import code_only, match_brace

ITEM = r"\b(?:fn|struct|enum|trait|type|const|static|mod|union)\s+{}\b|macro_rules!\s*{}\b"


def parse_use_tree(s):
    """`a::{b, c::{self, D as E}, f::*}` -> [(segments, alias, glob)]."""
    s = re.sub(r"\s+", "", s)
    out = []

    def tree(s, prefix):
        # Split a top-level path from an optional brace group.
        brace = s.find("{")
        if brace < 0:
            segs = [p for p in s.split("::") if p]
            if segs and segs[-1] == "*":
                out.append((prefix + segs[:-1], None, True))
            else:
                out.append((prefix + segs, None, False))
            return
        head = s[:brace]
        body = s[brace + 1:s.rfind("}")]
        segs = [p for p in head.split("::") if p]
        for part in split_top(body):
            if part == "self":
                out.append((prefix + segs, None, False))
            elif part:
                tree(part, prefix + segs)

    tree(s, [])
    return out


def split_top(s):
    parts, depth, cur = [], 0, ""
    for c in s:
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        if c == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += c
    parts.append(cur)
    return parts


def parse_use(s):
    """Like parse_use_tree, with `X as Y` aliases kept (as `X@Y` while parsing)."""
    s = re.sub(r"\s+as\s+", "@", s)
    found = []
    for segs, _, globbed in parse_use_tree(s):
        alias = None
        if segs and "@" in segs[-1]:
            last, alias = segs[-1].split("@", 1)
            segs = segs[:-1] + [last]
        found.append((segs, alias, globbed))
    return found


class Crate:
    def __init__(self, src):
        self.src = src
        self.files = {}  # file -> code
        self.modules = {}  # module path (tuple) -> file
        self.spans = {}  # file -> [(start, end, module path)] of its modules (the file's own first)
        self.uses = {}  # module path -> [(name, absolute segments or None, glob, public, file, line)]
        roots = [r for r in ("lib.rs", "main.rs") if os.path.exists(os.path.join(src, r))]
        for root in roots:
            self.load(os.path.join(src, root), ())

    def load(self, path, modpath):
        if path in self.files or not os.path.exists(path):
            return
        code = code_only(open(path, encoding="utf-8").read())
        self.files[path] = code
        self.modules[modpath] = path
        self.spans[path] = [(0, len(code), modpath)]
        self.scan_modules(path, code, 0, len(code), modpath)

    def child_dir(self, path, modpath):
        """Where the files of the children of the module `modpath` whose own file is `path` live."""
        base = os.path.basename(path)
        d = os.path.dirname(path)
        if base in ("lib.rs", "main.rs", "mod.rs"):
            return d
        return os.path.join(d, base[:-3])

    def scan_modules(self, path, code, start, end, modpath, inline_dir=None):
        pattern = re.compile(r"\bmod\s+(\w+)\s*([;{])")
        j = start
        while True:
            m = pattern.search(code, j, end)
            if not m:
                break
            name, kind = m.group(1), m.group(2)
            child = modpath + (name,)
            if kind == "{":
                close = match_brace(code, m.end() - 1)
                self.modules.setdefault(child, path)
                self.spans[path].append((m.end() - 1, close, child))
                sub_dir = os.path.join(inline_dir or self.child_dir(path, modpath), name)
                self.scan_modules(path, code, m.end(), close, child, sub_dir)
                j = close + 1
                continue
            j = m.end()
            before = open(path, encoding="utf-8").read()[:m.start()]
            attr = re.search(r'#\[path\s*=\s*"([^"]*)"\]\s*(?:#\[[^\]]*\]\s*)*(?:pub(?:\([^)]*\))?\s+)?$', before)
            if attr:
                file = os.path.normpath(os.path.join(os.path.dirname(path), attr.group(1)))
            else:
                d = inline_dir or self.child_dir(path, modpath)
                file = os.path.join(d, name + ".rs")
                if not os.path.exists(file):
                    file = os.path.join(d, name, "mod.rs")
            self.load(file, child)

    def module_at(self, path, pos):
        best = None
        for s, e, mp in self.spans[path]:
            if s <= pos <= e and (best is None or len(mp) > len(best)):
                best = mp
        return best

    def is_module(self, mp):
        return mp in self.modules

    def absolute(self, segs, mp):
        """The path `segs` written in module `mp` from the crate root, or None (another crate)."""
        if not segs:
            return None
        first = segs[0]
        if first == "crate":
            base, rest = (), segs[1:]
        elif first in ("self", "super"):
            base, rest = mp, segs
            while rest and rest[0] in ("self", "super"):
                if rest[0] == "super":
                    base = base[:-1]
                rest = rest[1:]
        elif self.is_module(mp + (first,)):
            base, rest = mp, segs
        else:
            return None
        return base + tuple(rest)

    def collect_uses(self):
        for path, code in self.files.items():
            for m in re.finditer(r"((?:pub(?:\s*\([^)]*\))?\s+)?)\buse\s+([^;]*);", code):
                if code[m.start() - 1:m.start()] in ("$",):
                    continue
                mp = self.module_at(path, m.start())
                line = code.count("\n", 0, m.start()) + 1
                public = bool(m.group(1).strip())
                for segs, alias, globbed in parse_use(m.group(2)):
                    absolute = self.absolute(segs, mp)
                    if globbed:
                        name = None
                    else:
                        name = alias or (segs[-1] if segs and segs[-1] not in ("self", "super", "crate") else (absolute[-1] if absolute else None))
                    self.uses.setdefault(mp, []).append((name, absolute, globbed, public, path, line, m.span()))

    def defines(self, mp, name):
        path = self.modules.get(mp)
        if path is None:
            return False
        pattern = ITEM.format(re.escape(name), re.escape(name))
        return re.search(pattern, self.files[path]) is not None

    def resolve(self, absolute, depth=0):
        """The file that defines what the absolute path leads to (None for another crate's)."""
        if absolute is None:
            return None
        mp, i = (), 0
        while i < len(absolute) and self.is_module(mp + (absolute[i],)):
            mp, i = mp + (absolute[i],), i + 1
        if i == len(absolute) or depth > 12:
            return self.modules[mp]
        name = absolute[i]
        for n, target, globbed, _, _, _, _ in self.uses.get(mp, []):
            if not globbed and n == name and target != absolute:
                found = self.resolve(target, depth + 1)
                return found if found is not None else self.modules[mp]
        if not self.defines(mp, name):
            for n, target, globbed, _, _, _, _ in self.uses.get(mp, []):
                if globbed and target is not None and self.is_module(target) and self.defines(target, name):
                    return self.resolve(target + (name,), depth + 1)
        return self.modules[mp]

    def edges(self, strict=False):
        """{(from file, to file): first evidence `file:line: source line`}."""
        self.collect_uses()
        found = {}
        lines = {path: open(path, encoding="utf-8").read().split("\n") for path in self.files}

        def add(a, b, line, text):
            if b is None or a == b or (a, b) in found:
                return
            ma, mb = self.spans[a][0][2], self.spans[b][0][2]
            if not strict and mb[:len(ma)] == ma:
                return  # a module using its own submodules: part of declaring them
            found[(a, b)] = f"{a}:{line}: {lines[a][line - 1].strip()}"

        use_spans = {}
        for mp, uses in self.uses.items():
            for name, absolute, globbed, public, path, line, span in uses:
                use_spans.setdefault(path, set()).add(span)
                if public and (globbed or not self.used_outside_uses(path, name)):
                    continue  # a re-export passes through
                target = self.resolve(absolute) if not globbed else (self.modules.get(absolute) if absolute else None)
                add(path, target, line, "use " + "::".join(absolute or ()) + ("::*" if globbed else ""))
        for path, code in self.files.items():
            blank = list(code)
            for s, e in use_spans.get(path, ()):
                for k in range(s, e):
                    if blank[k] != "\n":
                        blank[k] = " "
            blank = "".join(blank)
            for m in re.finditer(r"(?<![\w:$])([a-z_]\w*)((?:\s*::\s*\w+)+)", blank):
                first = m.group(1)
                mp = self.module_at(path, m.start())
                segs = [first] + [s.strip() for s in m.group(2).split("::") if s.strip()]
                absolute = self.absolute(segs, mp)
                if absolute is None:
                    continue
                line = code.count("\n", 0, m.start()) + 1
                add(path, self.resolve(absolute), line, "::".join(segs))
        return found

    def used_outside_uses(self, path, name):
        if not name:
            return False
        code = re.sub(r"\buse\s+[^;]*;", " ", self.files[path])
        return re.search(r"(?<![\w])" + re.escape(name) + r"(?!\w)", code) is not None


def components(nodes, edges):
    """Strongly connected components of more than one node (Tarjan's algorithm, iterative)."""
    succ = {n: sorted(b for (a, b) in edges if a == n) for n in nodes}
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]
    for root in sorted(nodes):
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            node, k = work.pop()
            if k == 0:
                index[node] = low[node] = counter[0]
                counter[0] += 1
                stack.append(node)
                on.add(node)
            recurse = False
            for j in range(k, len(succ[node])):
                nxt = succ[node][j]
                if nxt not in index:
                    work.append((node, j + 1))
                    work.append((nxt, 0))
                    recurse = True
                    break
                if nxt in on:
                    low[node] = min(low[node], index[nxt])
            if recurse:
                continue
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == node:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--edges", action="store_true", help="print every edge too")
    ap.add_argument("--strict", action="store_true", help="count a module's uses of its own submodules too")
    ap.add_argument("srcs", nargs="*")
    args = ap.parse_args()
    srcs = args.srcs or ["src"] + sorted(glob.glob("crates/*/src"))
    loops = 0
    for src in srcs:
        crate = Crate(os.path.relpath(src))
        edges = crate.edges(args.strict)
        if args.edges:
            for (a, b), why in sorted(edges.items()):
                print(f"{a} -> {b}    ({why})")
        for comp in components(set(crate.files), edges):
            loops += 1
            print(f"loop in {src}: {' '.join(comp)}")
            for (a, b), why in sorted(edges.items()):
                if a in comp and b in comp:
                    print(f"  {a} -> {b}    {why}")
    print(f"{loops} import loops", file=sys.stderr)
    sys.exit(1 if loops else 0)


if __name__ == "__main__":
    main()
