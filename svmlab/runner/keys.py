"""Stable keys: the digests that name a task and fingerprint a run's configuration."""

from __future__ import annotations

import hashlib
import json


def digest(obj) -> str:
    """A short, stable digest of a JSON-able object (keys sorted)."""
    return hashlib.sha1(json.dumps(obj, sort_keys=True, default=str).encode()).hexdigest()[:16]


def task_digests(shared: dict):
    """``digest(repeat, fold)``: :func:`digest` of ``shared`` with the task's repetition and
    fold, from one serialisation of ``shared`` (a million tasks are keyed in seconds).

    >>> of_task = task_digests({"seed": 0, "dataset": "iris"})
    >>> of_task(3, 1) == digest({"seed": 0, "dataset": "iris", "repeat": 3, "fold": 1})
    True
    """
    marks = {"repeat": "\x00repeat\x00", "fold": "\x00fold\x00"}
    text = json.dumps({**shared, **marks}, sort_keys=True, default=str)
    quoted = {k: json.dumps(v) for k, v in marks.items()}
    first, second = sorted(marks, key=lambda k: text.index(quoted[k]))
    head, rest = text.split(quoted[first])
    middle, tail = rest.split(quoted[second])
    head, middle, tail = head.encode(), middle.encode(), tail.encode()
    sha1 = hashlib.sha1

    def of_task(repeat: int, fold: int) -> str:
        values = {"repeat": repeat, "fold": fold}
        text = b"%b%d%b%d%b" % (head, values[first], middle, values[second], tail)
        return sha1(text).hexdigest()[:16]

    return of_task
