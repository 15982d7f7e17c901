"""Suite-wide test configuration: the ``data`` marker.

A test marked ``@pytest.mark.data`` needs the shared benchmark files. It is skipped when
``SVMLAB_DATA_DIR`` names no directory holding ``MANIFEST.tsv``
(:func:`svmlab.testing.benchmark_data_dir`) and runs otherwise. That is the only reason a test
may skip for data: once the folder is there, a file that fails to load fails the test.
"""

from __future__ import annotations

import pytest

from svmlab.testing import benchmark_data_dir

# ``--doctest-modules`` (pyproject addopts) would also collect the conftest files as modules,
# and several of them share the basename "conftest" (no packages under tests/): not collected.
collect_ignore_glob = ["conftest.py", "*/conftest.py"]

DATA_SKIP_REASON = "benchmark files not found: SVMLAB_DATA_DIR is unset or has no MANIFEST.tsv"


def pytest_collection_modifyitems(config, items):
    if benchmark_data_dir() is not None:
        return
    skip = pytest.mark.skip(reason=DATA_SKIP_REASON)
    for item in items:
        if item.get_closest_marker("data") is not None:
            item.add_marker(skip)
