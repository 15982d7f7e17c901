"""Checks of ``svmlab run`` that must pass before Hydra writes anything.

Hydra creates the run (or sweep) directory and its log as soon as it starts a job, so a run
that cannot use its directory must be refused before that. :class:`RunChecks` is a Hydra
callback (``hydra.callbacks.svmlab`` in ``conf/config.yaml``): Hydra calls it with the
composed configuration right before it creates the directory, and it checks that directory
(``hydra.run.dir``, which is :func:`svmlab.config.run_dir` unless a command line overrides it)
and the settings only the composed configuration knows (the tuning mode an Optuna
sweep needs, entries an override cannot clear). A failed check prints one line and ends the
command with exit status 2.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from hydra.experimental.callback import Callback
from omegaconf import DictConfig

from svmlab.errors import ResultsError, SvmlabError
from svmlab.runner.lock import in_use


class RunChecks(Callback):
    """Hydra callback: refuse, with one line and exit status 2, a run that cannot start."""

    def on_run_start(self, config: DictConfig, **kwargs) -> None:
        _refuse_on_error(config, sweep=False)

    def on_multirun_start(self, config: DictConfig, **kwargs) -> None:
        _refuse_on_error(config, sweep=True)


def _refuse_on_error(config: DictConfig, *, sweep: bool) -> None:
    try:
        check_config(config, sweep=sweep)
    except SvmlabError as exc:
        print(f"svmlab: error: {exc}", file=sys.stderr)
        sys.exit(2)


def check_config(config: DictConfig, *, sweep: bool) -> None:
    """Every check, on the composed configuration (Hydra's node included).

    Raises
    ------
    SvmlabError
        The first problem found, in one line naming the setting to change.
    """
    check_cleared_members(config)
    if sweep:
        check_optuna_tuning(config)
    check_results_dir(Path(str(config.results_dir)).expanduser().absolute())
    # the directory Hydra is about to create: svmlab_run_dir (run_dir) unless overridden
    target = config.hydra.sweep.dir if sweep else config.hydra.run.dir
    check_run_dir(Path(str(target)).expanduser().absolute())


def check_results_dir(target: Path) -> None:
    """``results_dir`` can be created and written."""
    probe = _existing_ancestor(target)
    if not probe.is_dir() or not os.access(probe, os.W_OK | os.X_OK):
        raise SvmlabError(
            f"results directory {target} cannot be created: {probe} is not a writable directory; "
            "set results_dir=... to another place"
        )


def check_run_dir(target: Path) -> None:
    """The run directory can be used: no file is in its place or on its path, no other run
    holds its lock, and it (or its ``tasks/``, when resuming) can be written."""
    probe = _existing_ancestor(target)
    if not probe.is_dir():
        raise ResultsError(
            f"run directory {target} cannot be created: {probe} is a file, not a directory; "
            "choose another run_id=... or results_dir=..."
        )
    if target.is_dir():
        busy = in_use(target)  # refused before Hydra writes its log into a run in progress
        if busy:
            raise ResultsError(busy)
    for d in (probe, target / "tasks"):
        if d.is_dir() and not can_write_in(d):
            what = "resume into" if probe == target else "create"
            raise ResultsError(
                f"cannot {what} run directory {target}: {d} is not writable; make it writable "
                "or choose another run_id=... or results_dir=..."
            )


def check_optuna_tuning(config: DictConfig) -> None:
    """``hydra/sweeper=optuna`` maximises the inner-CV score, which only ``tuning.mode=nested``
    computes: any other mode (from the command line or the experiment) is refused."""
    sweeper = str(config.hydra.sweeper.get("_target_", ""))
    mode = config.tuning.mode
    if "optuna" in sweeper.lower() and mode != "nested":
        raise SvmlabError(
            f"hydra/sweeper=optuna optimises the runs' inner-CV score, which tuning.mode={mode} "
            "does not compute (outer_best would select on the test folds); use tuning.mode=nested"
        )


def check_cleared_members(config: DictConfig) -> None:
    """``datasets={}`` / ``solvers={}`` cannot clear an experiment's entries (Hydra merges a
    mapping into the existing one): with entries left after composition it is an error rather
    than silently ignored; without any it is the default and harmless."""
    for override in config.hydra.overrides.task:
        key, _, value = str(override).lstrip("+~").partition("=")
        if key not in ("datasets", "solvers") or value.strip() not in ("{}", "null"):
            continue
        if config.get(key):
            raise SvmlabError(
                f"{key}={value.strip()} does not remove the experiment's {key} (Hydra merges it "
                f"into them); drop entries with {key}.NAME=null, or leave out the experiment "
                f"and name one with {key[:-1]}=NAME"
            )


def can_write_in(directory: Path) -> bool:
    """Whether files can be created in ``directory`` (permissions and a real probe, as
    root passes any permission check but not a read-only file system)."""
    if not os.access(directory, os.W_OK | os.X_OK):
        return False
    try:
        with tempfile.TemporaryFile(dir=directory):
            return True
    except OSError:
        return False


def _existing_ancestor(path: Path) -> Path:
    while not path.exists():
        path = path.parent
    return path
