"""inspect_ai logs shaped as inspect_evals writes them, made offline by the real package (mockllm).

The features no log committed in a public repository shows us in a small file (tests/data/inspect/
real/README.md lists the real ones): sample ids in Thai, a log whose every sample errored (status
``error``, no score), a scorer whose value is a dict (as ifeval, mind2web and browse_comp score), and
one scorer reduced over its epochs by several reducers (as mbpp does).

Run ``python tests/inspect_evals_producer.py tests/data/inspect/generated`` to regenerate the
checked-in logs; it prints each role and its file name (the README beside them lists them).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any

from tests.inspect_producer import _contained

THAI: tuple[tuple[str, str, str], ...] = (
    ("ข้อ-๑", "What is 2 + 2?", "4"),
    ("ข้อ-๒", "Name the capital of France.", "Paris"),
    ("ข้อ-๓", "What colour is the sky on a clear day?", "blue"),
    ("ตัวอย่าง/๔", "How many legs has a spider?", "8"),
    ("s5", "What is the chemical symbol of gold?", "Au"),
)
"""(id, question, target): ids in Thai script, two of them a Thai digit apart, one with a ``/``."""

RIGHT = {"ข้อ-๑", "ข้อ-๓", "s5"}
"""The samples the mock model answers correctly; it answers the others wrongly."""

REDUCERS = ("mean", "max", "pass_at_2", "at_least_2")
EPOCHS = 3


def _dataset(samples: tuple[tuple[str, str, str], ...]) -> Any:
    from inspect_ai.dataset import MemoryDataset, Sample

    return MemoryDataset([Sample(id=i, input=q, target=t) for i, q, t in samples], name="thai")


def _model(right: set[str], samples: tuple[tuple[str, str, str], ...]) -> Any:
    """mockllm answering the target for ``right`` samples and a wrong word for the others; an epoch
    counter makes sample ``s5`` right in its first epoch only (so reducers differ)."""
    from inspect_ai.model import ModelOutput, get_model

    by_question = {q: (i, t) for i, q, t in samples}
    seen: dict[str, int] = {}

    def output(messages: list[Any], *_: Any) -> Any:
        sample_id, target = by_question[messages[-1].text]
        seen[sample_id] = seen.get(sample_id, 0) + 1
        correct = sample_id in right and (sample_id != "s5" or seen[sample_id] == 1)
        content = f"The answer is {target}." if correct else "I do not know."
        return ModelOutput.from_content(model="mockllm/model", content=content)

    return get_model("mockllm/model", custom_outputs=output)


def _dict_scorer() -> Any:
    """A scorer whose value is a dict, as ifeval's: ``strict`` (1 or 0) and ``loose`` (true/false)."""
    from inspect_ai.scorer import Score, Target, accuracy, scorer, stderr
    from inspect_ai.solver import TaskState

    @scorer(metrics=[{"strict": [accuracy(), stderr()], "loose": [accuracy()]}])
    def strict_and_loose() -> Any:
        async def score(state: TaskState, target: Target) -> Score:
            text = state.output.completion
            strict = 1 if text == f"The answer is {target.text}." else 0
            return Score(value={"strict": strict, "loose": target.text.lower() in text.lower()})

        return score

    return strict_and_loose()


def _raising() -> Any:
    from inspect_ai.solver import Generate, TaskState, solver

    @solver
    def always_raise() -> Any:
        async def solve(state: TaskState, generate: Generate) -> TaskState:
            raise RuntimeError(f"deliberate failure of sample {state.sample_id}")

        return solve

    return always_raise()


def _eval(task: Any, log_dir: Path, **options: Any) -> Any:
    from inspect_ai import eval as inspect_eval

    (log,) = inspect_eval(task, log_dir=str(log_dir), log_format="json", display="none", **options)
    return log


def make_logs(out_dir: Path) -> dict[str, str]:
    """Run the evals and write their json logs into ``out_dir``; returns role → file name.

    Roles: ``thai`` (Thai ids, scorer ``includes``), ``all-errored`` (both samples raised, status
    ``error``), ``dict-score`` (one scorer, a dict value of two keys), ``reducers`` (three samples,
    three epochs reduced by mean, max, pass_at_2 and at_least_2).
    """
    from inspect_ai import Epochs, Task
    from inspect_ai.scorer import includes

    out_dir.mkdir(parents=True, exist_ok=True)
    manifest: dict[str, str] = {}
    with _contained(), tempfile.TemporaryDirectory() as scratch:
        jobs: dict[str, tuple[Any, dict[str, Any]]] = {
            "thai": (Task(dataset=_dataset(THAI), scorer=includes(), name="thai_quiz"), {}),
            "all-errored": (
                Task(dataset=_dataset(THAI[:2]), solver=_raising(), scorer=includes(), name="thai_quiz"),
                {"fail_on_error": 1.0},
            ),
            "dict-score": (Task(dataset=_dataset(THAI), scorer=_dict_scorer(), name="strictness"), {}),
            "reducers": (
                Task(dataset=_dataset(THAI[::2]), scorer=includes(), name="thai_quiz"),
                {"epochs": Epochs(EPOCHS, list(REDUCERS)), "max_samples": 1},
            ),
        }
        for role, (task, options) in jobs.items():
            log = _eval(task, Path(scratch) / role, model=_model(RIGHT, THAI), **options)
            name = f"{role}.json"
            (out_dir / name).write_bytes(Path(log.location).read_bytes())
            manifest[role] = name
    return manifest


if __name__ == "__main__":
    for role, name in sorted(make_logs(Path(sys.argv[1])).items()):
        print(f"{role}: {name}")
