"""Checks of ``svmlab run`` that must pass before Hydra writes anything.

Hydra creates the run (or sweep) directory and its log as soon as it starts a job, so a run
that cannot use its directory must be refused before that. :class:`RunChecks` is a Hydra
callback (``hydra.callbacks.svmlab`` in ``conf/config.yaml``): Hydra calls it with the
composed configuration right before it creates the directory, and it checks that directory
(``hydra.run.dir``, which is :func:`svmlab.config.run_dir` unless a command line overrides it)
and the settings only the composed configuration knows (the tuning mode an Optuna
sweep needs, entries an override cannot clear, the values of the run-wide settings). A failed
check prints one line and ends the command with exit status 2.

Before Hydra even starts, ``svmlab run`` checks what the command line alone tells: Hydra's
options (:func:`check_options`), the override syntax (:func:`parse_command_overrides`), each
value of the run-wide settings (:func:`check_override_values`) and the YAML of the config
files it chooses (:func:`check_chosen_files`); :func:`svmlab.config.hydra_error_line` turns an
error Hydra raises itself into svmlab's one line. The values follow one rule set
(:func:`check_value`): a seed is an integer 0 .. 2**32 - 1 (:func:`svmlab.seeding.check_seed`),
a boolean setting is true or false, ``name`` and ``run_id`` are relative names of at most the
file system's 255 bytes per part.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from hydra.experimental.callback import Callback
from omegaconf import DictConfig, ListConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException

from svmlab.config import omegaconf_error_line, yaml_error_line
from svmlab.errors import ConfigError, ResultsError, SvmlabError
from svmlab.paths import path_limits, shortened, too_long
from svmlab.runner.lock import in_use
from svmlab.seeding import check_seed


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
    except OmegaConfBaseException as exc:  # Hydra would only warn and go on
        print(f"svmlab: error: {omegaconf_error_line(exc)}", file=sys.stderr)
        sys.exit(2)


def check_config(config: DictConfig, *, sweep: bool) -> None:
    """Every check, on the composed configuration (Hydra's node included).

    Raises
    ------
    SvmlabError
        The first problem found, in one line naming the setting to change.
    """
    check_cleared_members(config)
    check_settings(config)
    if sweep:
        check_optuna_tuning(config)
    check_results_dir(Path(str(config.results_dir)).expanduser().absolute())
    # the directory Hydra is about to create: svmlab_run_dir (run_dir) unless overridden
    target = config.hydra.sweep.dir if sweep else config.hydra.run.dir
    check_run_dir(Path(str(target)).expanduser().absolute())


def check_results_dir(target: Path) -> None:
    """``results_dir`` can be created and written."""
    check_path_length(target, "results directory")
    probe = _existing_ancestor(target)
    if not probe.is_dir() or not os.access(probe, os.W_OK | os.X_OK):
        raise SvmlabError(
            f"results directory {target} cannot be created: {probe} is not a writable directory; "
            "set results_dir=... to another place"
        )


def check_run_dir(target: Path) -> None:
    """The run directory can be used: no file is in its place or on its path, no other run
    holds its lock, and it (or its ``tasks/``, when resuming) can be written."""
    check_path_length(target, "run directory")
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
    for override in OmegaConf.to_container(config.hydra.overrides.task, resolve=False):
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
    while not os.path.exists(path):  # False (not an error) for a name too long to look up
        path = path.parent
    return path


def check_path_length(path: Path, what: str) -> None:
    """Each name of ``path`` and ``path`` itself within the file system's limits
    (:func:`svmlab.paths.too_long`), so that creating it cannot fail half-way.

    Raises
    ------
    ResultsError
        One line naming the too-long name, its size and the limit.
    """
    why = too_long(path)
    if why is not None:
        raise ResultsError(
            f"{what} {shortened(str(path))}: {why}; choose a shorter run_id=..., name=... or "
            "results_dir=..."
        )


# -- the values of the run-wide settings (command line and composed configuration) ---------

#: The settings that take true or false (a solver's booleans are checked by its estimator's
#: parameter constraints, ``protocol.resample`` by the protocol).
BOOLEAN_SETTINGS = ("data.allow_download", "runner.progress", "tuning.inner_always")
#: Settings that name a directory of the run: ``results_dir/name/run_id``.
DIR_NAMES = ("name", "run_id")
#: The nodes whose ``random_state``, ``seed`` and ``*_seed`` keys are seeds.
SEEDED = ("dataset", "datasets", "solver", "solvers")
#: ``report`` settings of an experiment: what ``svmlab report`` accepts for them.
REPORT_AGGREGATES = ("mean", "pooled")
#: Settings that hold settings by name: a mapping (or null), never a single value.
MAPPINGS = ("data", "preprocessing", "tuning", "report", "datasets", "solvers")
#: Settings that name a place or a thing and cannot be empty.
NON_EMPTY = ("results_dir", "hydra.run.dir", "hydra.sweep.dir")


def _shown(value) -> str:
    if value is None:
        return "null"
    return repr(value) if isinstance(value, str) and value else shortened(str(value))


#: Fields of a dataset, solver or protocol entry that hold several values.
ENTRY_SHAPES = {"grid": dict, "params": dict, "tasks": list}


def _entry_field(key: str) -> str | None:
    """The field of a dataset, solver or protocol entry that ``key`` names (``solver.grid``,
    ``solvers.X.grid``: ``grid``), or None."""
    parts = key.split(".")
    if len(parts) == 2 and parts[0] in ("solver", "dataset", "protocol"):
        return parts[1]
    return parts[2] if len(parts) == 3 and parts[0] in ("solvers", "datasets") else None


def _shape(key: str) -> type | None:
    """``dict`` or ``list`` for a setting that holds several values, else None."""
    if key in MAPPINGS:
        return dict
    return list if key == "unavailable_datasets" else ENTRY_SHAPES.get(_entry_field(key))


def _is_seed_key(key: str) -> bool:
    last = key.rsplit(".", 1)[-1]
    return key.split(".")[0] in SEEDED and (
        last in ("seed", "random_state") or last.endswith("_seed")
    )


def check_value(key: str, value) -> None:
    """One setting's value, from the command line or the composed configuration; keys
    without a rule here pass (their own component checks them).

    Raises
    ------
    ConfigError
        One line naming ``key=value`` and what is accepted.
    """
    if key == "seed":
        check_seed(value)
    elif key in DIR_NAMES:
        check_dir_name(key, value)
    elif key in NON_EMPTY:
        if value is None or not str(value).strip():
            raise ConfigError(
                f"{key}={_shown(value)} names no directory; give one ({key}=. for the current "
                "directory)"
            )
    elif _shape(key) is not None:
        kind = _shape(key)
        if value is not None and not isinstance(value, kind):
            how = f"{key}=[a,b]" if kind is list else f"{key}.NAME=VALUE (see svmlab run --cfg job)"
            raise ConfigError(
                f"{key}={_shown(value)} is not a {'list' if kind is list else 'mapping'}; "
                f"set it as {how}"
            )
    elif _entry_field(key) == "name":
        if not isinstance(value, (str, int)) or isinstance(value, bool) or not str(value).strip():
            raise ConfigError(f"{key}={_shown(value)} is not a name; give text, e.g. {key}=mine")
    elif key in BOOLEAN_SETTINGS:
        if not isinstance(value, bool):
            raise ConfigError(f"{key}={_shown(value)} is not a boolean; give true or false")
    elif key == "report.aggregate":
        if value is not None and value not in REPORT_AGGREGATES:
            raise ConfigError(f"{key}={_shown(value)} is not valid; choose one of mean, pooled")
    elif key == "report.bd_alpha":
        ok = isinstance(value, (int, float)) and not isinstance(value, bool) and 0 < value < 1
        if value is not None and not ok:
            raise ConfigError(
                f"{key}={_shown(value)} is not a significance level; give 0 < level < 1 or null"
            )
    elif _is_seed_key(key):
        for one in value if isinstance(value, list) else [value]:  # a grid lists several
            check_seed(one, key, nullable=True)


def check_dir_name(key: str, value) -> None:
    """``name`` and ``run_id``: a relative name (parts separated by ``/``, none ``.`` or
    ``..``) within the file system's limit per name, so that the run gets a directory of
    its own inside ``results_dir``."""
    if value is None or isinstance(value, (bool, float, list, dict)):
        raise ConfigError(f"{key}={_shown(value)} is not a name; give text, e.g. {key}=trial1")
    text = str(value)
    if not text.strip():
        default = "the date and time" if key == "run_id" else "the experiment's name"
        raise ConfigError(
            f"{key}={text} is empty: the run would write straight into its parent directory; "
            f"give a name ({key}=NAME) or leave {key} out (default: {default})"
        )
    parts = text.split("/")
    if text.startswith("/") or any(p.strip() in (".", "..") for p in parts):
        raise ConfigError(
            f"{key}={shortened(text)} leaves the run's place in results_dir; give a relative "
            "name without . or .. parts"
        )
    name_max = path_limits(Path.cwd())[0]
    for part in parts:
        if len(os.fsencode(part)) > name_max:
            raise ConfigError(
                f"{key}={shortened(text)} is too long: {len(os.fsencode(part))} bytes, the "
                f"file system allows {name_max} per name"
            )


def check_settings(config: DictConfig) -> None:
    """The composed values of the run-wide settings (:func:`check_value`), every seed of the
    datasets and solvers, and the experiment's file read as a global one.

    Raises
    ------
    SvmlabError
        One line naming the setting, its value and what is accepted.
    """
    keys = ("seed", *DIR_NAMES, *NON_EMPTY, "unavailable_datasets", *MAPPINGS, "runner")
    for key in (*keys, "protocol", *SEEDED):
        try:
            node = OmegaConf.select(config, key, default=_ABSENT)
            if isinstance(node, (DictConfig, ListConfig)):
                node = OmegaConf.to_container(node, resolve=True)
        except OmegaConfBaseException as exc:
            raise ConfigError(omegaconf_error_line(exc, key)) from None
        if node is _ABSENT:
            continue
        check_value(key, node)
        for name, value in _leaves(key, node) if isinstance(node, dict) else ():
            check_value(name, value)
    if "experiment" in config:
        name = OmegaConf.select(config, "hydra.runtime.choices.experiment", default="NAME")
        raise ConfigError(
            f"+experiment={name}: its file does not start with the line `# @package _global_`, "
            "so its settings would go under experiment.* and be ignored; add that line"
        )


_ABSENT = object()


def _leaves(prefix: str, node):
    """``(dotted key, value)`` of every key of ``node`` whose value is not a mapping."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _leaves(f"{prefix}.{key}", value)
    else:
        yield prefix, node


# -- the command line, before Hydra starts --------------------------------------------------

#: The topics of Hydra's ``--info``.
INFO_TOPICS = ("all", "config", "defaults", "defaults-tree", "plugins", "searchpath")
#: Hydra 1.3's options of ``svmlab run``: flag -> the values it takes (None: any one value;
#: () : no value).
HYDRA_OPTIONS = {
    **dict.fromkeys(("-h", "--help", "--hydra-help", "--version", "--resolve"), ()),
    **dict.fromkeys(("-m", "--multirun", "-r", "--run", "-sc", "--shell-completion"), ()),
    **dict.fromkeys(("-c", "--cfg"), ("job", "hydra", "all")),
    **dict.fromkeys(("-p", "--package", "-cp", "--config-path", "-cn", "--config-name"), None),
    **dict.fromkeys(("-cd", "--config-dir", "--experimental-rerun"), None),
    **dict.fromkeys(("-i", "--info"), INFO_TOPICS),
}
#: Options whose value may be left out.
OPTIONAL_VALUE = ("-i", "--info")


def check_options(options: list[str]) -> None:
    """Hydra's options of the command line (as :func:`svmlab.app.split_args` gives them,
    each valued one with its value): known flags, valid values, existing ``--config-dir``.

    Raises
    ------
    SvmlabError
        One line naming the option and what is accepted.
    """
    i = 0
    while i < len(options):
        flag, _, attached = options[i].partition("=")
        if flag not in HYDRA_OPTIONS:
            raise SvmlabError(
                f"unknown option {options[i]} of svmlab run; Hydra's options are -m/--multirun, "
                "--cfg job|hydra|all, --info [TOPIC], --config-dir DIR, ... (svmlab run --help)"
            )
        takes = HYDRA_OPTIONS[flag]
        following = options[i + 1] if i + 1 < len(options) and not attached else None
        if flag in OPTIONAL_VALUE and (following or "-")[0] == "-":
            following = None  # --info without a topic
        if takes == () or attached or (flag in OPTIONAL_VALUE and following is None):
            value, i = (attached or None), i + 1
        else:
            value, i = following, i + 2
        if takes == () and value is not None:
            raise SvmlabError(f"option {flag} takes no value, got {value!r}")
        if takes != () and flag not in OPTIONAL_VALUE and (value is None or value[:1] == "-"):
            raise SvmlabError(f"option {flag} needs a value (svmlab run --help)")
        if value is None:
            continue
        if takes and value not in takes:
            raise SvmlabError(f"{flag} {value}: choose one of {', '.join(takes)}")
        if flag in ("-cd", "--config-dir") and not os.path.isdir(os.path.expanduser(value)):
            raise SvmlabError(f"--config-dir {value} is not a directory; give a directory")


def parse_command_overrides(words: list[str]) -> list:
    """The overrides of the command line parsed by Hydra's grammar (``Override`` objects).

    Raises
    ------
    SvmlabError
        One line naming the override that is not valid Hydra syntax.
    """
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from hydra.errors import OverrideParseException

    parser = OverridesParser.create()
    out = []
    for word in words:
        try:
            (override,) = parser.parse_overrides([word])
        except OverrideParseException as exc:
            lines = [ln.strip() for ln in exc.message.splitlines()]
            lines = [ln for ln in lines if ln.strip("^") and not ln.startswith("See ")]
            why = lines[-1] if lines else "not Hydra's grammar"
            if "LexerNoViableAlt" in why:  # e.g. a letter outside ASCII
                why = "a character that only a quoted value may hold: key='...'"
            raise SvmlabError(
                f"{word!r} is not an override of the form key=value ({why}; "
                "Hydra's override syntax: hydra.cc/docs/advanced/override_grammar/basic)"
            ) from None
        if not override.key_or_group:
            raise SvmlabError(f"{word!r} names no key; write key=value (e.g. seed=1)")
        out.append(override)
    return out


def override_values(override) -> list:
    """The values an override gives: one, or each of a sweep (a range's first and last);
    none for a deletion, an interval (Optuna's) or a glob."""
    from hydra.core.override_parser.types import ChoiceSweep, Override, RangeSweep

    value = override.value()
    if override.is_delete() or override.value_type is None:
        return []
    if isinstance(value, ChoiceSweep):
        return [Override._convert_value(v) for v in value.list]
    if isinstance(value, RangeSweep):
        steps = value.range()
        return [value.start, steps[-1]] if isinstance(steps, range) and steps else [value.start]
    return [] if override.is_sweep_override() else [value]


def check_override_values(overrides: list) -> None:
    """Each value the command line gives a setting with a rule (:func:`check_value`),
    every value of a sweep included; an interpolation (``${...}``) is checked once
    composed."""
    for override in overrides:
        for value in override_values(override):
            if isinstance(value, str) and "${" in value:
                continue
            check_value(override.key_or_group, value)


def check_chosen_files(overrides: list, groups, dirs: list[Path]) -> None:
    """The config file of each group option the command line chooses (``+experiment=x``,
    ``solver=y``...) is YAML whose top level is a mapping; files Hydra finds through their
    defaults lists are checked as Hydra reads them (:func:`hydra_error_line`).

    Raises
    ------
    SvmlabError
        One line naming the file, the line and the problem.
    """
    import yaml

    for override in overrides:
        group = override.key_or_group.split("@")[0]
        if group not in groups:
            continue
        for name in override_values(override):
            path = next(
                (
                    d / group / f"{name}.yaml"
                    for d in dirs
                    if (d / group / f"{name}.yaml").is_file()
                ),
                None,
            )
            if path is None:
                continue
            try:
                content = yaml.safe_load(path.read_text())
            except yaml.YAMLError as exc:
                raise SvmlabError(yaml_error_line(exc, path)) from None
            if content is not None and not isinstance(content, dict):
                raise SvmlabError(
                    f"{path}: the top level is a {type(content).__name__}, not a mapping; a "
                    "config file holds key: value lines"
                )
