"""The argument parser of ``svmlab``: one sub-parser per command (``run`` is Hydra's)."""

from __future__ import annotations

import argparse
from pathlib import Path

from svmlab import __version__

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
  data      the benchmark files: list, info, verify, fetch NAME|--experiment E|--document P|--all
  reproduce every experiment of a seed document, and one Markdown + HTML report of it
              svmlab reproduce --list
              svmlab reproduce melki2018 --quick         # its quick profiles only
              svmlab reproduce svmperf --no-run          # report on the runs that exist
  pack      a copy of a run with its task rows in one file per schema, to commit or move;
            the copy is a run directory: reports read it and the run resumes from it
              svmlab pack results/*/reproduce --into docs/reproductions/runs

Data files are looked up in $SVMLAB_DATA_DIR (colon-separated), the checkout's
datasets/, then the user cache; `svmlab data fetch` downloads and verifies them.
"""


class Parser(argparse.ArgumentParser):
    """argparse with svmlab's error format: one line naming the problem, exit status 2 (the
    usage block would bury it; ``--help`` shows it)."""

    def error(self, message: str):
        self.exit(2, f"svmlab: error: {message} (see {self.prog} --help)\n")


def significance_level(text: str) -> float:
    """``--alpha`` / ``--bd-alpha`` of ``report`` and ``stats``: a level 0 < level < 1."""
    try:
        level = float(text)
    except ValueError:
        level = float("nan")
    if not 0.0 < level < 1.0:
        raise argparse.ArgumentTypeError(
            f"{text} is not a significance level; give a number with 0 < level < 1"
        )
    return level


def path_argument(text: str) -> Path:
    """A path argument the file system can hold: each name within its bytes per name (255 on
    most), so that looking it up or creating it cannot fail half-way."""
    from svmlab.paths import shortened, too_long

    why = too_long(text)
    if why is not None:
        raise argparse.ArgumentTypeError(f"{shortened(text)}: {why}")
    return Path(text)


#: Bytes a ``stats --name`` may have: it is the stem of file names with suffixes of up to
#: about 40 bytes (``_pvalues_nemenyi_bonferroni.tiff``), within 255 bytes per name.
LABEL_MAX = 200


def file_label(text: str) -> str:
    """``stats --name``: a label that is also the stem of file names, so one name (no ``/``)
    of at most :data:`LABEL_MAX` bytes."""
    if not text.strip() or "/" in text or "\0" in text or text.strip() in (".", ".."):
        raise argparse.ArgumentTypeError(
            f"{text!r} cannot name files; give a name without / (e.g. --name accuracy)"
        )
    if len(text.encode()) > LABEL_MAX:
        raise argparse.ArgumentTypeError(
            f"{text[:40]!r}... has {len(text.encode())} bytes; a name of files has at most "
            f"{LABEL_MAX}"
        )
    return text


def build_parser() -> argparse.ArgumentParser:
    p = Parser(
        prog="svmlab",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--version", action="version", version=f"svmlab {__version__}")
    sub = p.add_subparsers(dest="command", metavar="{run,report,stats,list,data,reproduce,pack}")
    sub.add_parser("run", help="run an experiment (Hydra overrides follow)", add_help=False)

    _add_report(sub)
    _add_stats(sub)
    _add_list(sub)
    _add_data(sub)
    _add_reproduce(sub)
    _add_pack(sub)
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
        "run_dir",
        type=path_argument,
        help="a run directory (with run.json) or a directory of runs (a sweep)",
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
        "--output", "-o", type=path_argument, help="write to this file instead of standard output"
    )
    r.add_argument(
        "--no-stats", action="store_true", help="only the summary tables, no rank tests or figures"
    )
    r.add_argument(
        "--figures-dir", type=path_argument, help="where figures go (default: RUN_DIR/report)"
    )
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
    st.add_argument("table", type=path_argument, help="CSV or Parquet file")
    st.add_argument(
        "--metric-direction",
        "-d",
        default="higher",
        choices=("higher", "lower", "max", "min"),
        help="whether higher (default) or lower values are better",
    )
    st.add_argument(
        "--name",
        type=file_label,
        help="label for titles and file names (default: the file's stem)",
    )
    st.add_argument("--format", "-f", choices=("markdown", "csv", "latex"), default="markdown")
    st.add_argument(
        "--output-dir",
        "-o",
        type=path_argument,
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
        "  svmlab data verify            # checksum every local file\n"
        "  svmlab data fetch --document oliveira",
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
        "fetch",
        help="download dataset files into the user cache, verifying the checksum",
        description="Download the missing files of datasets, of experiments or of every study\n"
        "of a document into the user cache, verifying each sha256. Prints a line per\n"
        "download and one per file it could not get; exit status 2 when a needed file\n"
        "is still missing.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n  svmlab data fetch --document oliveira\n"
        "  svmlab data fetch --experiment lssvm_bench,svmperf_bench\n"
        "  svmlab data fetch german_numer\n  svmlab data fetch --all",
    )
    fe.add_argument("names", nargs="*", metavar="NAME", help="datasets (registry names)")
    fe.add_argument("--experiment", metavar="NAME[,NAME]", help="every dataset of experiments")
    fe.add_argument("--document", metavar="PAPER", help="every study of a document")
    fe.add_argument("--quick", action="store_true", help="with --document: its quick profiles")
    fe.add_argument("--all", action="store_true", help="every registered file")


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
        "  svmlab reproduce mierswa2009 --only evosvm_bench,evosvm_nonpsd\n"
        "  svmlab reproduce melki2018 --only mtr_bench --order folds   # time-boxed: every set",
    )
    r.add_argument("paper", nargs="?", help="the document (see --list)")
    r.add_argument(
        "--list",
        action="store_true",
        help="the documents and their experiments (only PAPER's when one is named)",
    )
    r.add_argument(
        "--quick",
        action="store_true",
        help="the quick profiles; experiments without one are skipped (the report says so)",
    )
    r.add_argument(
        "--results-dir", type=path_argument, default=Path("results"), help="runs go here (results)"
    )
    r.add_argument(
        "--out", type=path_argument, help="where the reports go (default: RESULTS_DIR/reproduce)"
    )
    r.add_argument(
        "--no-run", action="store_true", help="run nothing; report on the runs that exist"
    )
    r.add_argument(
        "--only",
        metavar="EXPERIMENT[,EXPERIMENT...]",
        help="only these studies (their full experiment names, see --list); the report names "
        "the studies left out",
    )
    r.add_argument(
        "--order",
        choices=("datasets", "folds", "solvers"),
        default="datasets",
        help="the order the tasks run in (runner.order): 'datasets' finishes one dataset "
        "after another; 'folds' runs the first fold (split) of every dataset and method, then "
        "the second, ... so that a run stopped early covers every dataset on fewer folds; "
        "'solvers' finishes one method after another (in the experiment's order, each in fold "
        "order), so that a run stopped early has whole columns for the methods listed first. "
        "Every order resumes the others' runs; with 'folds' and 'solvers' tasks are sent one at "
        "a time (more overhead on tasks of milliseconds) (default: datasets)",
    )


def _add_pack(sub) -> None:
    """``svmlab pack``: run directories packed for keeping (:mod:`svmlab.runner.pack`)."""
    r = sub.add_parser(
        "pack",
        help="copy runs with their task rows in one file per schema, to commit or move",
        description="Write a copy of each run directory into INTO/<experiment>/<its folder "
        "name>: its run.json and config.yaml, and the rows of its finished tasks "
        "in one Parquet file per row schema instead of one file per task. The "
        "copy is a run directory: `svmlab report` and `svmlab reproduce --no-run`"
        " read it, and the same experiment resumes from it (copy it back under "
        "--results-dir / results_dir). A run may still be going: the copy holds "
        "the tasks finished when it was read. An earlier packed copy at the "
        "destination is replaced whole, unless it holds tasks the run lacks (see "
        "--replace); any other directory there is refused. A sweep folder (Hydra's "
        "multirun.yaml and the runs 0/, 1/, ...) packs each of its runs into "
        "INTO/<experiment>/<sweep folder name>/<n>.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n  svmlab pack results/*/reproduce --into docs/reproductions/runs\n"
        "  cp -r docs/reproductions/runs/. results/   # a fresh clone: resume the kept runs",
    )
    r.add_argument(
        "run_dirs", nargs="+", type=path_argument, metavar="RUN_DIR", help="run directories"
    )
    r.add_argument("--into", type=path_argument, required=True, help="the folder of packed runs")
    r.add_argument(
        "--replace",
        action="store_true",
        help="replace a packed copy even if it holds tasks the run has not finished (by "
        "default refused: resume the run from a copy of the packed one first)",
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
                      |I| min p_I (exact for k <= 9 methods; --bergmann-hommel)
  wilcoxon_holm       Wilcoxon signed-rank p of each pair, Holm-adjusted (Oliveira 2021, Ch. 5)
"""


def _stats_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("statistics", STATS_PROCEDURES)
    g.add_argument(
        "--control", help="method the others are compared with (default: best average rank)"
    )
    g.add_argument(
        "--alpha",
        type=significance_level,
        default=0.05,
        help="significance level of Holm, Wilcoxon and Nemenyi (0.05)",
    )
    g.add_argument(
        "--bd-alpha",
        type=significance_level,
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
        "--bergmann-hommel",
        choices=("exhaustive", "monotone"),
        default="exhaustive",
        help="the bergmann table's adjusted p: the max over the exhaustive sets as Garcia & "
        "Herrera (2008) define it, not always monotone in the unadjusted p (default), or that "
        "made non-decreasing in the unadjusted p (monotone, as scmamp prints it)",
    )
    g.add_argument(
        "--figures",
        nargs="*",
        default=["png"],
        metavar="FMT",
        help="figure formats, e.g. png pdf svg eps (default: png; none: no figures)",
    )
