"""``svmlab run``: the Hydra application that plans, executes and summarises a run."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from svmlab.config import (
    HYDRA_ERRORS,
    hydra_error_line,
    run_id_of,
    with_replaced_estimators,
)
from svmlab.errors import ResultsError, SvmlabError
from svmlab.run_checks import (
    INFO_TOPICS,
    check_chosen_files,
    check_options,
    check_override_values,
    check_results_dir,
    check_settings,
    parse_command_overrides,
)
from svmlab.solvers import RESERVED
from svmlab.sweep_status import (
    close_status_dir,
    env_override,
    job_finished,
    job_started,
    open_status_dir,
)

#: Exit status of the last ``svmlab run`` job(s): Hydra discards a task function's return value.
EXIT = {"code": 0}

GROUPS = ("dataset", "solver", "protocol", "runner", "experiment")
# Overrides that choose *what* is run or *where*, rather than *how*; they do not label sweep
# variants.
_NOT_VARIANT = (
    "dataset",
    "datasets",
    "experiment",
    "run_id",
    "results_dir",
    "name",
    "hydra",
    "runner",
)


def parse_overrides(args: list[str]) -> list[tuple[str, str]]:
    """``(key, value)`` of each ``key=value`` command-line override, without ``+``/``++``/``~``."""
    out = []
    for a in args:
        if "=" in a and not a.startswith("-"):
            key, value = a.split("=", 1)
            out.append((key.lstrip("+~"), value))
    return out


def _variant(overrides: list[tuple[str, str]]) -> str:
    keep = [
        f"{k}={v}"
        for k, v in overrides
        if k.split(".")[0].split("@")[0] not in _NOT_VARIANT and k != "solver"
    ]
    return ";".join(keep)


def fixed_params(overrides: list[tuple[str, str]]) -> dict[str | None, set[str]]:
    """Solver parameters set on the command line, per solver: ``{None: ...}`` for the
    primary ``solver`` node (``solver.C=1``, also each value of a sweep), ``{"<key>": ...}``
    for an experiment's entry (``solvers.<key>.C=1``). A nested path
    (``solver.estimator.C=1``) gives scikit-learn's ``estimator__C``; reserved keys
    (``solver.grid.C=...``, ``solver.name=...``) are not parameters.

    >>> fixed_params([("solver.C", "10"), ("solvers.svc.gamma", "1"), ("solver.grid.C", "[1]")])
    {None: {'C'}, 'svc': {'gamma'}}
    """
    out: dict[str | None, set[str]] = {}
    for key, _ in overrides:
        parts = key.split(".")
        if parts[0] == "solver" and len(parts) >= 2:
            owner, path = None, parts[1:]
        elif parts[0] == "solvers" and len(parts) >= 3:
            owner, path = parts[1], parts[2:]
        else:
            continue
        if path[0] in RESERVED:
            continue
        out.setdefault(owner, set()).add("__".join(path))
    return out


def _say(message: str) -> None:
    print(f"svmlab: {message}", file=sys.stderr)


def _announce(plan, run_dir: Path, resumed: bool) -> None:
    n_ds, n_sol = len(plan.datasets), len(plan.solvers)
    _say(
        f"experiment {plan.experiment!r}: {n_ds} dataset(s) x {n_sol} solver(s) -> "
        f"{len(plan.tasks)} tasks"
    )
    _say(f"results in {run_dir}" + (" (resuming)" if resumed else ""))
    for ds, solver, why in plan.skipped_pairs:
        _say(f"note: {ds} x {solver} skipped ({why})")
    for name, why in plan.unavailable:
        _say(f"note: dataset {name} of this study is not available here: {why}")


def _conclude(summary, df, run_dir: Path, run_id: str) -> int:
    """Say how the run went; the exit status (1 when a task failed)."""
    done = f"{summary.ok} ok now, {summary.skipped} already done"
    warned = df["warnings"].fillna("").ne("").sum() if "warnings" in df.columns else 0
    if warned:
        _say(
            f"{warned} result rows carry warnings (e.g. non-convergence); see the 'warnings' column"
        )
    results = run_dir / "results.parquet"
    if summary.n_failed:
        _say(
            f"{summary.n_failed} of {summary.total} tasks failed ({done}); see the 'error' "
            f"column of {results}; rerun with run_id={run_id} to retry them"
        )
        return 1
    _say(f"{summary.total} tasks ok ({done}); results: {results}")
    return 0


def _consolidate(run_dir: Path, plan, summary) -> None:
    """Rebuild the run's ``results.parquet`` unless it is current (a resume that ran nothing);
    a full disk at this very end is one line, and every task file is kept."""
    from svmlab.results import select_outer_best
    from svmlab.runner.store import consolidate, results_current

    if not (summary.ok or summary.n_failed or not results_current(run_dir)):
        return
    try:
        consolidate(run_dir, postprocess=select_outer_best, keys={t.key for t in plan.tasks})
    except OSError as exc:
        reason = os.strerror(exc.errno) if exc.errno else str(exc)
        raise ResultsError(
            f"could not write {run_dir / 'results.parquet'} ({reason}); every finished task "
            "is kept in tasks/ - free space and run the same command again to consolidate"
        ) from None


def job(cfg) -> float | None:
    """Hydra task function: one run (one job of a sweep).

    Returns the run's :func:`svmlab.runner.trials.inner_objective` (what
    ``hydra/sweeper=optuna`` maximises);
    None when the run failed before it had results. The exit status goes to ``EXIT``.
    """
    from hydra.core.hydra_config import HydraConfig
    from omegaconf import OmegaConf

    from svmlab.data.prefetch import ensure_run_files
    from svmlab.report.render import render
    from svmlab.report.summary import build_report
    from svmlab.results import load_results
    from svmlab.runner.execute import execute
    from svmlab.runner.lock import release
    from svmlab.runner.plan import build_plan
    from svmlab.runner.store import prepare_run_dir

    hc = HydraConfig.get()
    run_dir = Path(hc.runtime.output_dir)
    mark = job_started()  # a sweep job on another process or host reports its exit status
    overrides = parse_overrides(list(hc.overrides.task))
    # a deletion (~solver.C) fixes nothing: the parameter falls back to its default
    settings = parse_overrides([o for o in hc.overrides.task if not o.startswith("~")])
    try:
        container = _composed(cfg, hc)
        # every data file before planning: fetched with data.allow_download, else one line
        ensure_run_files(container, hc.runtime.choices.get("experiment"), say=_say)
        run_id = run_id_of(container, run_dir)
        # an unknown target fails before any work
        target = None
        if container.get("reproduce"):
            from svmlab.reproduce import get_reproduction

            target = get_reproduction(container["reproduce"])
        plan = build_plan(
            container,
            str(run_dir),
            run_id,
            variant=_variant(overrides),
            fixed_params=fixed_params(settings),
            derived=target.derived if target is not None else (),
        )
        # locks the run directory (released below); a run of another identity is refused
        resumed = prepare_run_dir(run_dir, plan.identity, OmegaConf.to_yaml(cfg, resolve=True))
        _announce(plan, run_dir, resumed)
        summary = execute(plan.tasks, container.get("runner") or {})
        _consolidate(run_dir, plan, summary)
        df = load_results(run_dir)
        metric = container.get("summary_metric")
        how = (container.get("report") or {}).get("aggregate") or "mean"
        metrics = [metric] if metric else None
        print(render(build_report(df, metrics, how)))
        code = _conclude(summary, df, run_dir, run_id)
        EXIT["code"] = max(EXIT["code"], code)
        job_finished(mark, code)
        from svmlab.runner.trials import inner_objective

        score = inner_objective(df)
        if "optuna" in str(hc.sweeper.get("_target_", "")).lower():
            _say(f"inner-CV objective of this trial: {score:.6g}")
        return score
    except SvmlabError as exc:
        _say(f"error: {exc}")
        EXIT["code"] = 2
        job_finished(mark, 2)
        release(run_dir)
        _discard_if_unused(run_dir)
    finally:
        release(run_dir)
    return None


def _composed(cfg, hc) -> dict:
    """The job's configuration resolved, with svmlab's rule for replaced nested estimators,
    and checked (a sweep job's own values; the sweep's were checked before it started)."""
    from omegaconf import OmegaConf

    try:
        container = with_replaced_estimators(OmegaConf.to_container(cfg, resolve=True), hc)
    except HYDRA_ERRORS as exc:  # e.g. an interpolation of an experiment that fails
        raise SvmlabError(hydra_error_line(exc)) from None
    check_settings(cfg)
    return container


def _discard_if_unused(run_dir: Path) -> None:
    """Remove the run directory of a job that failed before writing anything (Hydra creates
    it, with its log, before the job validates), and the experiment folder if that is now
    empty; a directory holding anything but logs (a run to resume) is left alone."""
    try:
        entries = list(run_dir.iterdir())
        if any(p.suffix != ".log" or not p.is_file() for p in entries):
            return
        for p in entries:
            p.unlink()
        run_dir.rmdir()
        run_dir.parent.rmdir()  # fails (and is left) unless empty
    except OSError:
        pass


def has_experiment_choice(args: list[str]) -> bool:
    """Whether the command line picks an experiment, dataset(s) or solver(s) itself."""
    return any(
        k in ("experiment", "dataset", "datasets", "solver", "solvers")
        or k.startswith(("datasets.", "solvers."))
        for k, _ in parse_overrides(args)
    )


def check_group_choices(args: list[str]) -> None:
    """Unknown or empty config-group options (``solver=nosuch``, ``dataset=``) fail with a
    did-you-mean message.

    Hydra would also refuse them, listing every option on a line of its own; this names the
    closest ones first. Options found in a ``--config-dir`` are accepted; sweep functions
    such as ``choice(...)`` or ``glob(...)`` are left to Hydra.
    """
    from svmlab.errors import UnknownNameError

    dirs = _config_dirs(args)
    if any(a.startswith("experiment=") for a in args) and not any(
        a.startswith(("+experiment=", "++experiment=")) for a in args
    ):
        given = next(a for a in args if a.startswith("experiment="))
        raise SvmlabError(f"{given}: an experiment is added with a plus sign: +{given}")
    for key, value in parse_overrides(args):
        group = key.split("@")[0]
        if key in GROUPS and key != "experiment" and value == "null":
            raise SvmlabError(
                f"{key}=null leaves the run without a {key}; name one (svmlab list {key}s), or "
                f"drop one entry of an experiment with {key}s.NAME=null"
            )
        if group not in GROUPS or "(" in value:
            continue
        options = {p.stem for d in dirs for p in (d / group).glob("*.yaml")}
        if not value.strip():
            shown = ", ".join(sorted(options)[:12]) + (" ..." if len(options) > 12 else "")
            given = f"+{key}" if key == "experiment" else key
            raise SvmlabError(
                f"{given}= is empty; choose one of: {shown} ({len(options)} in all: svmlab "
                f"list {group}s)"
            )
        for choice in value.split(","):
            if choice not in options:
                raise UnknownNameError(group, choice, options)


#: Hydra plugins by config-group option: ``{group: {option: (module, pip package)}}``.
PLUGINS = {
    "hydra/launcher": {
        "joblib": ("hydra_plugins.hydra_joblib_launcher", "hydra-joblib-launcher"),
        "submitit_local": ("hydra_plugins.hydra_submitit_launcher", "hydra-submitit-launcher"),
        "submitit_slurm": ("hydra_plugins.hydra_submitit_launcher", "hydra-submitit-launcher"),
        "ray": ("hydra_plugins.hydra_ray_launcher", "hydra-ray-launcher"),
        "ray_aws": ("hydra_plugins.hydra_ray_launcher", "hydra-ray-launcher"),
        "rq": ("hydra_plugins.hydra_rq_launcher", "hydra-rq-launcher"),
    },
    "hydra/sweeper": {
        "optuna": ("hydra_plugins.hydra_optuna_sweeper", "hydra-optuna-sweeper"),
        "ax": ("hydra_plugins.hydra_ax_sweeper", "hydra-ax-sweeper"),
        "nevergrad": ("hydra_plugins.hydra_nevergrad_sweeper", "hydra-nevergrad-sweeper"),
    },
}


def _installed(module: str) -> bool:
    import importlib.util

    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def _hydra_options(group: str, args: list[str]) -> set[str]:
    """The options of Hydra config ``group`` (``hydra/launcher``) found here: svmlab's and
    ``--config-dir`` files and those the installed Hydra plugins register."""
    from hydra.core.config_store import ConfigStore
    from hydra.core.plugins import Plugins

    Plugins.instance()  # imports the installed hydra_plugins, which register their configs
    try:
        stored = ConfigStore.instance().list(group)
    except OSError:
        stored = []
    files = {p.stem for d in _config_dirs(args) for p in (d / group).glob("*.yaml")}
    return files | {name.removesuffix(".yaml") for name in stored}


def check_plugins(args: list[str]) -> None:
    """``hydra/launcher=...`` / ``hydra/sweeper=...`` naming a Hydra plugin that is not
    installed (or no known option) fails with one line: the package to install."""
    for key, value in parse_overrides(args):
        if key not in PLUGINS or not value:
            continue
        kind = key.split("/")[1]
        known = PLUGINS[key].get(value)
        if known is not None:
            if not _installed(known[0]):
                raise SvmlabError(
                    f"{key}={value} needs the Hydra plugin {known[1]}, which is not installed: "
                    f"pip install {known[1]}"
                )
        elif value not in _hydra_options(key, args):
            options = ", ".join(sorted(_hydra_options(key, args)))
            raise SvmlabError(
                f"unknown {kind} {key}={value}; installed: {options} (if {value} is a Hydra "
                f"plugin: pip install hydra-{value}-{kind})"
            )


#: svmlab's defaults for Hydra plugins chosen on the command line, added to Hydra's overrides
#: unless the command line sets them: two joblib jobs at once rather than one per core;
#: Optuna maximises the inner-CV objective :func:`job` returns, one trial at a time (TPE learns
#: from each), its sampler seeded with the run's master seed; solvers left without a grid get
#: an inner CV of their one configuration (``tuning.inner_always``) so that there is a score.
#: (A ``conf/hydra/...`` file of the same name would be matched against the plugin's schema,
#: which Hydra 1.3 refuses for Optuna's.)
PLUGIN_DEFAULTS = {
    ("hydra/launcher", "joblib"): {"hydra.launcher.n_jobs": "2"},
    ("hydra/sweeper", "optuna"): {
        "hydra.sweeper.direction": "maximize",
        "hydra.sweeper.n_jobs": "1",
        "hydra.sweeper.sampler.seed": "${seed}",
        "+tuning.inner_always": "true",
    },
}


def with_plugin_defaults(args: list[str]) -> list[str]:
    """``args`` with :data:`PLUGIN_DEFAULTS` of the chosen plugins that ``args`` does not set.

    >>> with_plugin_defaults(["-m", "hydra/launcher=joblib", "hydra.launcher.n_jobs=4"])
    ['-m', 'hydra/launcher=joblib', 'hydra.launcher.n_jobs=4']
    >>> with_plugin_defaults(["-m", "hydra/launcher=joblib"])
    ['-m', 'hydra/launcher=joblib', 'hydra.launcher.n_jobs=2']
    """
    given = dict(parse_overrides(args))
    extra = [
        f"{key}={value}"
        for choice, defaults in PLUGIN_DEFAULTS.items()
        if given.get(choice[0]) == choice[1]
        for key, value in defaults.items()
        if key.lstrip("+") not in given
    ]
    return add_overrides(args, extra)


#: Hydra's command-line options that take a value (``--info`` takes one of INFO_TOPICS or none).
_VALUED = {"-c", "--cfg", "-p", "--package", "-cp", "--config-path", "-cn", "--config-name"}
_VALUED |= {"-cd", "--config-dir", "--experimental-rerun"}


def split_args(args: list[str]) -> tuple[list[str], list[str]]:
    """``(options, overrides)``: Hydra's command-line options with their values, in order,
    and the overrides (every other word).

    >>> split_args(["-m", "a=1", "--cfg", "job", "b=2", "--info", "config"])
    (['-m', '--cfg', 'job', '--info', 'config'], ['a=1', 'b=2'])
    """
    options, overrides, i = [], [], 0
    while i < len(args):
        word = args[i]
        takes = word in _VALUED or (word in ("-i", "--info") and i + 1 < len(args))
        if takes and (word not in ("-i", "--info") or args[i + 1] in INFO_TOPICS):
            options += args[i : i + 2]
            i += 2
            continue
        (options if word.startswith("-") else overrides).append(word)
        i += 1
    return options, overrides


def add_overrides(args: list[str], extra: list[str]) -> list[str]:
    """``args`` with the overrides ``extra`` after the command line's own.

    Hydra takes the overrides as one run of words, so the options go first (``-m`` may stand
    anywhere on the command line) and the overrides, the command line's and then ``extra``,
    after them; ``--info`` without a topic goes last, where it cannot take an override for
    its topic.

    >>> add_overrides(["a=1", "-m"], ["b=2"]), add_overrides(["--cfg", "job", "a=1"], ["b=2"])
    (['-m', 'a=1', 'b=2'], ['--cfg', 'job', 'a=1', 'b=2'])
    >>> add_overrides(["--info", "a=1"], []), add_overrides(["a=1", "--info", "defaults"], [])
    (['a=1', '--info'], ['--info', 'defaults', 'a=1'])
    """
    options, overrides = split_args(args)
    topics = [*options[1:], None]
    bare = [
        k for k, o in enumerate(options) if o in ("-i", "--info") and topics[k] not in INFO_TOPICS
    ]
    rest = [o for k, o in enumerate(options) if k not in bare]
    return [*rest, *overrides, *extra, *(options[k] for k in bare)]


def _config_dirs(args: list[str]) -> list[Path]:
    """The package's conf/ and every ``--config-dir`` of the command line."""
    from svmlab.paths import conf_dir

    options, _ = split_args(args)
    dirs = [conf_dir()]
    for i, option in enumerate(options):
        if option in ("-cd", "--config-dir") and i + 1 < len(options):
            dirs.append(Path(options[i + 1]))
        elif option.startswith("--config-dir="):
            dirs.append(Path(option.split("=", 1)[1]))
    return dirs


#: Hydra's mutually exclusive modes, by their flags.
MODES = {
    "-m": "--multirun",
    "--multirun": "--multirun",
    "-c": "--cfg",
    "--cfg": "--cfg",
    "-i": "--info",
    "--info": "--info",
    "-r": "--run",
    "--run": "--run",
}


def check_one_mode(args: list[str]) -> None:
    """Hydra runs one of --multirun, --cfg, --info at a time (it would raise a traceback).

    >>> check_one_mode(["-m", "solver.C=1,10", "--multirun"])  # one mode, named twice
    """
    modes = list(dict.fromkeys(MODES[a] for a in args if a in MODES))
    if len(modes) > 1:
        raise SvmlabError(
            f"{modes[0]} and {modes[1]} cannot be combined: Hydra does one at a time (--cfg job "
            "without -m prints one run's configuration)"
        )


def _open_sweep_status(args: list[str]) -> Path | None:
    """A sweep's status directory, under its results directory (which is checked first: the
    directory is made before Hydra starts); None for a single run."""
    if not any(a in ("-m", "--multirun") for a in args):
        return None
    results = dict(parse_overrides(args)).get("results_dir", "results")
    root = Path(results).expanduser().absolute()
    check_results_dir(root)
    try:
        return open_status_dir(root)
    except OSError as exc:
        reason = os.strerror(exc.errno) if exc.errno else str(exc)
        raise SvmlabError(f"results directory {root} cannot be written ({reason})") from None


def run(args: list[str]) -> int:
    """Run the Hydra app with command-line ``args`` (everything after ``svmlab run``)."""
    import hydra

    from svmlab.paths import conf_dir

    if not has_experiment_choice(args) and not any(
        a in ("-h", "--help", "--hydra-help", "-i", "--info") for a in args
    ):
        args = add_overrides(args, ["+experiment=quickstart"])
    try:
        check_one_mode(args)
        options, words = split_args(args)
        check_options(options)
        overrides = parse_command_overrides(words)
        check_override_values(overrides)
        check_group_choices(args)
        check_chosen_files(overrides, GROUPS, _config_dirs(args))
        check_plugins(args)
        status_dir = _open_sweep_status(args)
    except SvmlabError as exc:
        print(f"svmlab: error: {exc}", file=sys.stderr)
        return 2
    EXIT["code"] = 0
    args = with_plugin_defaults(args)
    if status_dir is not None:
        args = add_overrides(args, [env_override(status_dir)])
    main = hydra.main(config_path=str(conf_dir()), config_name="config", version_base="1.3")(job)
    saved, debugging = sys.argv, os.environ.get("HYDRA_FULL_ERROR") == "1"
    sys.argv = ["svmlab run", *args]
    os.environ["HYDRA_FULL_ERROR"] = "1"  # Hydra raises its errors rather than printing them
    try:
        main()
    except SystemExit as exc:  # svmlab's checks (status 2) and Hydra's --help, --version
        if exc.code not in (0, None):
            return int(exc.code) if isinstance(exc.code, int) else 2
    except HYDRA_ERRORS as exc:  # composition: an unknown key, a config file not found...
        if debugging:
            raise
        print(f"svmlab: error: {hydra_error_line(exc)}", file=sys.stderr)
        return 2
    finally:
        sys.argv = saved
        if not debugging:
            os.environ.pop("HYDRA_FULL_ERROR", None)
        if status_dir is not None:
            worst, silent = close_status_dir(status_dir)
            EXIT["code"] = max(EXIT["code"], worst, 1 if silent else 0)
            if silent:
                _say(
                    f"{silent} sweep job(s) ended without recording an exit status (killed, or "
                    "an unexpected error: see the job's log); rerun the same command to resume"
                )
    return EXIT["code"]
