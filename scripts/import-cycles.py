#!/usr/bin/env python3
"""Lists import circles between sibling modules of a Rust crate.

Usage: scripts/import-cycles.py SRC_DIR [SRC_DIR ...]   (e.g. src worker/src)

Two modules with the same parent are in a circle when each reaches the other through
`crate::`/`super::` paths (in `use` lines or in code) written in the files of their subtrees,
directly or through other siblings. A module using its parent (or a parent re-exporting a
child) is not a circle, and test code is left out. Paths are resolved to the deepest module file they name, so an item
reached through a parent's `pub use` counts as the parent's. Exits 1 when a circle is found.
"""
import os
import re
import sys

PATH = re.compile(r"\b(crate|super|self)((?:::[A-Za-z_][A-Za-z0-9_]*)+)")
GROUP = re.compile(r"\b(crate|super|self)((?:::[A-Za-z_][A-Za-z0-9_]*)*)::\{")


def module_files(root):
    """Module path (tuple) → file, for every .rs file under root."""
    mods = {}
    for dirpath, _, files in os.walk(root):
        for name in files:
            # Test-only files (`tests.rs`, `*_tests.rs`) are left out, as inline tests are.
            if not name.endswith(".rs") or name == "tests.rs" or name.endswith("_tests.rs"):
                continue
            rel = os.path.relpath(os.path.join(dirpath, name), root)
            parts = rel[:-3].split(os.sep)
            if parts[-1] in ("mod", "lib", "main"):
                parts = parts[:-1]
            mods[tuple(parts)] = os.path.join(dirpath, name)
    return mods


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    # Test code is not part of the layering: an inline `#[cfg(test)] mod` (at the end of
    # its file, by this crate's convention) is left out.
    test = re.search(r"^#\[cfg\(test\)\]\s*\n\s*mod ", text, flags=re.M)
    if test:
        text = text[: test.start()]
    return "\n".join(line.split("//")[0] for line in text.split("\n"))


def group_paths(text, start):
    """The paths inside a `prefix::{a, b::c, d::{e}}` group opening at `start`."""
    depth, i, out, current, stack = 0, start, [], "", [""]
    while i < len(text):
        c = text[i]
        if c == "{":
            depth += 1
            stack.append(stack[-1] + current.strip())
            current = ""
        elif c == "}":
            if current.strip():
                out.append(stack[-1] + current.strip())
            current = ""
            stack.pop()
            depth -= 1
            if depth == 0:
                return out
        elif c == ",":
            if current.strip():
                out.append(stack[-1] + current.strip())
            current = ""
        else:
            current += c
        i += 1
    return out


def resolve(module, kind, rest):
    base = list(module)
    if kind == "crate":
        base = []
    elif kind == "super":
        base = base[:-1]
    parts = [p for p in rest.split("::") if p]
    while parts and parts[0] == "super":
        base = base[:-1]
        parts = parts[1:]
    return tuple(base + parts)


def deepest(mods, path):
    for n in range(len(path), -1, -1):
        if path[:n] in mods:
            return path[:n]
    return ()


def references(mods, module, text):
    text = strip_comments(text)
    found = set()
    for m in PATH.finditer(text):
        found.add(deepest(mods, resolve(module, m.group(1), m.group(2))))
    for m in GROUP.finditer(text):
        prefix = resolve(module, m.group(1), m.group(2))
        for inner in group_paths(text, m.end() - 1):
            inner = inner.replace(" ", "").replace("\n", "")
            inner = re.sub(r"\bas\b.*", "", inner)
            parts = tuple(p for p in inner.split("::") if p and p != "self" and p != "*")
            found.add(deepest(mods, prefix + parts))
    return found


def circles(root):
    mods = module_files(root)
    edges = {}
    for module, path in mods.items():
        with open(path, encoding="utf-8") as f:
            for target in references(mods, module, f.read()):
                # The siblings the reference runs between: below their common parent.
                n = 0
                while n < min(len(module), len(target)) and module[n] == target[n]:
                    n += 1
                if n < len(module) and n < len(target):
                    a, b = module[: n + 1], target[: n + 1]
                    edges.setdefault(a, set()).add(b)
    found = []
    for scc in strongly_connected(edges):
        if len(scc) > 1:
            mutual = sorted(
                f"{'::'.join(a)} ↔ {'::'.join(b)}"
                for a in scc
                for b in scc
                if a < b and b in edges.get(a, ()) and a in edges.get(b, ())
            )
            found.append((sorted("::".join(m) for m in scc), mutual))
    return sorted(found)


def strongly_connected(edges):
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]
    nodes = set(edges) | {b for bs in edges.values() for b in bs}

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            scc = []
            while True:
                w = stack.pop()
                on.discard(w)
                scc.append(w)
                if w == v:
                    break
            out.append(scc)

    sys.setrecursionlimit(10_000)
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def main(roots):
    status = 0
    for root in roots:
        for scc, mutual in circles(root):
            print(f"{root}: circle of {len(scc)}: " + ", ".join(scc))
            for pair in mutual:
                print(f"    each imports the other: {pair}")
            status = 1
    if status == 0:
        print("no import circles between sibling modules in " + ", ".join(roots))
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or ["src"]))
