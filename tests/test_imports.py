"""The house's import graph, read from the source (AST): no cycle anywhere in ``generator/``, every
stage imports only the stages before it and the shared leaves, generic code reaches a family only
through its seam, and import chains stay short (docs/architecture.md, "The stages").

Every import counts: at a module's top, inside a function (a later stage's step, made where it runs)
and under ``TYPE_CHECKING``. The checks that a stage *loads* no rendering or CLI library live in
``tests/test_quality.py`` (a fresh interpreter's ``sys.modules``); this one reads the graph itself."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

from tests.conftest import ROOT

PACKAGE = ROOT / "generator"

STAGES = ("inputs", "importers", "figures", "families", "report", "score", "render", "publish")
"""The stage packages in the order data flows: each may import the ones before it, never after."""

LEAVES = frozenset({"generator", "generator.errors", "generator.canon", "generator.progress"})
"""Shared leaves any module may import (the version, the error hierarchy, canonical JSON, the
progress line); they import no other module of the generator."""

COMPOSERS = frozenset(
    {"generator.cli", "generator.build", "generator.clidoc", "generator.schemas", "generator.__main__"}
)
"""The top of the house: they compose the stages (the command line, the pipeline, the docs of both,
the schemas of every format), so they may import any."""

SEAM = frozenset({"base", "registry", "specs", "rules", "input_base", "rows", "rubric"})
"""What generic code may import of ``generator.families``: the typed seam, the registry, the shared
input types and the row-writer base; never one family's own modules."""

FAMILY_COMMANDS = {"generator.cli": {"generator.families.definitions.compare"}}
"""A family's own command, named by the command line where it runs (``benchsite compare``)."""

LONGEST_CHAIN = 10


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def imports(path: Path, top_level_only: bool = False, name: str | None = None) -> set[str]:
    """The generator modules ``path`` imports (``from a.b import c`` names ``a.b.c`` when that is a
    module, else ``a.b``); a relative import is resolved against the package of ``name`` (default:
    the module the path is)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nodes = tree.body if top_level_only else ast.walk(tree)
    name = name or module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level else ""
            module = ".".join(part for part in (base, node.module or "") if part)
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return {target for target in found if target in MODULES} - {name}


GRAPH = {name: imports(path) for name, path in MODULES.items()}


def stage_of(name: str) -> str | None:
    parts = name.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in STAGES else None


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected set of two or more modules (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_stages_are_the_packages_of_the_tree() -> None:
    packages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    assert packages == {*STAGES}, "a stage package was added or removed: update STAGES and the docs"
    top = {p.stem for p in PACKAGE.glob("*.py")}
    assert top == {"__init__", "__main__", "cli", "build", "clidoc", "schemas", "errors", "canon", "progress"}


def test_no_module_imports_itself_round_a_cycle() -> None:
    assert cycles(GRAPH) == []


def test_the_cycle_finder_finds_one() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_a_stage_imports_only_the_stages_before_it_and_the_leaves() -> None:
    backward = []
    for name, targets in GRAPH.items():
        if name in COMPOSERS or name in LEAVES:
            continue
        stage = stage_of(name)
        assert stage is not None, f"{name} is neither in a stage package, a leaf nor a composer"
        for target in sorted(targets - LEAVES):
            other = stage_of(target)
            if other is None or STAGES.index(other) > STAGES.index(stage):
                backward.append(f"{name} ({stage}) imports {target} ({other or 'the top'})")
    assert backward == []


def test_the_leaves_import_no_other_module() -> None:
    assert {leaf: GRAPH[leaf] - {"generator"} for leaf in LEAVES} == {leaf: set() for leaf in LEAVES}


def family_of(name: str) -> str | None:
    """The family whose package holds ``name`` (its own package included); None outside a family."""
    parts = name.split(".")
    if len(parts) >= 3 and parts[1] == "families" and parts[2] not in SEAM:
        return parts[2]
    return None


def test_generic_code_reaches_a_family_only_through_its_seam() -> None:
    reaching = []
    for name, targets in GRAPH.items():
        own = family_of(name)
        for target in sorted(targets):
            other = family_of(target)
            if other is not None and other != own and target not in FAMILY_COMMANDS.get(name, set()):
                reaching.append(f"{name} imports {target}")
    assert reaching == []


def test_the_graph_sees_relative_and_package_imports(tmp_path: Path) -> None:
    """What the checks above would miss if the graph did not hold it: a relative import (here a
    backward one), an import of a family's package itself."""
    probe = tmp_path / "probe.py"
    probe.write_text(
        "from ..render import pages\nfrom generator.families import points\nfrom . import workers\n"
    )
    seen = imports(probe, name="generator.score.probe")
    assert {"generator.render.pages", "generator.families.points", "generator.score.workers"} <= seen
    assert family_of("generator.families.points") == "points"
    assert family_of("generator.families.base") is None


DYNAMIC = {"generator.families.registry", "generator.render.pages"}
"""The two modules that import by name (``importlib.import_module``): the registry its families, the
renderer each family's row writer. What they import is named in the seam: a ``module:attr`` string."""


def test_only_the_seam_imports_by_name() -> None:
    by_name = {name for name, path in MODULES.items() if "import_module(" in path.read_text(encoding="utf-8")}
    assert by_name == DYNAMIC


@cache
def _chain(name: str) -> tuple[str, ...]:
    best: tuple[str, ...] = ()
    for target in sorted(TOP_LEVEL[name]):
        candidate = _chain(target)
        if len(candidate) > len(best):
            best = candidate
    return (name, *best)


TOP_LEVEL = {name: imports(path, top_level_only=True) for name, path in MODULES.items()}


def test_import_chains_are_short() -> None:
    """Module-level imports only: what importing one module loads before it runs (a function's import
    is made when its step runs)."""
    longest = max((_chain(name) for name in TOP_LEVEL), key=len)
    assert len(longest) <= LONGEST_CHAIN, " → ".join(longest)


def room(name: str) -> str:
    """The room of the house a module is in: its stage package, or the top-level module itself."""
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else "generator"


def test_the_rooms_stack_at_most_ten_deep() -> None:
    """Every import (in a function too) between the rooms of ``generator/`` (the stage packages and
    the top-level modules): 17 rooms (the importers, which write inputs, are the 17th), the longest
    chain ``__main__ → cli → build → publish → render
    → score → report → families → inputs → errors`` (it was 48 rooms, 16 deep)."""
    rooms: dict[str, set[str]] = {}
    for name, targets in GRAPH.items():
        rooms.setdefault(room(name), set()).update(room(t) for t in targets if room(t) != room(name))

    @cache
    def deepest(name: str) -> tuple[str, ...]:
        below = [deepest(target) for target in sorted(rooms[name])]
        return (name, *max(below, key=len, default=()))

    longest = max((deepest(name) for name in rooms), key=len)
    assert len(rooms) <= 17 and len(longest) <= LONGEST_CHAIN, " → ".join(longest)


@pytest.mark.parametrize("stage", STAGES)
def test_each_stage_says_what_comes_in_what_goes_out_and_what_it_may_import(stage: str) -> None:
    doc = ast.get_docstring(ast.parse((PACKAGE / stage / "__init__.py").read_text(encoding="utf-8")))
    assert doc is not None
    for heading in ("In:", "Out:", "May import:"):
        assert heading in doc, f"generator/{stage}/__init__.py: no {heading!r} line"
