"""The generator's module graph, from the code: each module's module-level imports of other
generator modules (imports inside functions are a later stage's, made where the step runs).

    .venv/bin/python scripts/module_graph.py            # figures: modules, edges, longest chain
    .venv/bin/python scripts/module_graph.py --mermaid  # the graph for docs/architecture.md
"""

from __future__ import annotations

import argparse
import ast
import sys
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "generator"


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def top_level_imports(path: Path, known: set[str]) -> set[str]:
    """Generator modules a module imports at its top level (``TYPE_CHECKING`` blocks excluded)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in tree.body:
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        found.update(n for n in names if n in known)
    return found


def graph() -> dict[str, set[str]]:
    paths = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}
    known = set(paths)
    return {name: top_level_imports(path, known) - {name} for name, path in paths.items()}


def longest_chain(edges: dict[str, set[str]]) -> list[str]:
    @cache
    def chain(name: str) -> tuple[str, ...]:
        best: tuple[str, ...] = ()
        for target in sorted(edges[name]):
            candidate = chain(target)
            if len(candidate) > len(best):
                best = candidate
        return (name, *best)

    return list(max((chain(name) for name in edges), key=len))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mermaid", action="store_true", help="print a Mermaid graph of the modules")
    args = parser.parse_args()
    edges = graph()
    if args.mermaid:
        print("graph LR")
        for name in sorted(edges):
            for target in sorted(edges[name]):
                print(f"  {name.removeprefix('generator.')} --> {target.removeprefix('generator.')}")
        return 0
    chain = longest_chain(edges)
    print(f"modules: {len(edges)}")
    print(f"import edges (module level): {sum(map(len, edges.values()))}")
    print(f"longest import chain: {len(chain)} modules")
    print("  " + " → ".join(n.removeprefix("generator.") for n in chain))
    return 0


if __name__ == "__main__":
    sys.exit(main())
