"""The rank tests of a run's report, one block per run of a sweep.

A sweep's result rows label each method with the run it comes from (``"evosvm [evo.C=0.1]"``,
:func:`svmlab.results.load_results`). Ranking every (method, run) pair against every other
would compare, say, 18 "methods" on 3 datasets: the critical differences then exceed every
distance and the diagrams say nothing. The papers compare the methods of one setting with
each other (Mierswa (2009), Table 3.4: the six learners at one C), so the tests here do the
same: within each run of the sweep, its methods under their plain names, each run's tables
and figures under one heading (:attr:`Section.group <svmlab.stats.sections.Section>`). A
sweep whose runs hold one method each (a parameter of one solver swept) is compared across
its runs, as before: its runs are the methods.
"""

from __future__ import annotations

import pandas as pd

from svmlab.errors import SvmlabError


def rank_test_blocks(df: pd.DataFrame) -> list[tuple[str, pd.DataFrame]]:
    """``(job, rows)`` to rank apart: one per run of a sweep whose runs hold several methods
    (``rows["method"]`` without the run's label), else ``[("", df)]``.

    >>> rows = pd.DataFrame({"job": ["C=1", "C=1", "C=2", "C=2"], "status": "ok",
    ...     "solver": ["a", "b", "a", "b"], "method": ["a [C=1]", "b [C=1]", "a [C=2]", "b [C=2]"]})
    >>> [(job, list(r["method"])) for job, r in rank_test_blocks(rows)]
    [('C=1', ['a', 'b']), ('C=2', ['a', 'b'])]
    """
    if "job" not in df.columns:
        return [("", df)]
    ok = df[df["status"] == "ok"]
    jobs = [j for j in ok["job"].dropna().unique() if j]
    methods = {j: ok.loc[ok["job"] == j, "method"].nunique() for j in jobs}
    if len(jobs) < 2 or max(methods.values()) < 2:
        return [("", df)]
    out = []
    for job in jobs:
        rows = df[df["job"] == job]
        plain = rows["method"].str.replace(f" [{job}]", "", regex=False)
        out.append((job, rows.assign(method=plain)))
    return out


def block_heading(job: str) -> str:
    """The heading of one run's block of rank tests."""
    return f"Rank tests within the sweep's run {job} (its methods against each other)"


def control_names(df: pd.DataFrame) -> set[str]:
    """The names ``--control`` may take: every method label, and in a sweep tested per run
    also the plain names the runs' blocks use (``"svc"`` for ``"svc [C=1]"``)."""
    names = set(df["method"].dropna())
    for job, rows in rank_test_blocks(df):
        if job:
            names |= set(rows["method"].dropna())
    return names


def block_control(control: str | None, job: str, rows: pd.DataFrame) -> str | None:
    """The control of one block: the given control's name in this run (``"svc [C=1]"`` is
    ``"svc"`` in every run that has a method of that name), else None (the best-ranked)."""
    if control is None or not job:
        return control
    plain = control.split(" [", 1)[0] + control.split("]", 1)[1] if " [" in control else control
    return plain if plain in set(rows["method"]) else None


def add_rank_tests(out, df, metrics, how, derived, *, out_dir, formats, stats) -> None:
    """Add to the report ``out`` (:class:`svmlab.report.builder.RunReport`) the rank tests
    and figures of every metric (:func:`svmlab.stats.analysis.analyse` on the datasets x
    methods table), and the meta-ranks over the metrics when there are several: once, or
    per run of a sweep (:func:`rank_test_blocks`). A metric that cannot be tested leaves a
    note instead. In an unfinished run each dataset is compared on the folds every method of
    its block has finished, and one without any such fold is left out of its own block only
    (:func:`_incomplete` per block): one run killed early does not empty the others' tests."""
    for job, rows in rank_test_blocks(df):
        rows, partial = _incomplete(rows, out.notes, job)
        group = block_heading(job) if job else ""
        options = dict(stats, control=block_control(stats.get("control"), job, rows))
        ranks_by_metric = {}
        for name in metrics:
            where = (job, out_dir, formats, options)
            cmp = _one_metric(out, rows, name, how, derived, partial, where)
            if cmp is not None:
                ranks_by_metric[name] = cmp.average_ranks
        if len(ranks_by_metric) > 1:
            from svmlab.stats.tables import meta_rank_section

            table = pd.DataFrame(ranks_by_metric).T
            if table.notna().all().all():
                section = meta_rank_section(table)
                section.group = group
                out.sections.append(section)


def _one_metric(out, rows, name, how, derived, partial, block):
    """The comparison of one metric in one block (``(job, out_dir, formats, options)``), its
    sections and figures added to ``out`` (None, and a note, when it cannot be tested)."""
    from svmlab.results import aggregate, direction_of
    from svmlab.stats.analysis import analyse

    job, out_dir, formats, options = block
    where = f" in {job}" if job else ""
    matrix = aggregate(rows, name, how).pivot(index="dataset", columns="method", values="value")
    matrix = matrix.drop(index=[d for d in partial if d in matrix.index])
    if matrix.shape[0] < 2 or matrix.shape[1] < 2:
        out.notes.append(
            f"no rank tests for {name}{where}: they need >= 2 datasets and >= 2 methods "
            f"(have {matrix.shape[0]} x {matrix.shape[1]})"
        )
        return None
    try:
        cmp, sections, paths = analyse(
            matrix,
            direction_of(name, rows, derived),
            name=f"{name}_{job}" if job else name,
            metric=f"{name} [{job}]" if job else name,
            out_dir=out_dir,
            formats=formats,
            **options,
        )
    except SvmlabError as exc:  # e.g. an infinite cell: the other metrics still go on
        out.notes.append(f"no rank tests for {name}{where}: {exc}")
        return None
    group = block_heading(job) if job else ""
    for section in sections[1:]:  # the summary table already shows the values
        section.group = group
        out.sections.append(section)
    out.figures += paths
    out.figure_groups.update({str(p): group for p in paths})
    return cmp


def _incomplete(rows, notes: list, job: str = "") -> tuple[pd.DataFrame, dict[str, str]]:
    """The rows of a killed (or running) run cut to the folds every method has finished on
    each dataset (:func:`svmlab.results.common_folds`), and the datasets without any such
    fold, which the rank tests of this block (``rows``, the run ``job`` of a sweep, or the
    whole run when ``job`` is empty) leave out; a method on too few datasets
    (:func:`svmlab.results.sparse_methods`) is set aside first. One note names all three."""
    from svmlab.results import common_folds, sparse_methods

    aside = sparse_methods(rows)
    rows = rows[~rows["method"].isin(list(aside))] if aside else rows
    rows, cut, partial = common_folds(rows)
    if cut or partial or aside:
        which = f"the sweep's run {job} is" if job else "the run is"
        said = []
        if aside:
            named = "; ".join(f"{m} ({why})" for m, why in aside.items())
            said.append(f"set aside {named} rather than leave out the datasets it lacks")
        if cut:
            named = "; ".join(f"{d} ({why})" for d, why in cut.items())
            said.append(f"compare each dataset on the folds every method has finished: {named}")
        if partial:
            named = "; ".join(f"{d} ({why})" for d, why in partial.items())
            said.append(f"leave out {named}")
        notes.append(f"{which} incomplete; the statistics " + ", and ".join(said))
    return rows, partial
