"""Real inspect_ai logs, made offline by the real package: the inspect importer's test inputs.

``make_logs(out_dir)`` runs ``inspect_ai.eval`` in this process with two mock models over one small
task and writes the logs the importer reads (json and the zipped ``.eval`` format, a finished log
with errored samples, a log that ended in error, one caught while still running and one cancelled
mid-run). It returns a manifest: the role of each log → its file name under ``out_dir``.

Run ``python tests/inspect_producer.py tests/data/inspect`` to regenerate the checked-in logs.

Offline: mockllm counts tokens with a tokenizer it downloads on first use; for the duration of the
call that count is replaced by a length estimate (restored afterwards). Everything else is local.
In process: the call leaves warnings filters, the root logger and mockllm as it found them
(``_contained``); inspect_ai's import itself teaches ``zipfile`` the zstd method, for good.
The answers depend only on the prompt, so the counts in a log do not depend on sample order.
"""

from __future__ import annotations

import gc
import logging
import shutil
import sys
import tempfile
import warnings
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio

SAMPLES: tuple[tuple[str | int, str, str], ...] = (
    ("s1", "What is 2 + 2?", "4"),
    ("s2", "Name the capital of France.", "Paris"),
    ("s3", "What colour is the sky on a clear day?", "blue"),
    (7, "How many legs has a spider?", "8"),
    ("q/7", "What is the chemical symbol of gold?", "Au"),
    ("s6", "Which planet is called the red planet?", "Mars"),
    ("s7", "What is 10 times 3?", "30"),
    ("s8", "Which gas do plants take in?", "CO2"),
)
"""(id, question, target): string ids, one integer id and one id with a ``/``."""

RIGHT = {
    "model": {"s1", "s2", "s3", "7", "q/7"},
    "other": {"s1", "s6", "s7", "s8", "q/7"},
}
"""The samples each mock model answers correctly (by id as text); it answers the others wrongly."""

FAILING = {("s3", 1)}
"""The (sample, epoch) pairs whose solver raises (every model): errored samples. One only: inspect
records each error's traceback twice, 40 kB, and the checked-in json logs are to stay small."""

SLOW = {"s8"}
"""The samples that run out of a (scoped) time limit, every epoch: a ``limit`` of type time."""

CHATTY = {("s6", 2)}
"""The (sample, epoch) pairs that run out of a (scoped) message limit: a ``limit`` of type message."""

EPOCHS = 2


def _task(failing: set[tuple[str, int]]) -> Any:
    """The task: the eight samples, a solver raising for ``failing``, scorer ``includes()``."""
    from inspect_ai import Task
    from inspect_ai.dataset import MemoryDataset, Sample
    from inspect_ai.scorer import includes
    from inspect_ai.solver import Generate, TaskState, solver
    from inspect_ai.util import message_limit, time_limit

    @solver
    def answer_or_raise() -> Any:
        async def solve(state: TaskState, generate: Generate) -> TaskState:
            key = (str(state.sample_id), state.epoch)
            if key in failing:
                raise RuntimeError(f"deliberate failure of sample {state.sample_id}")
            if key[0] in SLOW:
                with time_limit(0.05):
                    await anyio.sleep(5)
            if key in CHATTY:
                with message_limit(1):
                    return await generate(state)
            return await generate(state)

        return solve

    dataset = MemoryDataset([Sample(id=i, input=q, target=t) for i, q, t in SAMPLES], name="quiz")
    return Task(dataset=dataset, solver=answer_or_raise(), scorer=includes(), name="quiz")


def _answers(name: str) -> Callable[..., Any]:
    """Mock ``name``'s outputs: the target for its right samples, a wrong word for the others."""
    from inspect_ai.model import ModelOutput

    by_question = {q: (str(i), t) for i, q, t in SAMPLES}

    def output(messages: list[Any], *_: Any) -> Any:
        sample_id, target = by_question[messages[-1].text]
        content = f"The answer is {target}." if sample_id in RIGHT[name] else "I do not know."
        return ModelOutput.from_content(model=f"mockllm/{name}", content=content)

    return output


def _models() -> list[Any]:
    from inspect_ai.model import get_model

    return [get_model(f"mockllm/{name}", custom_outputs=_answers(name)) for name in sorted(RIGHT)]


@contextmanager
def _contained() -> Iterator[None]:
    """The evals run offline and leave the calling process (a test worker) as they found it.

    * mockllm's token count without its downloaded tokenizer: about four characters a token;
    * the deprecation and resource warnings of inspect_ai and its dependencies ignored: under
      pytest's ``filterwarnings = error`` each would end a sample (or the eval) with an error of its
      own, or fail whichever later test happens to collect the garbage;
    * the root logger's handlers and level restored (inspect_ai installs its own handler there).
    """
    import inspect_ai.model._model as model_module

    original = model_module.count_text_tokens
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    model_module.count_text_tokens = lambda text: max(1, len(text) // 4)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            warnings.simplefilter("ignore", ResourceWarning)
            yield
            gc.collect()  # anyio's unclosed streams, collected while their warning is ignored
    finally:
        model_module.count_text_tokens = original
        root.handlers[:] = handlers
        root.setLevel(level)


def _run(log_dir: Path, fmt: str, *, fail_on_error: bool) -> list[Any]:
    from inspect_ai import eval as inspect_eval

    return list(
        inspect_eval(
            _task(FAILING),
            model=_models(),
            epochs=EPOCHS,
            log_dir=str(log_dir),
            log_format=fmt,  # type: ignore[arg-type]
            fail_on_error=fail_on_error,
            display="none",
            max_samples=1,
        )
    )


def _name(log: Any) -> str:
    return Path(log.location).name


def _pausing(on_pause: Callable[[], Awaitable[None]]) -> Any:
    """The task with a solver that awaits ``on_pause()`` when sample 7's last epoch starts, then
    answers as mockllm/model does (no errors, no limits)."""
    from inspect_ai import Task
    from inspect_ai.scorer import includes
    from inspect_ai.solver import Generate, TaskState, solver

    @solver
    def pause_at_7() -> Any:
        async def solve(state: TaskState, generate: Generate) -> TaskState:
            if str(state.sample_id) == "7" and state.epoch == EPOCHS:
                await on_pause()
            return await generate(state)

        return solve

    return Task(dataset=_task(set()).dataset, solver=pause_at_7(), scorer=includes(), name="quiz")


def _started(log_dir: Path, out_dir: Path) -> str:
    """A copy of the ``.eval`` log inspect is writing, taken while sample 7 of epoch 2 runs."""
    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import get_model

    copied: list[str] = []

    async def snapshot() -> None:
        (running,) = log_dir.glob("*.eval")
        copied.append(f"started-{running.name}")
        shutil.copyfile(running, out_dir / copied[0])

    model = get_model("mockllm/model", custom_outputs=_answers("model"))
    task = _pausing(snapshot)
    (log,) = inspect_eval(
        task, model=model, epochs=EPOCHS, log_dir=str(log_dir), display="none", max_samples=1
    )
    if not copied:
        raise RuntimeError(f"no snapshot of the running log was taken: {log.status} {log.error}")
    return copied[0]


def _cancelled(log_dir: Path, out_dir: Path) -> str:
    """The log of an eval cancelled from outside (as by ctrl+c) while sample 7 of epoch 2 runs."""
    from inspect_ai import eval_async
    from inspect_ai.model import get_model

    async def cancelled() -> None:
        reached = anyio.Event()

        async def wait_forever() -> None:
            reached.set()
            await anyio.sleep_forever()

        model = get_model("mockllm/model", custom_outputs=_answers("model"))
        task = _pausing(wait_forever)
        async with anyio.create_task_group() as group:
            group.start_soon(
                lambda: eval_async(task, model=model, epochs=EPOCHS, log_dir=str(log_dir), max_samples=1)
            )
            await reached.wait()
            group.cancel_scope.cancel()

    anyio.run(cancelled)
    (log,) = log_dir.glob("*.eval")
    shutil.copyfile(log, out_dir / f"cancelled-{log.name}")
    return f"cancelled-{log.name}"


def make_logs(out_dir: Path) -> dict[str, str]:
    """Run the evals and write their logs into ``out_dir``; returns role → file name.

    Roles: ``json:<model>`` and ``eval:<model>`` (finished logs, some samples errored, status
    ``success``), ``error`` (a run stopped by its first errored sample), ``started`` (a copy of an
    ``.eval`` log taken mid-run), ``cancelled`` (a run cancelled from outside mid-run).
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    manifest: dict[str, str] = {}
    with _contained(), tempfile.TemporaryDirectory() as scratch:
        for fmt in ("json", "eval"):
            for log in _run(out_dir, fmt, fail_on_error=False):
                if log.status != "success":
                    raise RuntimeError(f"the {fmt} eval of {log.eval.model} ended {log.status}: {log.error}")
                manifest[f"{fmt}:{log.eval.model}"] = _name(log)
        run_dir = Path(scratch) / "error"
        (failed, *_) = _run(run_dir, "eval", fail_on_error=True)
        manifest["error"] = _name(failed)
        shutil.copyfile(failed.location, out_dir / manifest["error"])
        manifest["started"] = _started(Path(scratch) / "started", out_dir)
        manifest["cancelled"] = _cancelled(Path(scratch) / "cancelled", out_dir)
    return manifest


if __name__ == "__main__":
    for role, name in sorted(make_logs(Path(sys.argv[1])).items()):
        print(f"{role}: {name}")
