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
        info = registry.dataset_info(args.name)
        width = max(len(k) for k in info)
        for k, v in info.items():
            print(f"{k.ljust(width)}  {v}")
        return 0
    if args.data_command == "verify":
        results = registry.verify(args.names or None)
        bad = 0
        for name, status, message in results:
            print(f"{status:<12} {name:<28} {message}")
            bad += status not in (
                "ok",
                "unavailable",
                "unsupported",
                "builtin",
                "synthetic",
                "missing",
            )
        print(f"svmlab: {len(results)} checked, {bad} problem(s)", file=sys.stderr)
        return 1 if bad else 0
    return _fetch(args.names)


def _fetch(names: list[str]) -> int:
    """Fetch every named dataset; one line per failure, and exit status 2 if any failed."""
    from svmlab.data.registry import fetch

    failed = []
    for name in names:
        try:
            print(f"{name}: {fetch(name)}")
        except SvmlabError as exc:
            failed.append(name)
            print(f"svmlab: error: {name}: {exc}", file=sys.stderr)
    if failed:
        print(
            f"svmlab: {len(failed)} of {len(names)} dataset(s) not fetched: {', '.join(failed)}",
            file=sys.stderr,
        )
        return 2
    return 0
