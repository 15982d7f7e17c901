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

__all__ = [
    "FORMATS",
    "anchored",
    "check_page",
    "figure_html",
    "heading_anchor",
    "markdown_html",
    "page",
    "render",
]

FORMATS = ("markdown", "csv", "latex", "html")


def render(sections: list[Section], fmt: str = "markdown") -> str:
    """Render report sections as Markdown, CSV, LaTeX (booktabs) or HTML text.

    Markdown gives each section a level-2 heading, HTML a ``<h3>`` (the level under an
    experiment's heading in a document page) and a table that scrolls sideways; best values
    are bold in Markdown, LaTeX and HTML, and the note follows the table. Sections of a
    block (``Section.group``, e.g. one run of a sweep) come under the block's heading, written
    once at that level, with their own headings one level down; CSV and LaTeX put the block
    before the title.
    """
    if fmt not in FORMATS:
        raise SvmlabError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    if fmt == "html":
        return _html(sections)
    parts, group = [], ""
    for s in sections:
        table = s.table.copy()
        title = f"{s.group}: {s.title}" if s.group else s.title
        if fmt == "csv":
            parts.append(f"# {title}\n{table.to_csv()}" + (f"# {s.note}\n" if s.note else ""))
            continue
        _bold_best(table, s.best, fmt)
        if fmt == "latex":
            parts.append(f"% {title}\n{_latex(table)}" + (f"\n% {s.note}" if s.note else ""))
            continue
        if s.group and s.group != group:
            parts.append(f"## {s.group}")
        group = s.group
        level = "###" if s.group else "##"
        parts.append(
            f"{level} {s.title}\n\n{_markdown(table)}" + (f"\n\n_{s.note}_" if s.note else "")
        )
    return "\n\n".join(parts) + "\n"


def _bold_best(table: pd.DataFrame, best: dict | None, fmt: str) -> None:
    """Mark the best cells of ``table`` bold in place (Markdown ``**``, LaTeX ``\\textbf``)."""
    for dataset, methods in (best or {}).items():
        for method in methods:
            if dataset in table.index and method in table.columns:
                cell = table.at[dataset, method]
                table.at[dataset, method] = (
                    f"**{cell}**" if fmt == "markdown" else f"\\textbf{{{cell}}}"
                )


def md_cell(value: object) -> str:
    """``value`` as the text of a Markdown table cell: a ``|`` in it (``||B||``) is escaped,
    as it would otherwise end the cell."""
    return str(value).replace("|", r"\|")


def _markdown(table: pd.DataFrame) -> str:
    index_name = table.index.name or ""
    header = [md_cell(index_name)] + [md_cell(c) for c in table.columns]
    rows = [
        [md_cell(i)] + [md_cell(v) for v in r]
        for i, r in zip(table.index, table.itertuples(index=False))
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
    """Report sections as HTML: a heading, a table (best values in bold; text cells to the
    left, numbers to the right) and the note each; a block's heading once above its
    sections (``<h3>``, its sections' ``<h4>``)."""
    parts, group = [], ""
    for s in sections:
        if s.group and s.group != group:
            parts.append(f"<h3 class='block'>{html.escape(s.group)}</h3>")
        group = s.group
        level = "h4" if s.group else "h3"
        note = f"<p class='note'>{html.escape(s.note)}</p>" if s.note else ""
        parts.append(
            f"<{level}>{html.escape(s.title)}</{level}>\n<div class='scroll'><table>\n"
            + "\n".join(_html_rows(s))
            + f"\n</table></div>{note}"
        )
    return "\n".join(parts)


def _html_rows(s: Section) -> list[str]:
    """The ``<tr>`` rows of a section's table: the header, then one row per index entry; the
    columns that hold words (:func:`_text_columns`) are marked ``class='text'``."""
    best = s.best or {}
    text = _text_columns(s.table)
    mark = lambda j: " class='text'" if text[j] else ""  # noqa: E731
    head = "".join(
        f"<th{mark(j)}>{html.escape(str(c))}</th>" for j, c in enumerate(s.table.columns)
    )
    rows = [f"<tr><th>{html.escape(s.table.index.name or '')}</th>{head}</tr>"]
    for idx, row in zip(s.table.index, s.table.itertuples(index=False)):
        cells = [f"<th>{html.escape(str(idx))}</th>"]
        for j, (col, value) in enumerate(zip(s.table.columns, row)):
            shown = html.escape("" if value is None else str(value))
            if col in best.get(idx, ()):
                shown = f"<strong>{shown}</strong>"
            cells.append(f"<td{mark(j)}>{shown}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return rows


def _text_columns(table: pd.DataFrame) -> list[bool]:
    """Per column, whether most of its filled cells are words rather than numbers (a word:
    three letters or more in a row), to be left-aligned in HTML.

    >>> t = pd.DataFrame({"p": ["0.75 ± 0.05", "+1.00 (-0.50..+1.00)"], "why": ["not on PyPI", ""]})
    >>> _text_columns(t)
    [False, True]
    """
    out = []
    for j in range(table.shape[1]):
        cells = [str(v) for v in table.iloc[:, j] if v is not None and str(v).strip()]
        words = sum(re.search(r"[^\W\d_]{3}", c) is not None for c in cells)
        out.append(bool(cells) and 2 * words >= len(cells))
    return out


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


def heading_anchor(text: str) -> str:
    """The anchor GitHub gives a Markdown heading: lower case, punctuation dropped, spaces
    as hyphens (a repeated heading gets ``-1``, ``-2``: :func:`anchored`).

    >>> heading_anchor("Table 3.4 [evo.C=1]: error (%)")
    'table-34-evoc1-error-'
    """
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def anchored(body: str) -> str:
    """HTML whose ``<h1>``-``<h4>`` headings carry ids, the anchors GitHub gives the same
    headings of the Markdown page, so that one link fragment serves both pages."""
    seen: dict[str, int] = {}

    def add_id(match: re.Match) -> str:
        tag, attrs, inner = match.group(1), match.group(2) or "", match.group(3)
        anchor = heading_anchor(html.unescape(re.sub(r"<[^>]+>", "", inner)))
        n = seen.get(anchor, 0)
        seen[anchor] = n + 1
        unique = anchor if n == 0 else f"{anchor}-{n}"
        return f"<{tag}{attrs} id='{html.escape(unique, quote=True)}'>{inner}</{tag}>"

    return re.sub(r"<(h[1-4])((?: class='[^']*')?)>(.*?)</\1>", add_id, body)


def figure_html(src: str, caption: str) -> str:
    """An inline figure: the image (relative path) and its caption."""
    src, caption = html.escape(src), html.escape(caption)
    return f'<figure><img src="{src}" alt="{caption}"><figcaption>{caption}</figcaption></figure>'


#: The page's style. A table wider than the page scrolls sideways inside its box, with its
#: first column held in place and a shadow at the edge that hides columns (so that a reader
#: sees there is more); text cells are left-aligned, numbers right-aligned.
CSS = """body{font-family:sans-serif;max-width:70em;margin:2em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:.5em 0 1em;font-size:.9em}
th,td{border:1px solid #ccc;padding:.2em .5em;text-align:right}
th.text,td.text{text-align:left}
tr>th:first-child{text-align:left;position:sticky;left:0;background:#fafafa;z-index:1}
tr:first-child th{background:#eee}
.note{color:#555;font-style:italic}img{max-width:100%}figure{margin:1em 0}
h3.block{border-bottom:2px solid #ccc;padding-bottom:.2em;margin-top:1.8em}
.scroll{overflow-x:auto;max-width:100%;
background:linear-gradient(to left,#fff 30%,rgba(255,255,255,0)) right/2.5em 100% no-repeat local,
radial-gradient(farthest-side at 100% 50%,rgba(0,0,0,.25),rgba(0,0,0,0)) right/1em 100%
no-repeat scroll}"""


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
