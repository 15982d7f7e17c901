"""``svmlab list`` and ``svmlab data``: the names svmlab accepts and the benchmark files."""

from __future__ import annotations

import sys

from svmlab.cli._common import table
from svmlab.errors import SvmlabError


def config_options(group: str) -> list[dict]:
    """The options of a Hydra config group, with the first comment line as description."""
    import yaml

    from svmlab.paths import conf_dir

    rows = []
    for path in sorted((conf_dir() / group).glob("*.yaml")):
        text = path.read_text()
        cfg = yaml.safe_load(text) or {}
        desc = cfg.get("description") if isinstance(cfg, dict) else None
        if not desc:
            comments = [
                ln.lstrip("# ").strip()
                for ln in text.splitlines()
                if ln.startswith("#") and "@package" not in ln
            ]
            desc = comments[0] if comments else ""
        rows.append({"name": path.stem, "description": desc, "cfg": cfg})
    return rows


def list_names(what: str) -> int:
    """``svmlab list WHAT``: one table of names with a description each."""
    if what == "datasets":
        from svmlab.data.registry import list_datasets

        rows = list_datasets()
        names = ("name", "task", "rows", "bags", "features", "targets", "classes", "status")
        print(table(rows, [c for c in names if any(c in r for r in rows)]))
    elif what == "metrics":
        from svmlab.evaluation.metrics import METRICS

        rows = [
            {
                "name": m.name,
                "better": "higher" if m.direction == "max" else "lower",
                "tasks": ",".join(m.tasks),
                "description": m.description,
            }
            for m in METRICS.values()
        ]
        print(table(rows, ["name", "better", "tasks", "description"]))
    else:
        group = {
            "solvers": "solver",
            "protocols": "protocol",
            "experiments": "experiment",
            "runners": "runner",
        }[what]
        rows = config_options(group)
        if what == "solvers":
            for r in rows:
                r["tasks"] = ",".join(r["cfg"].get("tasks") or ["any"])
                r["target"] = r["cfg"].get("_target_", "")
            print(table(rows, ["name", "tasks", "target", "description"]))
        else:
            print(table(rows, ["name", "description"]))
    return 0


def data(args) -> int:
    """``svmlab data list|info|verify|fetch``; returns the exit status."""
    from svmlab.data import registry

    if args.data_command == "list":
        rows = registry.list_datasets()
        for r in rows:
            why = r.get("unavailable_reason") or ""
            r["note"] = why if len(why) <= 70 else why[:67] + "..."
        names = ("name", "task", "format", "rows", "bags", "features", "targets", "classes")
        names += ("status", "location", "note")
        print(table(rows, [c for c in names if any(r.get(c) for r in rows)]))
        return 0
    if args.data_command == "info":
        from svmlab.data.findings import duplicates_text

        info = registry.dataset_info(args.name)
        info["duplicates"] = duplicates_text(args.name)
        width = max(len(k) for k in info)
        for k, v in info.items():
            print(f"{k.ljust(width)}  {v}")
        return 0
    if args.data_command == "verify":
        return _verify(args.names or None)
    return _fetch(args)


def _verify(names: list[str] | None) -> int:
    """``svmlab data verify``: a line per dataset as it is checked, a ``duplicates`` line per
    dataset with duplicated rows or bags, then the counts; exit status 1 on problems.

    A registered file that is not here is a problem when it can be fetched (``missing``);
    one without a download source (``no source``, to be copied in by hand) and the datasets
    documented as not obtainable (``unavailable``) are counted apart and are not problems.
    Duplicates, even with conflicting labels, are findings, not problems: the published files
    are what the papers used (docs/decisions/data.md).
    """
    from svmlab.data import registry
    from svmlab.data.findings import dataset_duplicates
    from svmlab.data.prefetch import has_download_source, needed_files

    results, findings = [], {}
    for name, status, message, dataset in registry.verify_iter(names):
        files = needed_files([name])[0]  # a joined set's parts
        if status == "missing" and not all(
            has_download_source(registry.registry_entry(f)) for f in files
        ):
            status = "no source"
        results.append((name, status, message))
        print(f"{status:<12} {name:<28} {message}", flush=True)
        found = dataset_duplicates(name, dataset) if dataset is not None else None
        if found is not None and found.groups:
            findings[name] = found
            print(f"{'duplicates':<12} {name:<28} {found.describe()}", flush=True)
    print(f"svmlab: {verify_summary(results, findings)}", file=sys.stderr)
    return 1 if any(status in PROBLEMS for _, status, _ in results) else 0


#: Statuses of ``svmlab data verify`` that are problems (exit status 1).
PROBLEMS = ("missing", "checksum", "error", "mismatch")


def verify_summary(results: list[tuple[str, str, str]], findings: dict | None = None) -> str:
    """``237 checked: 230 ok, 2 missing (svmlab data fetch a b), 5 not obtainable; 2
    problem(s)`` -- every status that occurs, counted, and the command that fetches the
    missing files; then, when ``findings`` (``{name: Duplicates}``) has any, ``; 3 with
    duplicated rows or bags, 1 of them conflicting (not problems)``."""
    counts: dict[str, int] = {}
    for _, status, _ in results:
        counts[status] = counts.get(status, 0) + 1
    missing = [name for name, status, _ in results if status == "missing"]
    words = {
        "no source": "without a download source (copy them in by hand)",
        "unavailable": "not obtainable",
        "checksum": "checksum mismatch",
    }
    parts = []
    for status in ("ok", "missing", "checksum", "mismatch", "error", "unsupported", "no source"):
        if counts.get(status):
            parts.append(f"{counts[status]} {words.get(status, status)}")
            if status == "missing":
                command = " ".join(missing) if len(missing) <= 5 else "--all"
                parts[-1] += f" (svmlab data fetch {command})"
    text = f"{len(results)} checked: {', '.join(parts) or 'nothing'}"
    if counts.get("unavailable"):
        text += f", {counts['unavailable']} not obtainable"
    problems = sum(counts.get(s, 0) for s in PROBLEMS)
    text = f"{text}; {problems} problem(s)"
    if findings:
        conflicting = sum(1 for found in findings.values() if found.conflicting)
        text += (
            f"; {len(findings)} with duplicated rows or bags, {conflicting} of them "
            "conflicting (not problems)"
        )
    return text


def _fetch(args) -> int:
    """``svmlab data fetch``: the files of named datasets, of experiments, of a document's
    studies or of the whole registry; exit status 2 when a needed file is still missing."""
    check_fetch_args(args)
    if args.names:
        return _fetch_names(args.names)
    if args.experiment is not None:
        names = [n.strip() for n in args.experiment.split(",") if n.strip()]
        if not names:
            raise SvmlabError("--experiment is empty; name one or more (svmlab list experiments)")
        for name in names:  # a typo fetches nothing: one line, the valid names
            check_experiment(name)
        studies = [(n, ()) for n in names]
    elif args.document is not None:
        studies = document_studies(args.document, quick=args.quick)
    else:  # --all
        from svmlab.data import registry

        return fetch_datasets([r["name"] for r in registry.list_datasets()], {})
    return fetch_for_studies(studies)


def check_fetch_args(args) -> None:
    """Exactly one of NAME..., --experiment, --document, --all; --quick only with --document."""
    chosen = [
        flag
        for flag, given in (
            ("NAME...", bool(args.names)),
            ("--experiment", args.experiment is not None),
            ("--document", args.document is not None),
            ("--all", args.all),
        )
        if given
    ]
    if len(chosen) != 1:
        which = " and ".join(chosen) if chosen else "nothing"
        raise SvmlabError(
            f"svmlab data fetch takes one of NAME..., --experiment NAME[,NAME], --document "
            f"PAPER or --all (got {which})"
        )
    if args.quick and args.document is None:
        raise SvmlabError("--quick chooses the quick profiles of --document PAPER; give one")


def document_studies(paper_name: str, *, quick: bool = False) -> list[tuple[str, tuple]]:
    """``(experiment, overrides)`` of every study of a document (:func:`study_experiments`)."""
    from svmlab.reproduce.papers import get_paper

    return study_experiments(get_paper(paper_name).studies, quick=quick)


def study_experiments(studies, *, quick: bool = False) -> list[tuple[str, tuple]]:
    """``(experiment, overrides)`` of each study (its quick profile with ``quick``; a study
    without one is left out). A sweep's overrides (``-m``) are dropped: they vary
    parameters, not data."""
    out = []
    for study in studies:
        name = study.experiment(quick)
        if name is not None:
            sweep = any(o.startswith("-") for o in study.overrides)
            out.append((name, () if sweep else tuple(study.overrides)))
    return out


def study_datasets(experiment: str, overrides=()) -> tuple[list[str], list[str]]:
    """``(datasets, unavailable)`` of an experiment, from the configuration the runner
    composes (``+experiment=NAME`` and the study's overrides)."""
    from svmlab.config import compose
    from svmlab.data.prefetch import config_datasets

    check_experiment(experiment)
    cfg, _ = compose([f"+experiment={experiment}", *overrides])
    return config_datasets(cfg)


def check_experiment(name: str) -> None:
    """Raise :class:`UnknownNameError` (the valid names) unless ``name`` is an experiment."""
    from svmlab.errors import UnknownNameError
    from svmlab.paths import conf_dir

    options = {p.stem for p in (conf_dir() / "experiment").glob("*.yaml")}
    if name not in options:
        raise UnknownNameError("experiment", name, options)


def fetch_for_studies(studies, *, say=None) -> int:
    """Fetch every file the studies need, all at once; the outcome on standard error.

    Parameters
    ----------
    studies : list of (experiment, overrides)
    say : callable, optional
        Receives each line (default: ``svmlab: ...`` on standard error).

    Returns
    -------
    int
        0, or 2 when a needed file is still missing (datasets documented as not obtainable
        are named once and do not count).
    """
    from svmlab.data import registry

    say = say or _say
    names: dict[str, None] = {}
    unobtainable: dict[str, str] = {}
    unread = []
    for experiment, overrides in studies:
        try:
            runs, unavailable = study_datasets(experiment, overrides)
        except SvmlabError as exc:  # the other studies' files are still fetched
            unread.append(experiment)
            say(f"error: the datasets of experiment {experiment!r} are unknown: {exc}")
            continue
        names.update(dict.fromkeys(runs))
        for name in unavailable:
            reason = registry.registry_entry(name).get("unavailable_reason") or "not obtainable"
            unobtainable.setdefault(registry.resolve(name), reason)
    code = fetch_datasets(list(names), unobtainable, say=say)
    return 2 if unread else code


def fetch_datasets(names: list[str], unobtainable: dict[str, str], *, say=None) -> int:
    """Fetch the files of ``names`` (progress and one line per failure); 2 if any is missing."""
    from svmlab.data.prefetch import MISSING, needed_files, prefetch, summary_lines

    say = say or _say
    files, more = needed_files(names)
    outcomes = prefetch(files, say=say)
    for line in summary_lines(outcomes, {**unobtainable, **more}):
        say(line)
    return 2 if any(o.status == MISSING for o in outcomes) else 0


def _say(line: str) -> None:
    print(f"svmlab: {line}", file=sys.stderr, flush=True)


def _fetch_names(names: list[str]) -> int:
    """``svmlab data fetch NAME...``: each file's path on standard output; a name that is not
    in the registry, that is documented as not obtainable or whose file could not be had is
    one line, and the last line counts them (exit status 2). The count of files is said only
    when a file was needed."""
    from svmlab.data import registry
    from svmlab.data.prefetch import MISSING, needed_files, prefetch, summary_lines

    failed, needs = [], {}
    for name in names:
        try:
            needs[name] = needed_files([registry.resolve(name)])  # (files, unobtainable)
        except SvmlabError as exc:
            failed.append(name)
            _say(f"error: {name}: {exc}")
    files = list(dict.fromkeys(f for parts, _ in needs.values() for f in parts))
    unobtainable = {k: v for _, gone in needs.values() for k, v in gone.items()}
    outcomes = prefetch(files)
    for name, (parts, gone) in needs.items():
        if not parts and not gone:
            _say(f"{name}: {registry.registry_entry(name)['source']} data, no file to fetch")
    for outcome in outcomes:
        if outcome.status != MISSING:
            print(f"{outcome.dataset}: {outcome.detail}")
    lines = summary_lines(outcomes, unobtainable)
    for line in lines if files else lines[1:]:  # no bare "0 file(s) needed" line
        _say(line)
    missing = {o.dataset for o in outcomes if o.status == MISSING}
    failed += [n for n, (parts, gone) in needs.items() if gone or missing.intersection(parts)]
    failed = [n for n in dict.fromkeys(names) if n in failed]  # in the order given
    if failed:
        _say(f"{len(failed)} of {len(names)} dataset(s) not fetched: {', '.join(failed)}")
        return 2
    return 0
