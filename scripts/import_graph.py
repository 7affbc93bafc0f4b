#!/usr/bin/env python3
"""Measure memory-cli's import structure from its own code: cycles and imports that run up the layers.

Every ``import`` and ``from ... import`` in ``memory_cli/`` is read with ``ast``, those inside
functions included (a cycle hidden in a function is still a cycle: the two modules cannot be
understood or moved apart). Module A imports B when it names B or a name from B; a package's
``__init__`` is its own module.

Reported:
- cycles: the groups of modules that import each other, directly or through others (strongly
  connected components of more than one module), each printed with one cycle through it;
- upward imports: a module importing one of a higher layer (``LAYERS``: the store and shared
  helpers at the bottom, the domain above them, the edges on top), each with its line.

    .venv/bin/python scripts/import_graph.py [--json] [--fail-over CYCLES,UPWARD]

``--fail-over 0,0`` exits 1 when there are more cycles or upward imports than given, for a test.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PKG = ROOT / "memory_cli"

# Layers, bottom first: a module may import its own layer and those below it. First match wins
# (a module name, or a package prefix ending in '.').
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    (
        "store and shared helpers",
        (
            "memory_cli",
            "memory_cli.errors",
            "memory_cli.ids",
            "memory_cli.util",
            "memory_cli.fields",
            "memory_cli.fastjson",
            "memory_cli.paths",
            "memory_cli.seals",
            "memory_cli.seals.",
            "memory_cli.authority",
            "memory_cli.settings",
            "memory_cli.files.regex_cache",
            "memory_cli.files.safe_write",
            "memory_cli.privacy.secret_formats",
            "memory_cli.privacy.redact",
            "memory_cli.store.db",
            "memory_cli.store.migrations",
            "memory_cli.store.spool",
            "memory_cli.audit",
            "memory_cli.scope",
            "memory_cli.store.kvstate",
            "memory_cli.store.locks",
            "memory_cli.store.",
            "memory_cli.files.",
            "memory_cli.privacy.",
            # Standard-library helpers the regex cache and the rule set use (files, seals, the
            # interpreter's paths); they import nothing above this layer.
            "memory_cli.files.cache_seal",
            "memory_cli.confirmation",
            "memory_cli.files.private_file",
            "memory_cli.interpreter_paths",
        ),
    ),
    (
        # Modules inside an edge's package that hold no entry point: the shapes a command tool's
        # input comes in, read as the one shape rules know (rules.hook and the adapter read it).
        "domain",
        ("memory_cli.hooks.shapes",),
    ),
    (
        "edges",
        (
            "memory_cli.__main__",
            "memory_cli.fasthook",
            "memory_cli.cli.",
            "memory_cli.hooks.",
            "memory_cli.web.",
            "memory_cli.mcp.server",
            "memory_cli.mcp.lean",
            "memory_cli.mcp.hook_tool",
            "memory_cli.daemon.server",
            "memory_cli.doctor",
            "memory_cli.demo",
            # Not edges: install and install_agents are the library of each agent's settings
            # files and memory-cli's entries in them (the `install` command is cli/; native
            # rules, pins and MCP registration read the same files); daemon.control starts,
            # stops and asks the daemon for the CLI and the embedding hook alike.
        ),
    ),
]
DOMAIN = "domain"
ORDER = {"store and shared helpers": 0, DOMAIN: 1, "edges": 2}
# Modules the migrations reach into on purpose: each table's DDL lives in the module that owns
# the table, and the numbered list calls it (a registry, not a dependency of the store on them).
REGISTRIES = {"memory_cli.store.migrations"}


def layer_of(mod: str) -> str:
    for name, members in LAYERS:
        for m in members:
            if (m.endswith(".") and (mod + ".").startswith(m)) or mod == m:
                return name
    return DOMAIN


def module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PKG.rglob("*.py"))}


def _resolve(mod: str, is_pkg: bool, level: int, target: str | None) -> str:
    if level == 0:
        return target or ""
    base = mod.split(".") if is_pkg else mod.split(".")[:-1]
    base = base[: len(base) - (level - 1)] if level > 1 else base
    return ".".join(base + ([target] if target else []))


def edges(mods: dict[str, Path]) -> dict[str, dict[str, int]]:
    """module -> {imported module: first line}."""
    out: dict[str, dict[str, int]] = {}
    for mod, path in mods.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        is_pkg = path.name == "__init__.py"
        found: dict[str, int] = {}
        for node in ast.walk(tree):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = _resolve(mod, is_pkg, node.level, node.module)
                for a in node.names:
                    sub = f"{base}.{a.name}" if base else a.name
                    targets.append(sub if sub in mods else base)
            else:
                continue
            if _type_checking_only(tree, node):
                continue
            for t in targets:
                while t and t not in mods and "." in t:
                    t = t.rsplit(".", 1)[0]
                if t in mods and t != mod and t.startswith("memory_cli"):
                    found.setdefault(t, node.lineno)
        out[mod] = found
    return out


def _type_checking_only(tree: ast.AST, node: ast.AST) -> bool:
    """An import under ``if TYPE_CHECKING:`` costs nothing at run time and is not a dependency."""
    for parent in ast.walk(tree):
        if (
            isinstance(parent, ast.If)
            and getattr(parent.test, "id", None) == "TYPE_CHECKING"
            and any(child is node for b in parent.body for child in ast.walk(b))
        ):
            return True
    return False


def cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = 0
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(graph[root]))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(graph.get(nxt, {}))))
                elif nxt in on:
                    low[v] = min(low[v], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return sorted(out)


def one_cycle(graph: dict[str, dict[str, int]], comp: list[str]) -> list[str]:
    """A shortest cycle through the component's first module (breadth first)."""
    members = set(comp)
    start = comp[0]
    prev: dict[str, str] = {}
    frontier = [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w in graph[v]:
                if w not in members:
                    continue
                if w == start:
                    path = [v]
                    while path[-1] != start:
                        path.append(prev[path[-1]])
                    return list(reversed(path)) + [start]
                if w not in prev:
                    prev[w] = v
                    nxt.append(w)
        frontier = nxt
    return comp


def upward(graph: dict[str, dict[str, int]]) -> list[tuple[str, str, int]]:
    out = []
    for mod, targets in graph.items():
        if mod in REGISTRIES:
            continue
        for t, line in targets.items():
            if ORDER[layer_of(t)] > ORDER[layer_of(mod)]:
                out.append((mod, t, line))
    return sorted(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--fail-over", help="CYCLES,UPWARD: exit 1 when either is exceeded")
    args = ap.parse_args()
    mods = modules()
    graph = edges(mods)
    comps = cycles(graph)
    ups = upward(graph)
    if args.json:
        print(
            json.dumps(
                {
                    "modules": len(mods),
                    "cycles": [{"modules": c, "cycle": one_cycle(graph, c)} for c in comps],
                    "upward": [{"module": m, "imports": t, "line": n} for m, t, n in ups],
                },
                indent=2,
            )
        )
    else:
        print(f"{len(mods)} modules; {len(comps)} import cycles; {len(ups)} upward imports")
        for c in comps:
            print(f"  cycle ({len(c)} modules): " + " -> ".join(one_cycle(graph, c)))
        for m, t, n in ups:
            print(f"  upward: {m} ({layer_of(m)}) imports {t} ({layer_of(t)}) at line {n}")
    if args.fail_over:
        max_c, max_u = (int(x) for x in args.fail_over.split(","))
        return 1 if len(comps) > max_c or len(ups) > max_u else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
