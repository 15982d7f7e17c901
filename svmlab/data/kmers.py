"""k-mer bag-of-words features for biological sequences (proteins, DNA).

The MKLPO paper (Wang, Wang, Zhou & McDonald, Sec. IV) follows
Allerdictor (Dang & Lawrence, *Bioinformatics* 30(8), 2014): a sequence is cut into
overlapping peptides of a small sliding window and each peptide is a word. The paper gives
no window length, vocabulary, weighting or normalisation (ambiguity A15). svmlab reads it as

* words: every overlapping k-mer (window ``k``, step 1) over a fixed ``alphabet``;
* letters outside the alphabet (protein X, B, Z, U, O; DNA ambiguity codes D, N, S, R) are
  either **folded** into one extra "other" symbol (written ``*`` in feature names, giving
  ``(|alphabet| + 1)^k`` words) or every k-mer containing one is **dropped** (``|alphabet|^k``
  words);
* weights: term frequencies (counts / number of k-mers of the sequence), rows L2-normalised.
  After L2 normalisation the TF division cancels, so a row is its count vector divided by its
  Euclidean norm; a sequence without any k-mer (shorter than ``k``, or all dropped) is a
  zero row.

The vocabulary is fixed by ``alphabet``, ``k`` and ``other`` (nothing is learnt from the
data), so the features of a training and a test fold are computed independently without
leakage. Feature ``j`` is the k-mer whose letters, read as base-``len(symbols)`` digits in
alphabet order (``*`` last), spell ``j``: :func:`kmer_vocabulary` lists them.

:class:`~svmlab.data.Dataset` holds a dense float64 ``X``, so the dataset builders use
:func:`kmer_features` with ``dense=True``; :func:`kmer_counts` returns a
``scipy.sparse`` CSR matrix for larger vocabularies (k = 3 over proteins: 8,000 words).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable

import numpy as np
import scipy.sparse as sp

#: The 20 standard amino acids (one-letter codes, alphabetical).
AMINO_ACIDS = "ACDEFGHIKLMNPQRSTVWY"
#: The 4 nucleotides.
NUCLEOTIDES = "ACGT"
#: Feature-name symbol of the folded "other" letter.
OTHER_SYMBOL = "*"
OTHER_MODES = ("fold", "drop")


def _check(k, alphabet, other):
    if not isinstance(k, (int, np.integer)) or isinstance(k, bool) or k < 1:
        raise ValueError(f"k must be a positive integer, got {k!r}")
    if other not in OTHER_MODES:
        raise ValueError(f"other must be one of {', '.join(OTHER_MODES)}, got {other!r}")
    letters = str(alphabet).upper()
    if not letters or len(set(letters)) != len(letters) or OTHER_SYMBOL in letters:
        raise ValueError(
            f"alphabet must be non-empty distinct letters without {OTHER_SYMBOL!r}, "
            f"got {alphabet!r}"
        )
    if not letters.isascii():
        raise ValueError(f"alphabet must be ASCII letters, got {alphabet!r}")
    return int(k), letters


def kmer_vocabulary(k: int, alphabet: str = AMINO_ACIDS, other: str = "drop") -> list[str]:
    """The k-mers in feature order (``*`` is the folded other letter with ``other="fold"``).

    Parameters
    ----------
    k : int
        Window length.
    alphabet : str
        The letters kept as themselves (case-insensitive).
    other : {"fold", "drop"}
        What becomes of a letter outside ``alphabet``.

    Returns
    -------
    list of str
        ``|alphabet|^k`` words (``drop``) or ``(|alphabet| + 1)^k`` (``fold``).
    """
    k, letters = _check(k, alphabet, other)
    symbols = letters + (OTHER_SYMBOL if other == "fold" else "")
    return ["".join(word) for word in itertools.product(symbols, repeat=k)]


def kmer_counts(
    sequences: Iterable[str], k: int, alphabet: str = AMINO_ACIDS, other: str = "drop"
) -> sp.csr_matrix:
    """Counts of every overlapping k-mer of each sequence.

    Parameters
    ----------
    sequences : iterable of str
        One sequence per row; case and surrounding blanks are ignored.
    k, alphabet, other
        See :func:`kmer_vocabulary`.

    Returns
    -------
    scipy.sparse.csr_matrix of shape (n_sequences, n_words), int64
        ``counts[i, j]``: occurrences of word ``j`` in sequence ``i``.
    """
    k, letters = _check(k, alphabet, other)
    seqs = [str(s).strip().upper() for s in sequences]
    n_letters = len(letters)
    base = n_letters + (1 if other == "fold" else 0)
    table = np.full(256, n_letters, dtype=np.int64)  # every other byte -> code n_letters
    table[np.frombuffer(letters.encode("ascii"), dtype=np.uint8)] = np.arange(n_letters)
    lengths = np.array([len(s) for s in seqs], dtype=np.int64)
    shape = (len(seqs), base**k)
    if not seqs or lengths.max(initial=0) < k:
        return sp.csr_matrix(shape, dtype=np.int64)
    joined = "".join(seqs).encode("ascii", errors="replace")  # non-ASCII -> "?" (other)
    codes = table[np.frombuffer(joined, dtype=np.uint8)]
    n_windows = len(codes) - k + 1
    index = np.zeros(max(n_windows, 0), dtype=np.int64)
    bad = np.zeros(max(n_windows, 0), dtype=bool)
    for offset in range(k):  # word index in base `base`, first letter most significant
        part = codes[offset : offset + n_windows]
        index = index * base + part
        bad |= part == n_letters
    # a window is valid when it lies inside one sequence
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    row = np.repeat(np.arange(len(seqs)), lengths)[:n_windows]
    position = np.arange(n_windows) - starts[row]
    keep = position <= lengths[row] - k
    if other == "drop":
        keep &= ~bad
    counts = sp.coo_matrix(
        (np.ones(int(keep.sum()), dtype=np.int64), (row[keep], index[keep])), shape=shape
    ).tocsr()
    counts.sum_duplicates()
    return counts


def kmer_features(
    sequences: Iterable[str],
    k: int,
    alphabet: str = AMINO_ACIDS,
    other: str = "drop",
    *,
    dense: bool = True,
):
    """Term-frequency k-mer features with L2-normalised rows (see the module docstring).

    Parameters
    ----------
    sequences : iterable of str
    k, alphabet, other
        See :func:`kmer_vocabulary`.
    dense : bool, default=True
        Return a dense float64 array (what :class:`~svmlab.data.Dataset` holds); else CSR.

    Returns
    -------
    ndarray or scipy.sparse.csr_matrix of shape (n_sequences, n_words), float64
    """
    counts = kmer_counts(sequences, k, alphabet, other).astype(np.float64)
    norms = np.sqrt(np.asarray(counts.multiply(counts).sum(axis=1)).ravel())
    scale = np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0)
    features = sp.diags(scale) @ counts
    return features.toarray() if dense else sp.csr_matrix(features)
