"""Unit tests of ``generator.families.definitions.family``: the family's hooks that need no store
(reading the ADR as its contract, choosing the built-in specification by the text's digest, a run's
id from its store path, the run page's section) and ``fold``, which pools a run's rows into the
tally only when they are comparable with the runs folded before."""

from __future__ import annotations

from typing import Any, cast

from generator.families.definitions.family import DefinitionsFamily, DefinitionsState
from generator.families.definitions.pooling import DefinitionsPart, PooledRow, Signature
from generator.families.definitions.spec import BUILTIN_FILE, seed_rules
from tests.conftest import SEEDS

FAMILY = DefinitionsFamily()
SEED_ADR = (SEEDS / "004_3e2f1068dfea7cba.txt").read_bytes()
BENCH: Any = cast(Any, type("Bench", (), {"label": "runs/defs"}))()
SIG: Signature = ("k", "v1", 1.0, False, None, None)


def test_the_contract_is_text_and_only_the_seeds_exact_bytes_get_the_builtin_specification() -> None:
    assert FAMILY.recognises(None)
    assert not FAMILY.recognises({"rubric_id": "x"})
    read = FAMILY.read_contract(SEED_ADR, "adr.txt")
    seed = read.value
    assert read.problems == () and seed is not None and seed.id == "ADR-032"
    assert FAMILY.builtin_spec(seed) == BUILTIN_FILE
    edited = FAMILY.read_contract(SEED_ADR + b"\nOne more line.\n", "adr.txt").value
    assert edited is not None and FAMILY.builtin_spec(edited) is None
    refused = FAMILY.read_contract(b"ADR-031: another\n", "adr.txt")
    assert refused.value is None and [p.where for p in refused.problems] == ["line 1"]


def test_a_runs_id_is_its_folder_name_in_the_agenteval_store() -> None:
    assert FAMILY.run_id(".agenteval/subjects/agents/recsys/runs/2026-10-02_x") == "2026-10-02_x"
    assert FAMILY.run_id(".agenteval/subjects/workflows/w/runs/r1") == "r1"
    for rel in (
        ".agenteval/subjects/tools/t/runs/r1",  # neither agents nor workflows
        ".agenteval/subjects/agents/a/runs/r1/extra",
        "subjects/agents/a/runs/r1",
        ".agenteval/subjects/agents/a/runs/",
    ):
        assert FAMILY.run_id(rel) is None, rel


def tally() -> DefinitionsState:
    """A state with the seed's rules and nothing folded in (fold reads no definition or binding)."""
    return DefinitionsState(seed_rules(), cast(Any, None), cast(Any, None), {}, None, {})


def part(arm: str, parent: str | None, *rows: tuple[str, Signature], value: float = 1.0) -> DefinitionsPart:
    return DefinitionsPart(
        arm=arm,
        parent=parent,
        reps=tuple((check, "c01", "measured", value) for check, _ in rows),
        disagreements=(("r", "summary", "1", "2"),),
        pooled=tuple(
            PooledRow(
                file=f"scenarios/{check}.json", id=check, case="c01", check=check, signature=sig, stimulus="s"
            )
            for check, sig in rows
        ),
    )


def test_fold_pools_comparable_runs_per_check_arm_and_case() -> None:
    state = tally()
    assert FAMILY.fold(BENCH, state, "r1", part("baseline", "inv-1", ("chk", SIG))) == []
    assert FAMILY.fold(BENCH, state, "r2", part("baseline", "inv-1", ("chk", SIG), value=0.0)) == []
    assert FAMILY.fold(BENCH, state, "r3", part("candidate", "inv-2", ("chk", SIG))) == []
    assert state.seen == {"r1", "r2", "r3"}
    assert state.reps[("chk", "baseline", "c01")] == [("measured", 1.0), ("measured", 0.0)]
    assert state.reps[("chk", "candidate", "c01")] == [("measured", 1.0)]
    assert dict(state.parents) == {"baseline": {"inv-1"}, "candidate": {"inv-2"}}
    assert len(state.disagreements) == 3


def test_fold_refuses_a_run_whose_rows_are_incomparable_and_keeps_nothing_of_it() -> None:
    state = tally()
    assert FAMILY.fold(BENCH, state, "r1", part("baseline", None, ("chk", SIG))) == []
    other: Signature = ("k", "v2", 1.0, False, None, None)
    problems = FAMILY.fold(BENCH, state, "r2", part("candidate", None, ("chk", other)))
    assert [(p.file, p.where) for p in problems] == [
        ("runs/defs/…/runs/r2/scenarios/chk.json", "$.comparability")
    ]
    assert state.seen == {"r1"} and ("chk", "candidate", "c01") not in state.reps
    assert "candidate" not in state.parents and len(state.disagreements) == 1


def test_the_run_section_carries_the_floors_note_and_ledger() -> None:
    section = cast(Any, type("Section", (), {"floors_note": "floors derived", "corrections": ()}))()
    shown = FAMILY.run_section(section)
    assert (shown.floors_note, shown.corrections) == ("floors derived", ())
