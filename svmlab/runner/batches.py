"""Tasks dispatched in batches whose size follows the tasks' duration.

Sending a task to a worker costs about a millisecond (pickling, a round trip, the
result coming back), which is as much as a trivial task itself. Like joblib's automatic
batching, the runner therefore sends short tasks several at a time, sized so that a batch
takes about :data:`TARGET_SECONDS`; unlike it, the estimate is kept per (dataset, solver)
pair, the unit of the plan whose tasks cost alike, so a pair of long tasks is sent one by
one however short the others are, and a long task does not hold short ones up behind it.
A batch's tasks are committed to disk together (:func:`svmlab.runner.task.run_batch`).
"""

from __future__ import annotations

from collections.abc import Iterator

from svmlab.runner.task import TaskSpec

#: Seconds a batch is aimed to take.
TARGET_SECONDS = 0.5
#: Most tasks in one batch.
MAX_BATCH = 1000


def group_of(spec: TaskSpec) -> tuple[str, str, str]:
    """The tasks whose durations are alike: one (run directory, dataset, solver)."""
    return (spec.run_dir, spec.dataset, spec.solver.name)


class BatchSizer:
    """Batch sizes from the durations of the tasks that finished.

    A group whose tasks have not been timed yet is sent one task at a time; afterwards a
    batch holds about ``target`` seconds of its tasks (a running mean of their seconds), at
    most twice the group's previous batch (a gentle ramp, as joblib's), at most
    ``max_size``, and, with several workers, at most a ``2 * n_workers``-th of the tasks
    still to send, so the last batches share the work among the workers.

    Parameters
    ----------
    n_workers : int
        Worker processes the batches are spread over.
    target : float, default=TARGET_SECONDS
        Seconds a batch is aimed to take.
    max_size : int, default=MAX_BATCH
        Most tasks in one batch.
    """

    def __init__(self, n_workers: int, target: float = TARGET_SECONDS, max_size: int = MAX_BATCH):
        self.n_workers = max(int(n_workers), 1)
        self.target = target
        self.max_size = max_size
        self.mean: dict[tuple, float] = {}
        self.last: dict[tuple, int] = {}

    def observe(self, group: tuple, seconds: float) -> None:
        """Record that a task of ``group`` took ``seconds``."""
        if seconds != seconds:  # nan: a crashed task says nothing about the others
            return
        old = self.mean.get(group)
        self.mean[group] = seconds if old is None else 0.8 * old + 0.2 * seconds

    def size(self, group: tuple, left: int) -> int:
        """How many of the ``left`` tasks still to send the next batch of ``group`` takes."""
        mean = self.mean.get(group)
        if mean is None:
            return 1
        ideal = int(self.target / max(mean, 1e-6))
        cap = min(2 * self.last.get(group, 1), self.max_size)
        if self.n_workers > 1:  # the last batches are shared among the workers
            cap = min(cap, left // (2 * self.n_workers))
        return max(1, min(ideal, cap))


def batches(pending: list[TaskSpec], sizer: BatchSizer) -> Iterator[list[TaskSpec]]:
    """``pending`` cut into consecutive batches of one group each, sized by ``sizer`` at the
    moment each batch is asked for (so later batches use the durations seen meanwhile)."""
    i, n = 0, len(pending)
    while i < n:
        group = group_of(pending[i])
        size = sizer.size(group, n - i)
        j = i + 1
        while j < n and j - i < size and group_of(pending[j]) == group:
            j += 1
        sizer.last[group] = j - i
        yield pending[i:j]
        i = j
