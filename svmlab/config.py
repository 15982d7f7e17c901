"""What svmlab reads from Hydra's composed configuration, in one place.

Hydra composes ``conf/config.yaml`` with the chosen options, the experiment and the
command-line overrides; this module holds the few things svmlab derives from that result:

* :func:`run_dir` - the one formula of a run's directory, ``results_dir/name/run_id``.
  ``conf/config.yaml`` gives it to Hydra through the ``svmlab_run_dir`` resolver, and every
  check made before Hydra writes anything (:mod:`svmlab.run_checks`) calls it too;
* :func:`with_replaced_estimators` - the rule for a nested estimator that an experiment or an
  override replaces (:func:`svmlab.solvers.replace_retargeted`), applied to every solver of
  a composed configuration;
* :func:`compose` - the configuration of a command line without running it (Hydra's compose
  API), for commands that need an experiment's settings (``svmlab reproduce``);
* :func:`hydra_error_line` - an error Hydra raises while composing (a key the configuration
  does not have, a config file that is not YAML or not found) as svmlab's one line.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import yaml
from hydra.errors import HydraException
from omegaconf import OmegaConf
from omegaconf.errors import OmegaConfBaseException

from svmlab.errors import ConfigError
from svmlab.solvers import replace_retargeted

#: What Hydra raises for a configuration it cannot compose (:func:`hydra_error_line`).
HYDRA_ERRORS = (HydraException, OmegaConfBaseException, yaml.YAMLError)

#: The key of an experiment's solver entry in Hydra's recorded choices, e.g.
#: ``solver@solvers.miboost`` -> ``miboost``; ``solver`` is the primary solver's.
_ENTRY = "solver@solvers."


def run_dir(cfg) -> Path:
    """``results_dir/name/run_id`` of a composed configuration (mapping or DictConfig).

    The only place this formula lives: Hydra's ``hydra.run.dir`` and ``hydra.sweep.dir``
    call it through the ``svmlab_run_dir`` resolver, and ``svmlab run``'s checks and
    ``svmlab reproduce`` call it directly.
    """
    return Path(str(cfg["results_dir"])) / str(cfg["name"]) / str(cfg["run_id"])


def run_id_of(cfg, output_dir) -> str:
    """The name of the run (or sweep job) writing to ``output_dir`` within its experiment:
    ``run_id``, or ``run_id/<job number>`` for a sweep's job."""
    root = Path(str(cfg["results_dir"])) / str(cfg["name"])
    try:
        return str(Path(output_dir).resolve().relative_to(root.resolve()))
    except ValueError:
        return Path(output_dir).name


def _resolve_run_dir(*, _root_) -> str:
    return str(run_dir(_root_))


if not OmegaConf.has_resolver("svmlab_run_dir"):
    OmegaConf.register_new_resolver("svmlab_run_dir", _resolve_run_dir)


def _config_file(group: str, name: str, sources) -> dict | None:
    """The config file ``<group>/<name>.yaml`` alone, from the first config source (svmlab's
    ``conf/`` or a ``--config-dir``) holding it; None when no file source has it."""
    for source in sources or ():
        if source.get("schema") != "file":
            continue
        path = Path(str(source["path"])) / group / f"{name}.yaml"
        if path.is_file():
            loaded = OmegaConf.to_container(OmegaConf.load(path), resolve=False)
            return loaded if isinstance(loaded, dict) else None
    return None


def _merged(a, b):
    """``b`` merged into ``a`` (mappings key by key; anything else: ``b`` wins)."""
    if not isinstance(a, dict) or not isinstance(b, dict):
        return b if b is not None else a
    return {**a, **{k: _merged(a.get(k), v) for k, v in b.items()}}


def _override_tree(overrides) -> dict:
    """The command line's ``key.path=value`` overrides as nested mappings (deletions left
    out): what the command line wrote, place by place."""
    from hydra.core.override_parser.overrides_parser import OverridesParser

    tree: dict = {}
    for override in OverridesParser.create().parse_overrides(list(overrides or ())):
        if override.is_delete() or override.is_sweep_override():
            continue
        *parents, leaf = override.key_or_group.split(".")
        node = tree
        for part in parents:  # a group choice (solver=miboost) gives way to a mapping
            if not isinstance(node.get(part), dict):
                node[part] = {}
            node = node[part]
        node[leaf] = _merged(node.get(leaf), override.value())
    return tree


def with_replaced_estimators(container: dict, hydra: Mapping) -> dict:
    """``container`` with every solver's nested estimators under svmlab's replacement rule.

    Parameters
    ----------
    container : dict
        The composed configuration, resolved, as plain containers.
    hydra : mapping
        Hydra's node of that composition (``HydraConfig.get()`` in a run, ``cfg.hydra`` of
        ``compose(..., return_hydra_config=True)``): its ``runtime.choices`` name the solver
        file of each entry and the experiment, ``runtime.config_sources`` where the files
        are, ``overrides.task`` what the command line wrote.

    Returns
    -------
    dict
        The same configuration; a solver entry whose nested estimator names another
        ``_target_`` than its file keeps only what the experiment and the command line gave
        it (:func:`svmlab.solvers.replace_retargeted`).
    """
    runtime = hydra["runtime"]
    choices = dict(runtime["choices"] or {})
    sources = [dict(s) for s in runtime["config_sources"] or ()]
    experiment = choices.get("experiment")
    layers = _merged(
        _config_file("experiment", str(experiment), sources) if experiment else {},
        _override_tree(hydra["overrides"]["task"]),
    )
    out = dict(container)
    primary = container.get("solver")
    primary_file = _config_file("solver", str(choices.get("solver")), sources)
    primary_given = layers.get("solver")
    if isinstance(primary, dict) and primary_file is not None:
        out["solver"] = replace_retargeted(primary, primary_file, primary_given)
    entries = container.get("solvers") or {}
    given = layers.get("solvers") if isinstance(layers.get("solvers"), dict) else {}
    if entries:
        out["solvers"] = {}
        for key, entry in entries.items():
            choice = choices.get(f"{_ENTRY}{key}")
            base = _config_file("solver", str(choice), sources) if choice else None
            mine = given.get(key)
            if base is None and entry == primary:  # an entry `${solver}`
                base, mine = primary_file, primary_given
            fixed = isinstance(entry, dict) and base is not None
            out["solvers"][key] = replace_retargeted(entry, base, mine) if fixed else entry
    return out


def compose(overrides: list[str], *, config_dir: str | Path | None = None) -> tuple[dict, dict]:
    """The configuration ``svmlab run OVERRIDES`` would run, composed without running it.

    Returns
    -------
    config : dict
        The resolved configuration, as plain containers, with svmlab's rule for replaced
        nested estimators applied (:func:`with_replaced_estimators`) - what the job gets.
    hydra : dict
        Hydra's node of the composition (``runtime.choices``, ``runtime.config_sources``,
        ``overrides``), unresolved: its run directory depends on the job.

    Raises
    ------
    ConfigError
        What Hydra could not compose, in one line (:func:`hydra_error_line`).
    """
    from hydra import compose as hydra_compose
    from hydra import initialize_config_dir
    from omegaconf import open_dict

    from svmlab.paths import conf_dir

    folder = Path(config_dir) if config_dir is not None else conf_dir()
    try:
        with initialize_config_dir(config_dir=str(folder.absolute()), version_base="1.3"):
            cfg = hydra_compose("config", overrides=list(overrides), return_hydra_config=True)
        hydra = OmegaConf.to_container(cfg.hydra, resolve=False)
        with open_dict(cfg):
            del cfg["hydra"]
        return with_replaced_estimators(OmegaConf.to_container(cfg, resolve=True), hydra), hydra
    except HYDRA_ERRORS as exc:
        raise ConfigError(hydra_error_line(exc)) from None


# -- Hydra's own errors as one line ------------------------------------------------------------


def yaml_error_line(exc, path=None) -> str:
    """``FILE, line N: problem`` of a YAML parse error."""
    mark = getattr(exc, "problem_mark", None)
    where = str(path or getattr(mark, "name", "") or "a config file")
    if mark is not None:
        where += f", line {mark.line + 1}, column {mark.column + 1}"
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    context = getattr(exc, "context", None)
    return f"{where}: not valid YAML ({problem}{f', {context}' if context else ''})"


def omegaconf_error_line(exc, key: str | None = None) -> str:
    """An OmegaConf error (an interpolation that does not resolve, a value of the wrong type)
    in one line naming the setting (``key`` when the error does not say)."""
    first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    key = getattr(exc, "full_key", None) or key
    return f"setting {key}: {first}" if key else first


def _one_line(text: str, limit: int = 400) -> str:
    skip = ("See https://", "Set the environment variable HYDRA_FULL_ERROR")
    lines = [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.startswith(skip)]
    line = " ".join(lines)
    return line if len(line) <= limit else line[: limit - 3] + "..."


def hydra_error_line(exc: BaseException) -> str:
    """The one line svmlab prints for an error Hydra raises (a key the configuration does
    not have, a config file that cannot be read or found, a bad value): what was given and
    what to do."""
    import yaml
    from hydra.errors import MissingConfigException

    if isinstance(exc, yaml.YAMLError):
        return yaml_error_line(exc)
    if isinstance(exc, OmegaConfBaseException):
        return omegaconf_error_line(exc)
    text = str(exc)
    if isinstance(exc, MissingConfigException):
        options = list(exc.options or [])
        shown = ", ".join(options[:12]) + (" ..." if len(options) > 12 else "")
        return _one_line(text.split("\n\n")[0]) + (f"; available: {shown}" if options else "")
    lines = text.splitlines()
    if len(lines) > 1 and lines[0].startswith("Could not override '") and "+" in lines[1]:
        key = lines[0].split("'")[1]
        hint = lines[1].split(" use ")[-1]
        return (
            f"unknown setting {key}: the configuration has no such key (svmlab run --cfg job "
            f"shows them); {hint} would add it"
        )
    if lines and lines[0].startswith("Ambiguous value for argument '"):
        given = lines[0].split("'", 1)[1].rstrip("'")
        return (
            f"{given}: a comma makes a sweep, which needs -m (svmlab run -m ...); a list is "
            "written [a,b], a text with a comma is quoted"
        )
    cause = exc.__cause__
    tail = f" ({omegaconf_error_line(cause)})" if isinstance(cause, OmegaConfBaseException) else ""
    return _one_line(text) + tail
