"""The ``svmlab`` command line: run, report, list, data."""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
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
  report    summary tables of a finished (or running, or killed) run or sweep, with the
            Friedman / post-hoc / Wilcoxon tables and figures for each metric
  stats     the same statistics for any dataset x method table (CSV or Parquet)
  list      the names you can use: datasets, solvers, protocols, experiments, runners, metrics
  data      the benchmark files: list, info NAME, verify [NAME...], fetch NAME...
  reproduce every experiment of a seed document, and one Markdown + HTML report of it
              svmlab reproduce --list
              svmlab reproduce melki2018 --quick         # its quick profiles only
              svmlab reproduce svmperf --no-run          # report on the runs that exist

Data files are looked up in $SVMLAB_DATA_DIR (colon-separated), the checkout's
datasets/, then the user cache; `svmlab data fetch` downloads and verifies them.
"""


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="svmlab",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--version", action="version", version=f"svmlab {__version__}")
    sub = p.add_subparsers(dest="command", metavar="{run,report,stats,list,data,reproduce}")
    sub.add_parser("run", help="run an experiment (Hydra overrides follow)", add_help=False)

    _add_report(sub)
    _add_stats(sub)
    _add_list(sub)
    _add_data(sub)
    _add_reproduce(sub)
    return p


def _add_report(sub) -> None:
    """``svmlab report``: summary tables of a run or sweep."""
    r = sub.add_parser(
        "report",
        help="summary tables of a run or sweep",
        description="Summarise a run directory (or a sweep directory holding several runs): one "
        "table of mean ± std per dataset x method for each metric, best value in bold.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n  svmlab report results/quickstart/2026-01-01_12-00-00\n"
        "  svmlab report results/mirsvm_bench/run1 --metric accuracy kappa --aggregate pooled\n"
        "  svmlab report RUN_DIR --format latex --output table.tex",
    )
    r.add_argument(
        "run_dir", help="a run directory (with run.json) or a directory of runs (a sweep)"
    )
    r.add_argument(
        "--metric",
        "-m",
        nargs="+",
        help="metric(s) to tabulate and test (default: one per task type: "
        "accuracy, rmse, arrmse); see `svmlab list metrics`",
    )
    r.add_argument(
        "--aggregate",
        choices=("mean", "pooled"),
        help="mean over folds or, for confusion-matrix metrics, pooled counts over folds "
        "(default: the experiment's report.aggregate, else mean)",
    )
    r.add_argument("--format", "-f", choices=("markdown", "csv", "latex"), default="markdown")
    r.add_argument(
        "--output", "-o", type=Path, help="write to this file instead of standard output"
    )
    r.add_argument(
        "--no-stats", action="store_true", help="only the summary tables, no rank tests or figures"
    )
    r.add_argument("--figures-dir", type=Path, help="where figures go (default: RUN_DIR/report)")
    _stats_options(r)


def _add_stats(sub) -> None:
    """``svmlab stats``: rank tests, post-hoc tables and figures for a dataset x method table."""
    st = sub.add_parser(
        "stats",
        help="rank tests, post-hoc tables and figures for a dataset x method table",
        description="Compare k methods over N datasets: average ranks, Friedman and "
        "Iman-Davenport (or Friedman aligned ranks, Quade), Bonferroni-Dunn / Holm / Hochberg / "
        "Finner / Hommel / Holland / Li against a control, Wilcoxon, the Nemenyi (two "
        "definitions) / Holm / Shaffer / Bergmann-Hommel all-pairs tables, CD diagrams, the "
        "papers' rank-bar chart and p-value heat maps.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="the table: CSV or Parquet, first column the dataset names, one column per method "
        "(or a tidy file with columns dataset, method, value); rows named Average/Ranks end it.\n"
        "examples:\n  svmlab stats acc.csv\n"
        "  svmlab stats mse.csv --control SVRCC --metric-direction lower --format latex\n"
        "  svmlab stats acc.csv --bd-alpha 0.10 --figures png pdf --output-dir out/",
    )
    st.add_argument("table", type=Path, help="CSV or Parquet file")
    st.add_argument(
        "--metric-direction",
        "-d",
        default="higher",
        choices=("higher", "lower", "max", "min"),
        help="whether higher (default) or lower values are better",
    )
    st.add_argument("--name", help="label for titles and file names (default: the file's stem)")
    st.add_argument("--format", "-f", choices=("markdown", "csv", "latex"), default="markdown")
    st.add_argument(
        "--output-dir",
        "-o",
        type=Path,
        help="write the tables (<name>.md/.tex/.csv) and figures here (default: print the tables, "
        "figures to ./<name>_stats/)",
    )
    _stats_options(st)


def _add_list(sub) -> None:
    """``svmlab list``: the names svmlab accepts."""
    li = sub.add_parser(
        "list",
        help="list datasets, solvers, protocols, experiments, runners or metrics",
        description="List the names svmlab accepts, with a one-line description each.",
    )
    li.add_argument(
        "what", choices=("datasets", "solvers", "protocols", "experiments", "runners", "metrics")
    )


def _add_data(sub) -> None:
    """``svmlab data``: inspect, verify and fetch the benchmark files."""
    d = sub.add_parser(
        "data",
        help="inspect, verify and fetch the benchmark files",
        description="Manage the dataset registry's files.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n  svmlab data list\n  svmlab data info musk1\n"
        "  svmlab data verify            # checksum every local file\n  svmlab data fetch slump",
    )
    dsub = d.add_subparsers(dest="data_command", metavar="{list,info,verify,fetch}", required=True)
    dsub.add_parser(
        "list", help="every registered dataset with its task, size and where it was found"
    )
    info = dsub.add_parser("info", help="everything the registry knows about one dataset")
    info.add_argument("name")
    ver = dsub.add_parser("verify", help="check the sha256 (and counts) of local dataset files")
    ver.add_argument("names", nargs="*", help="datasets to verify (default: all with a file)")
    fe = dsub.add_parser(
        "fetch", help="download dataset files into the user cache, verifying the checksum"
    )
    fe.add_argument("names", nargs="+")


def _add_reproduce(sub) -> None:
    """``svmlab reproduce``: every experiment of a seed document, one report."""
    r = sub.add_parser(
        "reproduce",
        help="run every experiment of a seed document and write one report of it",
        description="Run each experiment that reproduces a document (run_id=reproduce, or "
        "reproduce-quick with --quick; an interrupted call resumes) and write OUT/PAPER.md and "
        "OUT/PAPER.html: per experiment its summary, statistics and the published tables side "
        "by side (the published tests too), then the deviations (mean abs. delta, Spearman "
        "rho, test verdicts that differ, known deviations explained) and the datasets not "
        "obtainable here.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n  svmlab reproduce --list\n  svmlab reproduce melki2018 --quick\n"
        "  svmlab reproduce oliveira --no-run --out reports/\n"
        "  svmlab reproduce mierswa2009 --only evosvm_bench,evosvm_nonpsd",
    )
    r.add_argument("paper", nargs="?", help="the document (see --list)")
    r.add_argument("--list", action="store_true", help="the documents and their experiments")
    r.add_argument(
        "--quick",
        action="store_true",
        help="the quick profiles; experiments without one are skipped (the report says so)",
    )
    r.add_argument(
        "--results-dir", type=Path, default=Path("results"), help="runs go here (results)"
    )
    r.add_argument("--out", type=Path, help="where the reports go (default: RESULTS_DIR/reproduce)")
    r.add_argument(
        "--no-run", action="store_true", help="run nothing; report on the runs that exist"
    )
    r.add_argument(
        "--only",
        metavar="EXPERIMENT[,EXPERIMENT...]",
        help="only these studies (their full experiment names, see --list); the report names "
        "the studies left out",
    )


#: The statistical procedures, each with its definition (the help of the statistics options).
STATS_PROCEDURES = """\
omnibus (--omnibus; the Friedman / Iman-Davenport rows are always printed):
  friedman   Friedman chi2 = 12N/(k(k+1)) [sum R_j^2 - k(k+1)^2/4] on the average ranks R_j
             (1 = best, ties averaged), and Iman-Davenport F = (N-1)chi2 / (N(k-1) - chi2)
  aligned    Friedman aligned ranks: value - dataset mean, all kN ranked together; post hoc on
             the average aligned ranks, SE = sqrt(k(Nk+1)/6)
  quade      Quade F = (N-1)B/(A-B), datasets weighted by the rank of their range; post hoc on
             Quade's T_j, SE = sqrt(k(k+1)(2N+1)(k-1)/(18N(N+1)))
1xN against the control (always printed; z = (R_control - R_i)/SE, SE = sqrt(k(k+1)/(6N)) for
Friedman ranks, two-sided p; m = k-1 comparisons, p ascending, i = 1..m):
  bonferroni Bonferroni-Dunn min(1, m p); the CD q_a SE, q_a = Phi^-1(1 - a/(2m)), flags
             methods better or worse than the control (--bd-alpha)
  holm       step-down (m-i+1) p_(i); the papers' 'Holm p-value' column is the threshold
             alpha/(m-i+1); equal p (tied ranks) keep the column order of the table
  hochberg   step-up (m-i+1) p_(i)        finner   step-down 1-(1-p_(i))^(m/i)
  hommel     closed Simes tests           holland  step-down 1-(1-p_(i))^(m-i+1)
  li         p_(i)/(p_(i) + 1 - p_(m))
all pairs (--pairwise; M = k(k-1)/2 pairs):
  p                   unadjusted z-test p
  nemenyi             the papers' Nemenyi (KEEL, Garcia & Herrera 2008): nemenyi_bonferroni
  nemenyi_bonferroni  min(1, M p)
  nemenyi_tukey       studentized range: P(Q(k, inf) >= sqrt2 |R_i - R_j|/SE) (Demsar 2006;
                      scikit-posthocs), the test behind the Nemenyi CD of the CD diagram
  holm                step-down (M-i+1) p_(i)
  shaffer             Shaffer's static procedure: t_i p_(i), t_i the most hypotheses that can
                      be true with i-1 false
  bergmann            Bergmann-Hommel: max over the exhaustive sets I containing the pair of
                      |I| min p_I (exact for k <= 9 methods)
  wilcoxon_holm       Wilcoxon signed-rank p of each pair, Holm-adjusted (Oliveira 2021, Ch. 5)
"""


def _stats_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("statistics", STATS_PROCEDURES)
    g.add_argument(
        "--control", help="method the others are compared with (default: best average rank)"
    )
    g.add_argument(
        "--alpha",
        type=float,
        default=0.05,
        help="significance level of Holm, Wilcoxon and Nemenyi (0.05)",
    )
    g.add_argument(
        "--bd-alpha",
        type=float,
        help="level of the Bonferroni-Dunn CD (default: --alpha; the MIL study used 0.10)",
    )
    g.add_argument(
        "--tie-correction",
        action="store_true",
        help="tie-correct Friedman's chi2 and Quade's A (scipy does; the papers did not)",
    )
    g.add_argument(
        "--omnibus",
        choices=("friedman", "aligned", "quade"),
        default="friedman",
        help="the omnibus test whose scores the post-hoc tests compare (default: friedman)",
    )
    g.add_argument(
        "--missing",
        choices=("error", "drop"),
        default="error",
        help="missing cells: fail naming them (default) or drop those datasets",
    )
    g.add_argument(
        "--wilcoxon",
        choices=("signed_rank", "rank_sum"),
        default="signed_rank",
        help="paired signed-rank (default) or unpaired rank-sum (HyDR-MI's 'Wilcoxon')",
    )
    g.add_argument(
        "--zero-method",
        choices=("demsar", "zsplit", "wilcox"),
        default="demsar",
        help="zero differences in the signed-rank test: split evenly, one dropped if odd (default, "
        "the papers via KEEL), split all, or drop all",
    )
    g.add_argument(
        "--pairwise",
        nargs="*",
        default=["holm"],
        choices=(
            "p",
            "nemenyi",
            "nemenyi_bonferroni",
            "nemenyi_tukey",
            "holm",
            "shaffer",
            "bergmann",
            "wilcoxon_holm",
        ),
        help="all-pairs p-value tables to print, each with its CD diagram, rank bars and p-value "
        "heat map (default: holm; none with an empty list; definitions above)",
    )
    g.add_argument(
        "--figures",
        nargs="*",
        default=["png"],
        metavar="FMT",
        help="figure formats, e.g. png pdf svg eps (default: png; none: no figures)",
    )


def _stats_kwargs(args) -> dict:
    return {
        "control": args.control,
        "alpha": args.alpha,
        "bd_alpha": args.bd_alpha,
        "tie_correction": args.tie_correction,
        "missing": args.missing,
        "wilcoxon": args.wilcoxon,
        "zero_method": args.zero_method,
        "omnibus": args.omnibus,
        "pairwise": tuple(args.pairwise),
    }


def _figure_formats(args) -> tuple[str, ...]:
    from svmlab.stats.analysis import check_figure_formats

    return check_figure_formats(args.figures)


#: Exit status after Ctrl-C (128 + SIGINT), as shells report an interrupted command.
INTERRUPTED = 130
TERMINATED = 143  # 128 + SIGTERM


class Terminated(KeyboardInterrupt):
    """SIGTERM (a scheduler's or container's stop) ends a command the way Ctrl-C does."""


def _terminate(signum, frame):
    raise Terminated()


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``svmlab`` command; returns the exit status.

    Ctrl-C (status 130) and SIGTERM (status 143) end any command with one line on stderr;
    for ``svmlab run`` the line says that finished tasks are kept and how to resume (every
    finished task is already in its own file, so nothing is lost). The pool's worker
    processes are stopped before the command returns.
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    previous = _on_sigterm(_terminate)
    try:
        if argv and argv[0] == "run":
            from svmlab.app import run

            return run(argv[1:])
        return _dispatch(argv)
    except BrokenPipeError:  # e.g. `svmlab data list | head`
        sys.stderr.close()
        return 0
    except KeyboardInterrupt as exc:
        _on_sigterm(signal.SIG_IGN)  # a second SIGTERM while stopping changes nothing
        _stop_workers()
        if argv and argv[0] == "run":
            hint = "; finished tasks are kept - run the same command again (same run_id) to resume"
        elif argv and argv[0] == "reproduce":
            hint = "; finished tasks are kept - run the same command again to resume"
        else:
            hint = ""
        how = "terminated" if isinstance(exc, Terminated) else "interrupted"
        print(f"svmlab: {how}{hint}", file=sys.stderr)
        return TERMINATED if isinstance(exc, Terminated) else INTERRUPTED
    finally:
        _on_sigterm(previous)


def _on_sigterm(handler):
    """Install a SIGTERM handler (main thread only); returns the previous one."""
    if threading.current_thread() is not threading.main_thread() or handler is None:
        return None
    return signal.signal(signal.SIGTERM, handler)


def _stop_workers() -> None:
    """Kill the local pool's worker processes, if a pool was started."""
    if "joblib" not in sys.modules:
        return
    try:
        from joblib.externals.loky import get_reusable_executor
        from joblib.externals.loky.reusable_executor import _executor

        if _executor is not None:
            get_reusable_executor().shutdown(wait=True, kill_workers=True)
    except Exception:  # already gone: nothing to stop
        pass


def _dispatch(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    if args.command is None:
        _parser().print_help()
        return 0
    try:
        if args.command == "report":
            return _report(args)
        if args.command == "stats":
            return _stats(args)
        if args.command == "list":
            return _list(args.what)
        if args.command == "reproduce":
            return _reproduce(args)
        return _data(args)
    except SvmlabError as exc:
        print(f"svmlab: error: {exc}", file=sys.stderr)
        return 2


def _report(args) -> int:
    from svmlab.report.builder import run_report
    from svmlab.report.render import render

    check_writable(args.output, "--output", directory=False)
    if not args.no_stats:
        check_writable(args.figures_dir, "--figures-dir", directory=True)
    formats = () if args.no_stats else _figure_formats(args)
    report = run_report(
        args.run_dir,
        metric=args.metric,
        aggregate_how=args.aggregate,
        no_stats=args.no_stats,
        out_dir=args.figures_dir,
        formats=formats,
        stats=_stats_kwargs(args),
    )
    from svmlab.runner.trials import trials_section

    trials = trials_section(args.run_dir) if Path(args.run_dir).is_dir() else None
    sections = [trials, *report.sections] if trials is not None else report.sections
    for note in report.notes:
        print(f"svmlab: note: {note}", file=sys.stderr)
    _emit(render(sections, args.format), args.output)
    for path in report.figures:
        print(f"svmlab: figure {path}", file=sys.stderr)
    return 0


def check_writable(path: Path | None, option: str, *, directory: bool) -> None:
    """Fail before any work when ``path`` (a file, or a directory to create files in) cannot
    be written; None (the option not given) passes.

    Raises
    ------
    SvmlabError
        One line naming the option, the path and why.
    """
    if path is None:
        return
    from svmlab.run_checks import can_write_in

    path = Path(path).expanduser().absolute()
    if not directory and path.is_dir():
        raise SvmlabError(f"{option} {path} is a directory; give a file name")
    if directory and path.exists() and not path.is_dir():
        raise SvmlabError(f"{option} {path} is a file, not a directory; give a directory")
    if not directory and path.exists() and not os.access(path, os.W_OK):
        raise SvmlabError(f"{option} {path} is not writable; give another file")
    probe = path if directory else path.parent
    while not probe.exists():
        probe = probe.parent
    if not probe.is_dir():
        raise SvmlabError(f"{option} {path} cannot be created: {probe} is a file")
    if not can_write_in(probe):
        raise SvmlabError(f"{option} {path} cannot be written: {probe} is not writable")


def _reproduce(args) -> int:
    """Run (unless --no-run) and report every experiment of a document."""
    from svmlab.reproduce.papers import PAPERS, get_paper

    if args.list:
        _list_papers(PAPERS)
        return 0
    if not args.paper:
        raise SvmlabError(
            f"svmlab reproduce needs a document: one of {', '.join(PAPERS)} (or --list)"
        )
    from svmlab.report.builder import Entry

    paper = get_paper(args.paper)
    out = args.out or args.results_dir / "reproduce"
    check_writable(out, "--out", directory=True)
    stem = f"{paper.name}-quick" if args.quick else paper.name
    run_id = "reproduce-quick" if args.quick else "reproduce"
    chosen = _chosen_studies(paper, args.only)
    entries = [
        _reproduce_study(s, args, run_id, out / f"{stem}_files")
        if s in chosen
        else Entry(s.part, s.full, None, f"{s.full}: left out (--only)", skipped=True)
        for s in paper.studies
    ]
    from svmlab.report.builder import document

    md, page = document(paper.title + (" (quick profiles)" if args.quick else ""), entries, out)
    _emit(md, out / f"{stem}.md")
    _emit(page, out / f"{stem}.html")
    failed = [e.experiment for e in entries if e.status.startswith(("failed", "no results"))]
    if failed:
        print(
            f"svmlab: {len(failed)} experiment(s) without a full run: {', '.join(failed)}",
            file=sys.stderr,
        )
    return 1 if failed else 0


def _chosen_studies(paper, only: str | None) -> list:
    """The studies ``--only`` names (all without it); an unknown name is one line."""
    if only is None:
        return list(paper.studies)
    by_name = {s.full: s for s in paper.studies}
    names = [n.strip() for n in only.split(",") if n.strip()]
    if not names:
        raise SvmlabError(
            f"--only is empty; give experiments of {paper.name}: {', '.join(by_name)}"
        )
    for name in names:
        if name not in by_name:
            raise UnknownNameError("experiment", name, by_name)
    return [by_name[n] for n in names]


def _list_papers(papers) -> None:
    """``svmlab reproduce --list``: each document, then its studies' full and quick profile."""
    for paper in papers.values():
        print(f"{paper.name}: {paper.title}")
        rows = [
            {"experiment": s.full, "quick": s.quick or "(none)", "part": s.part}
            for s in paper.studies
        ]
        print("  " + _table(rows, ["experiment", "quick", "part"]).replace("\n", "\n  "))


def _reproduce_study(study, args, run_id: str, figures_dir: Path):
    """Run one study of a document (unless --no-run) and build its report entry."""
    from svmlab.paths import conf_dir
    from svmlab.report.builder import Entry, run_report

    name = study.experiment(args.quick)
    if name is None or not (conf_dir() / "experiment" / f"{name}.yaml").exists():
        why = "no quick profile" if name is None else f"conf/experiment/{name}.yaml not found"
        print(f"svmlab: note: {study.full} skipped: {why}", file=sys.stderr)
        return Entry(study.part, study.full, None, f"{study.full}: {why}", skipped=True)
    from svmlab.config import compose
    from svmlab.config import run_dir as run_dir_of

    where = [f"+experiment={name}", f"run_id={run_id}", f"results_dir={args.results_dir}"]
    run_dir = run_dir_of(compose(where)[0])
    status, code = f"run directory {run_dir}", 0
    if not args.no_run:
        from svmlab.app import run

        print(f"svmlab: reproduce: {name} -> {run_dir}", file=sys.stderr)
        flags = [o for o in study.overrides if o.startswith("-")]  # -m: Hydra's flags go first
        rest = [o for o in study.overrides if not o.startswith("-")]
        code = run([*flags, *where, *rest])
        if code:
            status = f"failed (exit status {code}) - {status}; run the command again to resume"
    if not run_dir.is_dir():
        failed = (
            f" (the run ended with exit status {code}; see the messages of svmlab run)"
            if code
            else ""
        )
        return Entry(study.part, name, run_dir, f"no results: {run_dir} does not exist{failed}")
    try:
        report = run_report(run_dir, out_dir=figures_dir / name, stats={"pairwise": ("holm",)})
    except SvmlabError as exc:
        return Entry(study.part, name, run_dir, f"no results: {exc}")
    return Entry(study.part, name, run_dir, status, report)


def _stats(args) -> int:
    from svmlab.report.render import render
    from svmlab.stats.analysis import analyse
    from svmlab.stats.compare import read_table

    name = args.name or args.table.stem
    check_writable(args.output_dir, "--output-dir", directory=True)
    table = read_table(args.table)
    out_dir = args.output_dir or Path(f"{name}_stats")
    cmp, sections, paths = analyse(
        table,
        args.metric_direction,
        name=name,
        out_dir=out_dir,
        formats=_figure_formats(args),
        **_stats_kwargs(args),
    )
    if cmp.degenerate:
        print(f"svmlab: note: no verdict, no figures: {cmp.degenerate}", file=sys.stderr)
    text = render(sections, args.format)
    suffix = {"markdown": "md", "latex": "tex", "csv": "csv"}[args.format]
    _emit(text, args.output_dir / f"{name}.{suffix}" if args.output_dir else None)
    for path in paths:
        print(f"svmlab: figure {path}", file=sys.stderr)
    return 0


def _emit(text: str, output: Path | None) -> None:
    if output:
        try:
            output.parent.mkdir(parents=True, exist_ok=True)
            output.write_text(text)
        except OSError as exc:
            raise SvmlabError(f"cannot write {output}: {exc.strerror or exc}") from None
        print(f"svmlab: wrote {output}", file=sys.stderr)
    else:
        print(text, end="")


def _table(rows: list[dict], columns: list[str]) -> str:
    rows = [{c: "" if r.get(c) is None else r.get(c) for c in columns} for r in rows]
    widths = {
        c: max(len(c), *(len(str(r.get(c, ""))) for r in rows)) if rows else len(c) for c in columns
    }
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
            comments = [
                ln.lstrip("# ").strip()
                for ln in text.splitlines()
                if ln.startswith("#") and "@package" not in ln
            ]
            desc = comments[0] if comments else ""
        rows.append({"name": path.stem, "description": desc, "cfg": cfg})
    return rows


def _list(what: str) -> int:
    if what == "datasets":
        from svmlab.data.registry import list_datasets

        rows = list_datasets()
        print(
            _table(
                rows,
                [
                    c
                    for c in (
                        "name",
                        "task",
                        "rows",
                        "bags",
                        "features",
                        "targets",
                        "classes",
                        "status",
                    )
                    if any(c in r for r in rows)
                ],
            )
        )
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
        print(_table(rows, ["name", "better", "tasks", "description"]))
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
            print(_table(rows, ["name", "tasks", "target", "description"]))
        else:
            print(_table(rows, ["name", "description"]))
    return 0


def _data(args) -> int:
    from svmlab.data import registry

    if args.data_command == "list":
        rows = registry.list_datasets()
        for r in rows:
            why = r.get("unavailable_reason") or ""
            r["note"] = why if len(why) <= 70 else why[:67] + "..."
        print(
            _table(
                rows,
                [
                    c
                    for c in (
                        "name",
                        "task",
                        "format",
                        "rows",
                        "bags",
                        "features",
                        "targets",
                        "classes",
                        "status",
                        "location",
                        "note",
                    )
                    if any(r.get(c) for r in rows)
                ],
            )
        )
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


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
