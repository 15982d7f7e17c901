"""File readers: one pure function per format, each returning a :class:`~svmlab.data.Dataset`.

Every reader accepts gzip- and bzip2-compressed input (by ``.gz``/``.bz2`` suffix or
magic bytes) and raises :class:`~svmlab.errors.DataFormatError` naming the file and, where it
can, the line.

=============  ==================================================  ===================
format         layout                                              reader
=============  ==================================================  ===================
``arff``       standard ARFF (classification or Mulan MTR)         :func:`read_arff`
``mi-arff``    Weka relational multi-instance ARFF                 :func:`read_mi_arff`
``mil-csv``    no header; bag label, bag id, features              :func:`read_mil_csv`
``keel-dat``   KEEL data without its header; label last            :func:`read_keel`
``libsvm``     sparse ``label idx:val``                            :func:`read_libsvm`
``mat``        MATLAB matrices (samples as rows or columns)        :func:`read_mat`
``csv``        header row (or none); label last or named           :func:`read_csv`
``rdata``      R data (.RData/.rda): one data frame (PyPI rdata)    :func:`read_rdata`
``jld``        Julia JLD (HDF5): MIDatasets.jl multi-instance      :func:`read_jld`
=============  ==================================================  ===================

:func:`read_jld_folds` returns the cross-validation folds a MIDatasets.jl file stores.

Opt-in readers of data the registry lists as unavailable, for a copy the user has (local
paths only): :func:`read_allerdictor` (a FASTA pair -> k-mer features; :func:`read_fasta`)
and :func:`read_lsvt` (UCI LSVT Voice Rehabilitation, ``.xlsx`` or ``.csv``).
"""

from __future__ import annotations

from ...errors import UnknownNameError
from .arff import read_arff
from .delimited import read_csv, read_keel, read_mil_csv
from .fasta import read_allerdictor, read_fasta
from .jld import read_jld, read_jld_folds
from .libsvm import read_libsvm
from .lsvt import read_lsvt
from .mat import read_mat
from .mi_arff import read_mi_arff
from .rdata import read_rdata

READERS = {
    "arff": read_arff,
    "mi-arff": read_mi_arff,
    "mil-csv": read_mil_csv,
    "keel-dat": read_keel,
    "libsvm": read_libsvm,
    "mat": read_mat,
    "csv": read_csv,
    "rdata": read_rdata,
    "jld": read_jld,
}


def read_file(path, format: str, **options):
    """Read ``path`` with the reader registered for ``format``.

    Parameters
    ----------
    path : str or Path
    format : str
        One of the keys of :data:`READERS`.
    **options
        Passed to the reader (e.g. ``n_targets``, ``label``, ``task``, ``name``).

    Returns
    -------
    Dataset
    """
    try:
        reader = READERS[format]
    except KeyError:
        raise UnknownNameError("file format", format, READERS) from None
    return reader(path, **options)


__all__ = [
    "READERS",
    "read_allerdictor",
    "read_arff",
    "read_csv",
    "read_fasta",
    "read_file",
    "read_jld",
    "read_jld_folds",
    "read_keel",
    "read_libsvm",
    "read_lsvt",
    "read_mat",
    "read_mi_arff",
    "read_mil_csv",
    "read_rdata",
]
