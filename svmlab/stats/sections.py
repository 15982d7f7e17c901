"""Report sections: titled tables, and their rendering as Markdown, CSV or LaTeX.

The statistics module returns its tables as :class:`Section` objects and every report of
svmlab is a list of them, so one renderer serves ``svmlab report`` and ``svmlab stats``.

>>> import pandas as pd
>>> t = pd.DataFrame({"svc": ["0.95"], "knn": ["0.93"]}, index=pd.Index(["iris"], name="dataset"))
>>> print(render([Section("accuracy", t, best={"iris": ["svc"]})]))
## accuracy
<BLANKLINE>
| dataset | svc      | knn  |
|---------|----------|------|
| iris    | **0.95** | 0.93 |
<BLANKLINE>
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from svmlab.errors import SvmlabError

FORMATS = ("markdown", "csv", "latex")


@dataclass
class Section:
    """One titled table of a report."""

    title: str
    table: pd.DataFrame
    best: dict | None = None  # dataset -> best method(s) (bold in Markdown/LaTeX)
    note: str = ""
    # (kind, name) of a section that compares a run with a published table ("paper" or
    # "tests", and the table's name), so that summaries need not parse titles
    key: tuple[str, str] | None = None


def render(sections: list[Section], fmt: str = "markdown") -> str:
    """Render report sections as Markdown, CSV or LaTeX (booktabs) text."""
    if fmt not in FORMATS:
        raise SvmlabError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    parts = []
    for s in sections:
        table = s.table.copy()
        if fmt == "csv":
            parts.append(f"# {s.title}\n{table.to_csv()}" + (f"# {s.note}\n" if s.note else ""))
            continue
        if s.best:
            for dataset, methods in s.best.items():
                for method in methods:
                    if dataset in table.index and method in table.columns:
                        cell = table.at[dataset, method]
                        table.at[dataset, method] = (
                            f"**{cell}**" if fmt == "markdown" else f"\\textbf{{{cell}}}"
                        )
        if fmt == "markdown":
            parts.append(
                f"## {s.title}\n\n{_markdown(table)}" + (f"\n\n_{s.note}_" if s.note else "")
            )
        else:
            parts.append(f"% {s.title}\n{_latex(table)}" + (f"\n% {s.note}" if s.note else ""))
    return "\n\n".join(parts) + "\n"


def _markdown(table: pd.DataFrame) -> str:
    index_name = table.index.name or ""
    header = [index_name] + [str(c) for c in table.columns]
    rows = [
        [str(i)] + [str(v) for v in r] for i, r in zip(table.index, table.itertuples(index=False))
    ]
    widths = [
        max(len(h), *(len(r[j]) for r in rows)) if rows else len(h) for j, h in enumerate(header)
    ]
    fmt = lambda cells: "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths)) + " |"
    sep = "|" + "|".join("-" * (w + 2) for w in widths) + "|"
    return "\n".join([fmt(header), sep] + [fmt(r) for r in rows])


def _latex(table: pd.DataFrame) -> str:
    esc = lambda s: str(s).replace("_", r"\_").replace("±", r"$\pm$").replace("%", r"\%")
    cols = "l" + "r" * len(table.columns)
    lines = [
        rf"\begin{{tabular}}{{{cols}}}",
        r"\toprule",
        " & ".join([esc(table.index.name or "")] + [esc(c) for c in table.columns]) + r" \\",
        r"\midrule",
    ]
    for idx, row in table.iterrows():
        if idx == "average":
            lines.append(r"\midrule")
        lines.append(" & ".join([esc(idx)] + [esc(v) for v in row]) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(lines)
