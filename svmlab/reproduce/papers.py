"""The seed documents and the experiments that reproduce each one (``svmlab reproduce``).

Each document maps to its studies in the order of the document; each study names its full
experiment (``conf/experiment/<full>.yaml``) and, where one exists, a quick profile that runs
in minutes. ``svmlab reproduce PAPER`` runs the full experiments, ``--quick`` the quick ones
(a study without a quick profile is skipped, and the report says so). The documents themselves
are in :mod:`svmlab.reproduce.documents`.

>>> [s.full for s in get_paper("svmperf").studies]
['svmperf_bench']
"""

from __future__ import annotations

from svmlab.errors import UnknownNameError
from svmlab.reproduce.document import Paper, Study
from svmlab.reproduce.documents import DOCUMENTS

__all__ = ["PAPERS", "Paper", "Study", "get_paper"]

#: Every document by name, in the order ``svmlab reproduce --list`` shows them.
PAPERS: dict[str, Paper] = {p.name: p for p in DOCUMENTS}


def get_paper(name: str) -> Paper:
    """The registered document ``name``.

    Raises
    ------
    UnknownNameError
        One line with the close matches and the valid names.
    """
    try:
        return PAPERS[name]
    except KeyError:
        raise UnknownNameError("paper", name, PAPERS) from None
