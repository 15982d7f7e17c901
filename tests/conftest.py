"""Suite-wide test configuration: the ``data``, ``weka`` and ``slow`` markers.

A test marked ``@pytest.mark.data`` needs the shared benchmark files. It is skipped when
``SVMLAB_DATA_DIR`` names no directory holding ``MANIFEST.tsv``
(:func:`svmlab.testing.benchmark_data_dir`) and runs otherwise. That is the only reason a test
may skip for data: once the folder is there, a file that fails to load fails the test.

A test marked ``@pytest.mark.weka`` runs the real Weka 3.6; it is skipped when Java or weka.jar
is absent (:func:`svmlab.estimators.mil.weka.weka_available`).

``make test-fast`` (``-m "not slow"``) leaves out the tests marked ``slow``: besides those marked
in their files, every test that runs Weka (``weka``) and every test that starts ``svmlab`` in
a subprocess or a real run in the background (the fixtures in :data:`SLOW_FIXTURES`: a new
interpreter, Hydra and a pool each time) is marked here.
"""

from __future__ import annotations

import os

import pytest

from svmlab.testing import RAY_TEST_ENV, benchmark_data_dir

# every Ray process of the suite (local instances, the test cluster, hydra-ray-launcher's) runs
# without Ray's token authentication: a process reads the mode once, so a mode changed for one
# test would leave the next test's driver unable to talk to its own GCS
os.environ.update(RAY_TEST_ENV)

# ``--doctest-modules`` (pyproject addopts) would also collect the conftest files as modules,
# and several of them share the basename "conftest" (no packages under tests/): not collected.
collect_ignore_glob = ["conftest.py", "*/conftest.py"]

#: Fixtures whose tests start ``svmlab`` in a subprocess (or a disk or cluster for one): slow.
SLOW_FIXTURES = {"run_cli", "start_sleepy_run", "small_disk", "ray_cluster"}

DATA_SKIP_REASON = "benchmark files not found: SVMLAB_DATA_DIR is unset or has no MANIFEST.tsv"
WEKA_SKIP_REASON = "Java or weka.jar is absent (`make weka`)"


def _skip_marked(items, marker, reason):
    skip = pytest.mark.skip(reason=reason)
    for item in items:
        if item.get_closest_marker(marker) is not None:
            item.add_marker(skip)


def _mark_slow(items):
    slow = pytest.mark.slow
    for item in items:
        uses = set(getattr(item, "fixturenames", ()))
        if item.get_closest_marker("weka") is not None or uses & SLOW_FIXTURES:
            item.add_marker(slow)


def pytest_collection_modifyitems(config, items):
    _mark_slow(items)
    if benchmark_data_dir() is None:
        _skip_marked(items, "data", DATA_SKIP_REASON)
    if any(item.get_closest_marker("weka") is not None for item in items):
        from svmlab.estimators.mil.weka import weka_available

        if not weka_available():
            _skip_marked(items, "weka", WEKA_SKIP_REASON)
