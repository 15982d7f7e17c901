"""Compare k methods over N datasets: ranks, Friedman, post-hoc tests, Wilcoxon.

:func:`compare` takes a dataset x method table and returns a :class:`Comparison`
holding everything the papers' statistical tables print; ``svmlab.stats.tables``
renders it and ``svmlab.stats.figures`` draws it.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd

from svmlab.errors import StatsInputError, UnknownNameError
from svmlab.stats.bergmann import DEFINITIONS as BERGMANN_HOMMEL_DEFINITIONS
from svmlab.stats.distributions import norm_ppf, studentized_range_ppf
from svmlab.stats.omnibus import (
    Omnibus,
    RankTest,
    friedman,
    friedman_aligned_ranks,
    quade,
)
from svmlab.stats.posthoc import (
    bonferroni_dunn_cd,
    control_comparison,
    nemenyi_cd,
    pairwise_comparison,
)
from svmlab.stats.ranks import average_ranks, rank_table
from svmlab.stats.wilcoxon import rank_sum, signed_rank

DIRECTION_WORDS = {"max": "max", "higher": "max", "min": "min", "lower": "min"}
MISSING_POLICIES = ("error", "drop")
#: Cell texts read as a missing value (besides an empty cell), case-insensitive: pandas' and
#: R's NaN/NA, Weka/KEEL's "?", and the dash of published tables.
MISSING_MARKERS = frozenset({"nan", "na", "n/a", "null", "none", "?", "-", "\u2013", "\u2014"})
WILCOXON_KINDS = ("signed_rank", "rank_sum")
#: First cells of a text table's header row that mark it as a header whatever follows.
HEADER_FIRST_CELLS = frozenset({"dataset", "datasets", "data set", "data sets"})
#: The omnibus tests whose scores the post-hoc tests compare.
OMNIBUS_TESTS = ("friedman", "aligned", "quade")


@dataclass
class Comparison:
    """Everything a Friedman-type comparison of k methods over N datasets produces."""

    table: pd.DataFrame
    direction: str
    ranks: pd.DataFrame
    average_ranks: pd.Series
    omnibus: Omnibus
    control: str
    alpha: float
    bd_alpha: float
    bd_cd: float
    nemenyi_cd: float
    control_table: pd.DataFrame
    dropped_datasets: list[str] = field(default_factory=list)
    wilcoxon: str = "signed_rank"
    metric: str = ""
    omnibus_test: str = "friedman"
    rank_test: RankTest | None = None
    degenerate: str = ""
    bergmann_hommel: str = "exhaustive"

    @property
    def scores(self) -> pd.Series:
        """What the post-hoc tests compare: the average ranks of the chosen omnibus test
        (Friedman ranks, average aligned ranks or Quade's T_j; lower is better)."""
        return self.average_ranks if self.rank_test is None else self.rank_test.scores

    @property
    def score_name(self) -> str:
        """Name of :attr:`scores` for table headers and figure axes."""
        return {"friedman": "rank", "aligned": "aligned rank", "quade": "Quade T"}[
            self.omnibus_test
        ]

    @property
    def n_datasets(self) -> int:
        return self.table.shape[0]

    @property
    def n_methods(self) -> int:
        return self.table.shape[1]

    @property
    def beyond_cd(self) -> list[str]:
        """Methods whose score exceeds the control's by more than the Bonferroni–Dunn CD
        (significantly worse than the control)."""
        limit = self.scores[self.control] + self.bd_cd
        return [m for m, r in self.scores.items() if m != self.control and r > limit]

    @property
    def better_beyond_cd(self) -> list[str]:
        """Methods whose score is below the control's by more than the Bonferroni–Dunn CD
        (significantly better than a control that is not the best)."""
        limit = self.scores[self.control] - self.bd_cd
        return [m for m, r in self.scores.items() if m != self.control and r < limit]

    def pairwise(self, procedures=None) -> dict[str, pd.DataFrame]:
        """NxN p-value matrices of the chosen omnibus test's scores.

        Keys as :func:`svmlab.stats.posthoc.pairwise_comparison`: ``p``, ``nemenyi``
        (= ``nemenyi_bonferroni``), ``nemenyi_tukey``, ``holm``, ``shaffer``,
        ``bergmann`` (k <= 9, by :attr:`bergmann_hommel`'s definition) and
        ``wilcoxon_holm``; only those in ``procedures`` (and ``p``) when it is given.
        """
        test = self.rank_test
        return pairwise_comparison(
            self.table,
            self.average_ranks if test is None else test.scores,
            procedures,
            se=None if test is None else test.se,
            bergmann_hommel=self.bergmann_hommel,
        )


def normalise_direction(direction: str) -> str:
    """Accept max/min or higher/lower (is better)."""
    try:
        return DIRECTION_WORDS[str(direction).lower()]
    except KeyError:
        raise StatsInputError(
            f"direction {direction!r} is not valid; use higher (max) or lower (min)"
        ) from None


def clean_table(table: pd.DataFrame, missing: str = "error") -> tuple[pd.DataFrame, list[str]]:
    """Check a dataset x method table and return it as floats (and the datasets dropped).

    Raises
    ------
    StatsInputError
        For a non-numeric or infinite cell (named by dataset and method), a method with no values,
        missing cells under ``missing="error"``, fewer than 2 methods or datasets.
    """
    if missing not in MISSING_POLICIES:
        raise StatsInputError(
            f"missing={missing!r} is not valid; choose one of {', '.join(MISSING_POLICIES)}"
        )
    if table.columns.duplicated().any():
        raise StatsInputError(
            f"duplicate method columns: {sorted(set(table.columns[table.columns.duplicated()]))}"
        )
    text = table.astype(str).apply(lambda c: c.str.strip().str.lower())
    table = table.mask(text.isin(MISSING_MARKERS))  # "nan", "?", "-": missing, as an empty cell
    numeric = table.apply(pd.to_numeric, errors="coerce").astype(float)
    bad = numeric.isna() & table.notna() & (table.astype(str).apply(lambda c: c.str.strip()) != "")
    if bad.any().any():
        ds, m = next((d, c) for c in bad.columns for d in bad.index if bad.at[d, c])
        raise StatsInputError(
            f"non-numeric value {table.at[ds, m]!r} for dataset {ds!r}, method {m!r}"
        )
    infinite = np.isinf(numeric.to_numpy())
    if infinite.any():
        cells = [
            f"dataset {d!r}, method {m!r} ({numeric.at[d, m]})"
            for j, m in enumerate(numeric.columns)
            for i, d in enumerate(numeric.index)
            if infinite[i, j]
        ]
        raise StatsInputError(
            f"{len(cells)} infinite value(s), which cannot be ranked: {'; '.join(cells[:5])}"
            f"{' ...' if len(cells) > 5 else ''}; fix or remove those cells"
        )
    empty = [m for m in numeric.columns if numeric[m].isna().all()]
    if empty:
        raise StatsInputError(f"method(s) {', '.join(map(str, empty))} have no values at all")
    dropped = []
    holes = numeric.isna()
    if holes.any().any():
        if missing == "error":
            cells = [f"{d}/{m}" for m in holes.columns for d in holes.index if holes.at[d, m]]
            raise StatsInputError(
                f"{len(cells)} missing cell(s): {', '.join(cells[:10])}"
                f"{' ...' if len(cells) > 10 else ''}; use missing='drop' (command line: --missing "
                "drop) to drop those datasets"
            )
        dropped = [str(d) for d in numeric.index[holes.any(axis=1)]]
        numeric = numeric.dropna(axis=0)
    if numeric.shape[1] < 2:
        raise StatsInputError(f"need at least 2 methods to compare, got {numeric.shape[1]}")
    if numeric.shape[0] < 2:
        raise StatsInputError(f"need at least 2 datasets to compare, got {numeric.shape[0]}")
    return numeric, dropped


def compare(
    table: pd.DataFrame,
    direction: str = "max",
    *,
    control: str | None = None,
    alpha: float = 0.05,
    bd_alpha: float | None = None,
    tie_correction: bool = False,
    missing: str = "error",
    wilcoxon: str = "signed_rank",
    zero_method: str = "demsar",
    metric: str = "",
    omnibus: str = "friedman",
    bergmann_hommel: str = "exhaustive",
) -> Comparison:
    """Rank the methods, run Friedman / Iman–Davenport and the 1xN post-hoc tests.

    Parameters
    ----------
    table : DataFrame (N datasets x k methods)
        One value per dataset and method (rows: datasets; columns: methods, in the
        order the tables should show them — it also breaks Holm ties).
    direction : {"max", "min", "higher", "lower"}
        Whether higher or lower values are better.
    control : str, optional
        The method the others are compared with; default: the best average rank.
    alpha : float
        Significance level of Holm's procedure and the Nemenyi CD.
    bd_alpha : float, optional
        Level of the Bonferroni–Dunn CD (the MIL study used 0.10); default ``alpha``.
    tie_correction : bool
        Apply the tie correction to Friedman's χ² (scipy does; the papers did not).
    missing : {"error", "drop"}
        What to do with missing cells: fail naming them, or drop those datasets.
    wilcoxon : {"signed_rank", "rank_sum"}
        Paired signed-rank (default, the papers') or unpaired rank-sum (HyDR-MI's "Wilcoxon").
    zero_method : {"demsar", "zsplit", "wilcox"}
        Zero differences in the signed-rank test (see ``svmlab.stats.wilcoxon``).
    omnibus : {"friedman", "aligned", "quade"}
        The test whose scores the post-hoc tests compare: Friedman's average ranks (default;
        its rows are always computed), the average aligned ranks, or Quade's T_j (García et
        al. 2010). ``tie_correction`` applies to Friedman and Quade.
    bergmann_hommel : {"exhaustive", "monotone"}
        Definition of the Bergmann–Hommel adjusted p (``svmlab.stats.bergmann``; the paper's).

    Degenerate inputs (all datasets tied, N = 2, k = 2) are compared; :attr:`Comparison.degenerate`
    says why no verdict can be drawn (the tables print no omnibus p and no rejection).
    """
    direction = normalise_direction(direction)
    _check_choices(wilcoxon=wilcoxon, omnibus=omnibus, bergmann_hommel=bergmann_hommel)
    values, dropped = clean_table(table, missing)
    values.columns = [str(c) for c in values.columns]
    ranks = rank_table(values, direction)
    avg = average_ranks(ranks)
    control = _control(avg, control)
    bd_alpha = _significance_levels(alpha, bd_alpha)
    rank_test = _rank_test(values, direction, omnibus, tie_correction)
    ctab, bd_cd, n_cd = _control_tests(values, avg, control, rank_test, alpha, bd_alpha)
    pairs = _wilcoxon_columns(values, control, ctab.index, direction, wilcoxon, zero_method)
    ctab = pd.concat([pairs, ctab], axis=1)
    return Comparison(
        table=values,
        direction=direction,
        ranks=ranks,
        average_ranks=avg,
        omnibus=_defined(friedman(ranks, tie_correction=tie_correction)),
        control=control,
        alpha=alpha,
        bd_alpha=bd_alpha,
        bd_cd=bd_cd,
        nemenyi_cd=n_cd,
        control_table=ctab,
        dropped_datasets=dropped,
        wilcoxon=wilcoxon,
        metric=metric,
        omnibus_test=omnibus,
        rank_test=rank_test,
        degenerate=degenerate_reason(ranks),
        bergmann_hommel=bergmann_hommel,
    )


def _check_choices(**options: str) -> None:
    """Raise :class:`StatsInputError` for a ``wilcoxon``, ``omnibus`` or ``bergmann_hommel``
    option that is not one of its choices."""
    for name, value in options.items():
        choices = {
            "wilcoxon": WILCOXON_KINDS,
            "omnibus": OMNIBUS_TESTS,
            "bergmann_hommel": BERGMANN_HOMMEL_DEFINITIONS,
        }[name]
        if value not in choices:
            raise StatsInputError(
                f"{name}={value!r} is not valid; choose one of {', '.join(choices)}"
            )


def _control(avg: pd.Series, control: str | None) -> str:
    """The control method: ``control`` when it is one of the methods, else the best average
    rank."""
    if control is None:
        return str(avg.idxmin())
    if control not in avg.index:
        raise UnknownNameError("method", control, list(avg.index))
    return control


def _significance_levels(alpha: float, bd_alpha: float | None) -> float:
    """Check ``alpha`` and ``bd_alpha`` (default ``alpha``); return ``bd_alpha``."""
    bd_alpha = alpha if bd_alpha is None else bd_alpha
    for name, level in (("alpha", alpha), ("bd_alpha", bd_alpha)):
        if not 0.0 < level < 1.0:
            raise StatsInputError(
                f"{name}={level!r} is not a significance level; give 0 < {name} < 1"
            )
    return bd_alpha


def _control_tests(values, avg, control, rank_test, alpha, bd_alpha):
    """The 1xN post-hoc table against ``control`` and the Bonferroni–Dunn and Nemenyi CDs,
    on Friedman's average ranks (``rank_test`` None) or on the scores of ``rank_test``."""
    N, k = values.shape
    if rank_test is None:
        ctab = control_comparison(avg, N, control, alpha, bd_alpha=bd_alpha)
        return ctab, bonferroni_dunn_cd(k, N, bd_alpha), nemenyi_cd(k, N, alpha)
    ctab = control_comparison(
        rank_test.scores, N, control, alpha, bd_alpha=bd_alpha, se=rank_test.se
    )
    return (ctab, *_critical_differences(k, rank_test.se, alpha, bd_alpha))


def _rank_test(values, direction, omnibus, tie_correction) -> RankTest | None:
    """The aligned-ranks or Quade test asked for; None for Friedman."""
    if omnibus == "aligned":
        return friedman_aligned_ranks(values, direction)
    if omnibus == "quade":
        return quade(values, direction, tie_correction=tie_correction)
    return None


def _critical_differences(k: int, se: float, alpha: float, bd_alpha: float) -> tuple[float, float]:
    """Bonferroni–Dunn and Nemenyi (studentized range) CDs in units of a score with ``se``."""
    bd = norm_ppf(1.0 - bd_alpha / (2.0 * (k - 1))) * se
    nem = studentized_range_ppf(1.0 - alpha, k) / np.sqrt(2.0) * se
    return float(bd), float(nem)


def _defined(o: Omnibus) -> Omnibus:
    """Friedman's result with Iman–Davenport undefined (NaN) when χ² is.

    The tie-corrected χ² of a table where every dataset ties all methods is 0/0; the
    Iman–Davenport F derived from it is then undefined too, not infinite with p = 0.
    """
    if np.isfinite(o.chi2):
        return o
    return replace(o, chi2_p=float("nan"), F=float("nan"), F_p=float("nan"))


def degenerate_reason(ranks: pd.DataFrame) -> str:
    """Why the rank tests can give no verdict on this rank table, or "" when they can.

    * every dataset ties all methods: there is nothing to rank (with the tie correction,
      Friedman's χ² is 0/0);
    * k = 2 methods: Friedman is a sign test and Iman–Davenport's F is infinite as soon as
      one method wins on every dataset; the Wilcoxon signed-rank test is the test for two;
    * N = 2 datasets: the χ² and F approximations (and the z-tests) need many datasets.
    """
    N, k = ranks.shape
    values = ranks.to_numpy(dtype=float)
    if np.all(values == (k + 1) / 2.0):
        return (
            f"every one of the {N} datasets ties all {k} methods: the rank tests have nothing "
            "to compare (no verdict)"
        )
    if k == 2:
        return (
            "k = 2 methods: Friedman reduces to a sign test and its chi2/F approximations do not "
            "hold (no verdict); compare two methods with the Wilcoxon signed-rank test (1xN table)"
        )
    if N == 2:
        return (
            "N = 2 datasets: too few for the Friedman chi2 / Iman-Davenport F approximations and "
            "the post-hoc z-tests (no verdict); compare over more datasets"
        )
    return ""


def _wilcoxon_columns(values, control, methods, direction, kind, zero_method) -> pd.DataFrame:
    """The control-vs-method Wilcoxon columns of the 1xN table (signed-rank or rank-sum)."""
    rows = []
    for m in methods:
        if kind == "signed_rank":
            r = signed_rank(values[control], values[m], direction, zero_method=zero_method)
            rows.append(
                {
                    "wilcoxon_r_plus": r.r_plus,
                    "wilcoxon_r_minus": r.r_minus,
                    "wilcoxon_p": r.p,
                    "wilcoxon_n": r.n,
                }
            )
        else:
            r = rank_sum(values[control], values[m])
            rows.append({"ranksum_W": r.W, "ranksum_z": r.z, "wilcoxon_p": r.p})
    return pd.DataFrame(rows, index=methods)


def _sniff(path: Path) -> tuple[str, list[str]]:
    """The delimiter of a text table (``,`` ``;`` tab or ``|``) and its header row as written
    (pandas would rename a repeated column ``A`` to ``A.1``)."""
    import csv

    with open(path, newline="", encoding="utf-8-sig") as fh:
        sample = fh.read(64 * 1024)
    try:
        sep = csv.Sniffer().sniff(sample.split("\n", 1)[0], delimiters=",;\t|").delimiter
    except csv.Error:
        sep = ","
    header = next(csv.reader([sample.split("\n", 1)[0].rstrip("\r")], delimiter=sep), [])
    return sep, [h.strip() for h in header]


def _is_number(cell: str) -> bool:
    """Whether a header cell is a number as written in a data row (``0.82``, ``-1``, ``1e-3``),
    not a name (``NaN`` and ``inf`` are words here)."""
    try:
        return np.isfinite(float(cell))
    except ValueError:
        return False


def _check_header(path: Path, header: list[str]) -> None:
    """Refuse a text table whose first row holds numbers where the method names belong
    (a file written without its header row would otherwise take its first dataset's values
    as method names and lose that dataset). A first cell ``dataset`` marks a header row, in
    which method names may be numbers (a sweep over C, say)."""
    first, cells = (header[0].lower(), header[1:]) if header else ("", [])
    if first in HEADER_FIRST_CELLS or not any(_is_number(c) for c in cells):
        return
    if all(_is_number(c) or c.lower() in MISSING_MARKERS or not c for c in cells):
        shown = ", ".join(cells[:3]) + (", ..." if len(cells) > 3 else "")
        raise StatsInputError(
            f"{path}: the first row must name the methods, but it holds numbers ({shown}); "
            "add a header row such as 'dataset,A,B,C' (after a first cell 'dataset', method "
            "names may be numbers)"
        )


def read_table(path: str | Path) -> pd.DataFrame:
    """Read a dataset x method matrix (CSV or Parquet; first column = dataset names).

    The delimiter (``,`` ``;`` tab ``|``) is detected from the header row, which must name the
    methods: a text file whose first row holds numbers there (no header row) is refused. A
    tidy file with exactly the columns ``dataset``, ``method``, ``value`` is pivoted.
    Reading stops at a row whose first cell is ``Average`` or ``Ranks`` (summary rows
    of published tables).
    """
    path = Path(path)
    if not path.exists():
        raise StatsInputError(f"{path} does not exist")
    try:
        if path.suffix == ".parquet":
            df = pd.read_parquet(path)
        else:
            sep, header = _sniff(path)
            _check_header(path, header)
            df = pd.read_csv(path, dtype=str, keep_default_na=False, sep=sep)
            df.columns = header if len(header) == len(df.columns) else df.columns
    except StatsInputError:
        raise
    except Exception as exc:
        raise StatsInputError(f"{path}: cannot read as a table ({exc})") from None
    repeated = sorted({str(c) for c in df.columns[pd.Index(df.columns).duplicated()]})
    if repeated:
        raise StatsInputError(
            f"{path}: method column(s) {', '.join(repeated)} appear more than once"
        )
    cols = [str(c).lower() for c in df.columns]
    if sorted(cols) == ["dataset", "method", "value"]:
        df.columns = cols
        counts = df.groupby(["dataset", "method"]).size()
        if (counts > 1).any():
            (ds, m), n = next(iter(counts[counts > 1].items()))
            raise StatsInputError(
                f"{path}: dataset {ds!r}, method {m!r} has {n} rows; a tidy table needs one "
                "value per (dataset, method)"
            )
        return df.pivot(index="dataset", columns="method", values="value")
    first = df.columns[0]
    stop = df[first].astype(str).str.strip().str.lower().isin(["average", "ranks", "rank"])
    if stop.any():
        df = df.iloc[: int(np.argmax(stop.to_numpy()))]
    df = df.set_index(first)
    df.index = df.index.astype(str).str.strip()
    twice = sorted(set(df.index[df.index.duplicated()]))
    if twice:
        raise StatsInputError(f"{path}: dataset(s) {', '.join(twice)} appear in more than one row")
    df.index.name = "dataset"
    df = df.replace("", np.nan)
    return df
