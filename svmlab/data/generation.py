"""The bookkeeping every synthetic generator shares: parameters recorded in ``meta``.

Generator modules (:mod:`svmlab.data.synthetic`, :mod:`svmlab.data.feature_sets`) decorate
their functions with :func:`generator`; :mod:`svmlab.data.synthetic` collects them all in its
``GENERATORS`` registry.
"""

from __future__ import annotations

import functools
import inspect


def generator(fn):
    """Record the generator's name and (default-completed) arguments in ``meta``."""
    signature = inspect.signature(fn)

    @functools.wraps(fn)
    def run(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        dataset = fn(*args, **kwargs)
        params = {k: plain(v) for k, v in bound.arguments.items()}
        dataset.meta.update({"source": "synthetic", "generator": fn.__name__, "params": params})
        return dataset

    return run


def plain(v):
    """A parameter value as YAML/JSON can hold it (tuples become lists)."""
    return list(v) if isinstance(v, tuple) else v
