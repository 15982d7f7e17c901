"""The reproduced documents, one module each: its studies, its reproduction targets (the maps
from its dataset and method names to svmlab's, its published tables, the columns it derives,
its own report sections and figures) and its known deviations.

:data:`DOCUMENTS` lists them in the order ``svmlab reproduce --list`` shows them; a new
document is a new module here and one entry in that tuple.
"""

from __future__ import annotations

from svmlab.reproduce.documents import hydrmi, melki2018, mierswa2009, oliveira, svmperf

#: Every reproduced document (:class:`svmlab.reproduce.document.Paper`).
DOCUMENTS = (
    melki2018.DOCUMENT,
    mierswa2009.DOCUMENT,
    oliveira.DOCUMENT,
    hydrmi.DOCUMENT,
    svmperf.DOCUMENT,
)
