"""What protocol a run used, in words a heading can set beside the document's.

A published table was made under the document's protocol (its folds, repetitions, data); a
quick profile uses fewer. :func:`run_protocol` reads what one run used from its stored
configuration (``protocol.kind``, ``n_splits``, ``n_repeats``, ``test_size``), or from its
rows when no configuration is stored, and :func:`protocol_heading` writes both, so that a
heading never claims the document's protocol for a run that did not use it:

>>> from svmlab.reproduce.document import Protocol
>>> protocol_heading(Protocol("20-fold CV", folds=20), RunProtocol("5-fold CV", 5, 1, True))
'paper: 20-fold CV; this run: 5-fold CV (quick profile)'
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from svmlab.reproduce.document import Protocol
from svmlab.results import run_configs

#: Protocol kinds that are a k-fold cross-validation (``protocol.kind`` of conf/protocol/).
_KFOLD_KINDS = ("kfold", "stratified_kfold", "auto_kfold", "bag_stratified_kfold")


@dataclass(frozen=True)
class RunProtocol:
    """The protocol one run used.

    Parameters
    ----------
    text : str
        In words ("5-fold CV", "3 x 10-fold CV", "one 80/20 split").
    folds : int or None
        Folds of its cross-validation (None: not a cross-validation).
    repeats : int or None
        Repetitions of the whole protocol.
    quick : bool
        The run is a quick profile (its experiment's name ends in ``_quick``).
    experiment : str
        The experiment's name ("" when unknown).
    description : str
        The experiment's own description (what a quick profile cut).
    """

    text: str
    folds: int | None = None
    repeats: int | None = None
    quick: bool = False
    experiment: str = ""
    description: str = ""


def _as_int(value) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _describe(kind: str, folds: int | None, repeats: int | None, test_size) -> str:
    """The protocol in words, from its kind and sizes."""
    times = f"{repeats} x " if repeats and repeats > 1 else ""
    if kind in _KFOLD_KINDS and folds:
        return f"{times}{folds}-fold CV"
    if kind == "holdout":
        try:
            share = float(test_size)
        except (TypeError, ValueError):
            split = "train/test"
        else:
            split = f"{round(100 * (1 - share))}/{round(100 * share)}"
        return (
            f"{repeats} random {split} splits" if repeats and repeats > 1 else f"one {split} split"
        )
    if kind == "predefined":
        return "the data's own train/test split" + (
            f", {repeats} repetitions" if repeats and repeats > 1 else ""
        )
    return kind or "unknown protocol"


def _tuning(tuning) -> str:
    """How the run tuned each training part, for the protocol's words ("" when it did not)."""
    tuning = tuning or {}
    mode, inner = tuning.get("mode"), _as_int(tuning.get("inner_folds"))
    if mode == "nested" and inner:
        return f", tuned by an inner {inner}-fold CV"
    if mode == "outer_best":
        return ", parameters chosen on the outer folds"
    return ""


def run_protocol(rows: pd.DataFrame) -> RunProtocol | None:
    """The protocol of the run the rows come from (the first run of several), from its stored
    configuration, else from the rows' folds and repeats; None when neither tells."""
    config = next((c for c in run_configs(rows).values() if c.get("protocol")), None)
    if config is not None:
        p = config["protocol"]
        folds, repeats = _as_int(p.get("n_splits")), _as_int(p.get("n_repeats"))
        kind = str(p.get("kind") or "")
        name = str(config.get("name") or "")
        return RunProtocol(
            _describe(kind, folds, repeats, p.get("test_size")) + _tuning(config.get("tuning")),
            folds if kind in _KFOLD_KINDS else None,
            repeats,
            name.endswith("_quick"),
            name,
            str(config.get("description") or ""),
        )
    if not {"fold", "repeat"} <= set(rows.columns) or rows.empty:
        return None
    folds, repeats = int(rows["fold"].nunique()), int(rows["repeat"].nunique())
    text = f"{folds} fold(s)" + (f" x {repeats} repetitions" if repeats > 1 else "")
    return RunProtocol(text, folds, repeats)


def same_protocol(paper: Protocol, run: RunProtocol) -> bool:
    """Whether the run used the document's folds and repetitions (where the document states
    them) and is not a quick profile."""
    if run.quick:
        return False
    if paper.folds is not None and run.folds != paper.folds:
        return False
    return paper.repeats is None or (run.repeats or 1) == paper.repeats


def protocol_heading(paper: Protocol | None, run: RunProtocol | None) -> str:
    """ "paper: ...; this run: ..." for a heading ("" when neither is known)."""
    parts = []
    if paper is not None:
        parts.append(f"paper: {paper.text}")
    if run is not None:
        if paper is not None and same_protocol(paper, run):
            parts.append(f"this run: the same ({run.text})")
        else:
            parts.append(f"this run: {run.text}" + (" (quick profile)" if run.quick else ""))
    return "; ".join(parts)
