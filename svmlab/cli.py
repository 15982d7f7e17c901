"""The ``svmlab`` command line: run, report, list, data."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from svmlab import __version__
from svmlab.errors import SvmlabError, UnknownNameError

DESCRIPTION = """\
svmlab - a laboratory for support vector machine research.

Run declarative benchmark experiments (datasets x solvers x folds, configured with
Hydra), store one Parquet row per fold, and summarise the results.
"""

EPILOG = """\
commands:
  run       run an experiment; everything after `run` is Hydra syntax
              svmlab run                                 # the quick-start experiment
              svmlab run +experiment=quickstart runner.n_jobs=2
              svmlab run dataset=wine solver=svc protocol=stratified10
              svmlab run -m solver=svc,linear_svc solver.C=1,10   # a sweep
              svmlab run --help                          # groups, options and the full config
  report    summary tables of a finished (or running, or killed) run or sweep
  list      the names you can use: datasets, solvers, protocols, experiments, runners, metrics
  data      the benchmark files: list, info NAME, verify [NAME...], fetch NAME...

Data files are looked up in $SVMLAB_DATA_DIR (colon-separated), the checkout's
datasets/, then the user cache; `svmlab data fetch` downloads and verifies them.
"""


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="svmlab", description=DESCRIPTION, epilog=EPILOG,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action="version", version=f"svmlab {__version__}")
    sub = p.add_subparsers(dest="command", metavar="{run,report,list,data}")
    sub.add_parser("run", help="run an experiment (Hydra overrides follow)", add_help=False)

    r = sub.add_parser("report", help="summary tables of a run or sweep",
                       description="Summarise a run directory (or a sweep directory holding several runs): one "
                                   "table of mean ± std per dataset x method for each metric, best value in bold.",
                       formatter_class=argparse.RawDescriptionHelpFormatter,
                       epilog="examples:\n  svmlab report results/quickstart/2026-01-01_12-00-00\n"
                              "  svmlab report results/mirsvm_bench/run1 --metric accuracy kappa --aggregate pooled\n"
                              "  svmlab report RUN_DIR --format latex --output table.tex")
    r.add_argument("run_dir", help="a run directory (with run.json) or a directory of runs (a sweep)")
    r.add_argument("--metric", "-m", nargs="+", help="metric(s) to tabulate (default: one per task type: "
                                                      "accuracy, rmse, arrmse); see `svmlab list metrics`")
    r.add_argument("--aggregate", choices=("mean", "pooled"), default="mean",
                   help="mean over folds (default) or, for confusion-matrix metrics, pooled counts over folds")
    r.add_argument("--format", "-f", choices=("markdown", "csv", "latex"), default="markdown")
    r.add_argument("--output", "-o", type=Path, help="write to this file instead of standard output")

    li = sub.add_parser("list", help="list datasets, solvers, protocols, experiments, runners or metrics",
                        description="List the names svmlab accepts, with a one-line description each.")
    li.add_argument("what", choices=("datasets", "solvers", "protocols", "experiments", "runners", "metrics"))

    d = sub.add_parser("data", help="inspect, verify and fetch the benchmark files",
                       description="Manage the dataset registry's files.",
                       formatter_class=argparse.RawDescriptionHelpFormatter,
                       epilog="examples:\n  svmlab data list\n  svmlab data info musk1\n"
                              "  svmlab data verify            # checksum every local file\n  svmlab data fetch slump")
    dsub = d.add_subparsers(dest="data_command", metavar="{list,info,verify,fetch}", required=True)
    dsub.add_parser("list", help="every registered dataset with its task, size and where it was found")
    info = dsub.add_parser("info", help="everything the registry knows about one dataset")
    info.add_argument("name")
    ver = dsub.add_parser("verify", help="check the sha256 (and counts) of local dataset files")
    ver.add_argument("names", nargs="*", help="datasets to verify (default: all with a file)")
    fe = dsub.add_parser("fetch", help="download dataset files into the user cache, verifying the checksum")
    fe.add_argument("names", nargs="+")
    return p


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "run":
        from svmlab.app import run

        return run(argv[1:])
    try:
        return _dispatch(argv)
    except BrokenPipeError:  # e.g. `svmlab data list | head`
        sys.stderr.close()
        return 0


def _dispatch(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    if args.command is None:
        _parser().print_help()
        return 0
    try:
        if args.command == "report":
            return _report(args)
        if args.command == "list":
            return _list(args.what)
        return _data(args)
    except SvmlabError as exc:
        print(f"svmlab: error: {exc}", file=sys.stderr)
        return 2


def _report(args) -> int:
    from svmlab.reporting import build_report, load_results, render

    df = load_results(args.run_dir)
    text = render(build_report(df, args.metric, args.aggregate), args.format)
    if args.output:
        args.output.write_text(text)
        print(f"svmlab: wrote {args.output}", file=sys.stderr)
    else:
        print(text, end="")
    return 0


def _table(rows: list[dict], columns: list[str]) -> str:
    rows = [{c: "" if r.get(c) is None else r.get(c) for c in columns} for r in rows]
    widths = {c: max(len(c), *(len(str(r.get(c, ""))) for r in rows)) if rows else len(c) for c in columns}
    lines = ["  ".join(c.ljust(widths[c]) for c in columns).rstrip()]
    lines.append("  ".join("-" * widths[c] for c in columns))
    lines += ["  ".join(str(r.get(c, "")).ljust(widths[c]) for c in columns).rstrip() for r in rows]
    return "\n".join(lines)


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
            comments = [ln.lstrip("# ").strip() for ln in text.splitlines() if ln.startswith("#") and "@package" not in ln]
            desc = comments[0] if comments else ""
        rows.append({"name": path.stem, "description": desc, "cfg": cfg})
    return rows


def _list(what: str) -> int:
    if what == "datasets":
        from svmlab.data.registry import list_datasets

        rows = list_datasets()
        print(_table(rows, [c for c in ("name", "task", "rows", "bags", "features", "targets", "classes", "status") if any(c in r for r in rows)]))
    elif what == "metrics":
        from svmlab.evaluation.metrics import METRICS

        rows = [{"name": m.name, "better": "higher" if m.direction == "max" else "lower", "tasks": ",".join(m.tasks),
                 "description": m.description} for m in METRICS.values()]
        print(_table(rows, ["name", "better", "tasks", "description"]))
    else:
        group = {"solvers": "solver", "protocols": "protocol", "experiments": "experiment", "runners": "runner"}[what]
        rows = config_options(group)
        if what == "solvers":
            for r in rows:
                r["tasks"] = ",".join(r["cfg"].get("tasks") or ["any"])
                r["target"] = r["cfg"].get("_target_", "")
            print(_table(rows, ["name", "tasks", "target", "description"]))
        else:
            print(_table(rows, ["name", "description"]))
    return 0


def _data(args) -> int:
    from svmlab.data import registry

    if args.data_command == "list":
        rows = registry.list_datasets()
        print(_table(rows, [c for c in ("name", "task", "format", "rows", "bags", "features", "targets", "classes", "status", "location")
                            if any(c in r for r in rows)]))
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
            bad += status not in ("ok", "unavailable", "builtin", "synthetic", "missing")
        print(f"svmlab: {len(results)} checked, {bad} problem(s)", file=sys.stderr)
        return 1 if bad else 0
    from svmlab.data.fetch import fetch

    for name in args.names:
        path = fetch(name)
        print(f"{name}: {path}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
