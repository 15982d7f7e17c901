"""FASTA files and the Allerdictor allergen data (opt-in, local files only).

The MKLPO paper's experiment I (Sec. IV) uses Allerdictor's data (Dang &
Lawrence, *Bioinformatics* 30(8), 2014): 3,907 allergen and 39,070 non-allergen protein
sequences, distributed only through the authors' web site. svmlab registers ``allerdictor``
as unavailable and never downloads it; :func:`read_allerdictor` reads a copy the user
already has (one FASTA file of allergens, one of non-allergens).
"""

from __future__ import annotations

import numpy as np

from ...errors import DataFormatError
from ..dataset import Dataset
from ..kmers import AMINO_ACIDS, kmer_features, kmer_vocabulary
from ._common import read_text


def read_fasta(path) -> list[tuple[str, str]]:
    """The records of a FASTA file as ``(header, sequence)`` pairs.

    A record starts with a ``>`` line (its header, without the ``>``); the following lines
    up to the next ``>`` are joined into the sequence, blanks removed. Blank lines and ``;``
    comment lines are skipped; gzip/bzip2-compressed files are read too.

    Raises
    ------
    DataFormatError
        Sequence text before the first header, or a file without any record.
    """
    records, header, parts = [], None, []
    for number, line in enumerate(read_text(path).split("\n"), start=1):
        line = line.strip()
        if not line or line.startswith(";"):
            continue
        if line.startswith(">"):
            if header is not None:
                records.append((header, "".join(parts)))
            header, parts = line[1:].strip(), []
        elif header is None:
            raise DataFormatError(path, "sequence text before the first '>' header", line=number)
        else:
            parts.append("".join(line.split()))
    if header is not None:
        records.append((header, "".join(parts)))
    if not records:
        raise DataFormatError(path, "no FASTA record (no line starts with '>')")
    return records


def read_allerdictor(
    allergens, non_allergens, *, k: int = 3, other: str = "drop", name: str = "allerdictor"
) -> Dataset:
    """Allerdictor's allergen / non-allergen FASTA pair as k-mer features (local files only).

    Parameters
    ----------
    allergens, non_allergens : str or Path
        FASTA files (e.g. Allerdictor's ``alg.fa`` and ``nlg.fa``).
    k : int, default=3
        k-mer length: 3 gives 8,000 words over the 20 amino acids (svmlab's default; a dense
        ``n x 8000`` float64 matrix: about 2.7 GB for all 42,977 sequences; 2 gives 400).
    other : {"drop", "fold"}, default="drop"
        Non-standard letters (X, B, Z, U, O): drop the k-mers containing them (keeps the
        ``20^k`` vocabulary) or fold them into one extra symbol; see :mod:`svmlab.data.kmers`.
    name : str, default="allerdictor"

    Returns
    -------
    Dataset
        ``binary``; allergens +1 (first, in file order), non-allergens -1;
        term-frequency k-mer features with L2-normalised rows; ``meta`` has the paths,
        the record ``headers`` and the class counts.
    """
    pos, neg = read_fasta(allergens), read_fasta(non_allergens)
    sequences = [s for _, s in pos] + [s for _, s in neg]
    y = np.r_[np.ones(len(pos), np.int64), -np.ones(len(neg), np.int64)]
    return Dataset(
        name=name,
        task="binary",
        X=kmer_features(sequences, k, AMINO_ACIDS, other),
        y=y,
        feature_names=tuple(kmer_vocabulary(k, AMINO_ACIDS, other)),
        meta={
            "source": "local",
            "format": "fasta",
            "paths": {"allergens": str(allergens), "non_allergens": str(non_allergens)},
            "kmers": {"k": k, "alphabet": AMINO_ACIDS, "other": other},
            "counts": {"1": len(pos), "-1": len(neg)},
            "positive_class": 1,
            "headers": [h for h, _ in pos] + [h for h, _ in neg],
        },
    )
