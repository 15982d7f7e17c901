"""The reproduction targets of every document, by name, and the comparison of a run with one.

The functions here are what the rest of svmlab calls (``svmlab report``, ``svmlab reproduce``);
each looks a target up by the name a run's config gives (``reproduce: ollawv_table_5_3``) and
hands it to :mod:`svmlab.reproduce.engine`.
"""

from __future__ import annotations

import pandas as pd

from svmlab.errors import UnknownNameError
from svmlab.reproduce import engine
from svmlab.reproduce.document import Reproduction
from svmlab.reproduce.documents import DOCUMENTS

#: Every reproduction target of every document, by name.
REPRODUCTIONS: dict[str, Reproduction] = {
    r.name: r for document in DOCUMENTS for r in document.reproductions
}
#: The document (``svmlab reproduce`` name) of every target.
DOCUMENT_OF: dict[str, str] = {
    r.name: document.name for document in DOCUMENTS for r in document.reproductions
}


def get_reproduction(name: str) -> Reproduction:
    """The reproduction target ``name``.

    Raises
    ------
    UnknownNameError
        One line with the close matches and the valid names.
    """
    try:
        return REPRODUCTIONS[name]
    except KeyError:
        raise UnknownNameError("reproduction", name, REPRODUCTIONS) from None


def derive_columns(name: str, df: pd.DataFrame) -> pd.DataFrame:
    """One run's rows ``df`` with the columns target ``name`` derives (unchanged if none).

    The report calls it once per run, before its parts: :func:`sections` and :func:`figures`
    take its result.
    """
    return engine.derive_columns(get_reproduction(name), df)


def sections(name: str, df: pd.DataFrame) -> list:
    """Report sections comparing one run with the published tables of target ``name``.

    ``df`` holds the run's rows with the columns the target derives (:func:`derive_columns`).
    """
    return engine.comparison_sections(get_reproduction(name), df)


def figures(name: str, df: pd.DataFrame, out_dir, formats=("png",)) -> list:
    """The paper figures target ``name`` redraws from a run (written paths; none if it draws
    none)."""
    return engine.figures(get_reproduction(name), df, out_dir, formats)


def known_deviations(name: str) -> list[tuple[str, str]]:
    """The explained deviations of target ``name``: ``(topic, Markdown text)`` each, from
    ``svmlab/reproduce/deviations/<topic>.md``."""
    return engine.known_deviations(get_reproduction(name))


def own_rank_tests(name: str) -> bool:
    """Whether target ``name`` makes its own rank tests in place of the report's tests over
    the run's solvers (:attr:`Reproduction.rank_tests` False)."""
    return not get_reproduction(name).rank_tests


def table_summaries(name: str, df: pd.DataFrame) -> list[dict]:
    """Per published table of target ``name``, how close one run's rows ``df`` come to it
    (:func:`svmlab.reproduce.engine.table_summaries`), each with its ``document``.

    ``df`` holds the run's rows as stored; the target's columns are derived here.
    """
    repro = get_reproduction(name)
    rows = engine.derive_columns(repro, df)
    return [{"document": DOCUMENT_OF[name], **s} for s in engine.table_summaries(repro, rows)]


def run_summaries(df: pd.DataFrame) -> list[dict]:
    """:func:`table_summaries` of every run (every job of a sweep) in ``df`` that names a
    reproduction target in its stored configuration, each entry with the run's ``run_dir``,
    ``experiment`` and ``job`` (the sweep's overrides, "" for a single run).

    An index of the reproductions calls it on each study's results
    (``load_results(run_dir)``); runs without a target add nothing.
    """
    from svmlab.results import run_configs

    out = []
    for run_dir, config in run_configs(df).items():
        target = config.get("reproduce")
        rows = df[df["run_dir"] == run_dir]
        if not target or rows.empty:
            continue
        job = rows["job"].dropna().astype(str) if "job" in rows else pd.Series(dtype=str)
        where = {
            "run_dir": str(run_dir),
            "experiment": str(config.get("name") or ""),
            "job": job.iloc[0] if len(job) else "",
        }
        out += [where | s for s in table_summaries(target, rows)]
    return out
