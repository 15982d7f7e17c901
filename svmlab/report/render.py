"""The one renderer of svmlab's reports: sections as Markdown, CSV, LaTeX or HTML.

Every report of svmlab is a list of :class:`~svmlab.stats.sections.Section` objects (titled
tables; the statistics library returns its tables as such), so one renderer serves
``svmlab report``, ``svmlab stats``, the summary ``svmlab run`` prints and the Markdown and
HTML pages of ``svmlab reproduce``. This module also writes the HTML page around them
(:func:`page`, with :func:`markdown_html` for the deviation notes and :func:`figure_html`
for inline figures) and checks a written page (:func:`check_page`).

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

import html
import re
from html.parser import HTMLParser
from pathlib import Path

import pandas as pd

from svmlab.errors import SvmlabError
from svmlab.stats.sections import Section

__all__ = ["FORMATS", "check_page", "figure_html", "markdown_html", "page", "render"]

FORMATS = ("markdown", "csv", "latex", "html")


def render(sections: list[Section], fmt: str = "markdown") -> str:
    """Render report sections as Markdown, CSV, LaTeX (booktabs) or HTML text.

    Markdown gives each section a level-2 heading, HTML a ``<h3>`` (the level under an
    experiment's heading in a document page) and a table that scrolls sideways; best values
    are bold in Markdown, LaTeX and HTML, and the note follows the table.
    """
    if fmt not in FORMATS:
        raise SvmlabError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    if fmt == "html":
        return _html(sections)
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


def _html(sections: list[Section]) -> str:
    """Report sections as HTML: a heading, a table (best values in bold) and the note each."""
    parts = []
    for s in sections:
        best = s.best or {}
        head = [s.table.index.name or ""] + [str(c) for c in s.table.columns]
        rows = ["<tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in head) + "</tr>"]
        for idx, row in zip(s.table.index, s.table.itertuples(index=False)):
            cells = [f"<th>{html.escape(str(idx))}</th>"]
            for col, value in zip(s.table.columns, row):
                text = html.escape("" if value is None else str(value))
                bold = col in best.get(idx, ())
                cells.append(f"<td><strong>{text}</strong></td>" if bold else f"<td>{text}</td>")
            rows.append("<tr>" + "".join(cells) + "</tr>")
        note = f"<p class='note'>{html.escape(s.note)}</p>" if s.note else ""
        parts.append(
            f"<h3>{html.escape(s.title)}</h3>\n<div class='scroll'><table>\n"
            + "\n".join(rows)
            + f"\n</table></div>{note}"
        )
    return "\n".join(parts)


def markdown_html(text: str) -> str:
    """The small Markdown of the deviation notes as HTML: paragraphs, ``-`` lists,
    ``**bold**``, ``_italic_`` and ```code```."""

    def inline(line: str) -> str:
        line = html.escape(line)
        line = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", line)
        line = re.sub(r"`(.+?)`", r"<code>\1</code>", line)
        return re.sub(r"(?<!\w)_(.+?)_(?!\w)", r"<em>\1</em>", line)

    out = []
    for block in re.split(r"\n\s*\n", text.strip()):
        lines = block.splitlines()
        if all(ln.lstrip().startswith(("- ", "* ")) for ln in lines):
            items = "".join(f"<li>{inline(ln.lstrip()[2:])}</li>" for ln in lines)
            out.append(f"<ul>{items}</ul>")
        else:
            out.append(f"<p>{inline(' '.join(ln.strip() for ln in lines))}</p>")
    return "\n".join(out)


def figure_html(src: str, caption: str) -> str:
    """An inline figure: the image (relative path) and its caption."""
    src, caption = html.escape(src), html.escape(caption)
    return f'<figure><img src="{src}" alt="{caption}"><figcaption>{caption}</figcaption></figure>'


CSS = """body{font-family:sans-serif;max-width:70em;margin:2em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:.5em 0 1em;font-size:.9em}
th,td{border:1px solid #ccc;padding:.2em .5em;text-align:right}
tr>th:first-child{text-align:left}tr:first-child th{background:#eee}
.note{color:#555;font-style:italic}img{max-width:100%}figure{margin:1em 0}
.scroll{overflow-x:auto}"""


def page(title: str, body: str) -> str:
    """A complete HTML page with the report's small style sheet."""
    return (
        f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{html.escape(title)}</title>\n<style>\n{CSS}\n</style>\n</head>\n<body>\n"
        f"{body}\n</body>\n</html>\n"
    )


class _Page(HTMLParser):
    """The tables (rows each) and the image sources of an HTML page."""

    def __init__(self):
        super().__init__()
        self.tables, self.images = [], []

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables.append(0)
        elif tag == "tr" and self.tables:
            self.tables[-1] += 1
        elif tag == "img":
            self.images.append(dict(attrs).get("src") or "")


def check_page(path) -> tuple[int, int, list[str]]:
    """Check a written HTML report: every table has a header and data rows, every figure is
    a relative path to an existing file.

    Returns
    -------
    (n_tables, n_figures, problems)
        ``problems`` is empty when the page is complete.
    """
    path = Path(path)
    page = _Page()
    page.feed(path.read_text(encoding="utf-8"))
    problems = [f"table {i + 1} has no data rows" for i, n in enumerate(page.tables) if n < 2]
    for src in page.images:
        if not src or Path(src).is_absolute():
            problems.append(f"figure {src!r} is not a relative path")
        elif not (path.parent / src).is_file():
            problems.append(f"figure {src} does not exist")
    return len(page.tables), len(page.images), problems
