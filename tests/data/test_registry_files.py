"""Every file dataset of the registry, loaded through the registry, against MANIFEST.tsv's counts.

Marked ``data``: skipped when ``SVMLAB_DATA_DIR`` does not point at the shared benchmark folder.
"""

from __future__ import annotations

import csv
import subprocess
import sys

import pytest
from datahelpers import shared_data_dir

from svmlab import paths
from svmlab.data import load_dataset, registry

pytestmark = [pytest.mark.data, pytest.mark.slow]  # reads every benchmark file in full

FILE_DATASETS = [
    name
    for name, e in registry._registry().items()
    if e["source"] == "file"
    and e["status"] == "ok"
    and not e.get("variant_of")
    and e.get("in_manifest", True)
]
# variants of a file (another label, a binarisation, complete cases) and two-file datasets
DERIVED = [
    name
    for name, e in registry._registry().items()
    if e.get("variant_of") or e["source"] == "joined"
]
COUNTS = ("rows", "bags", "features", "targets", "classes")


@pytest.fixture(scope="module")
def manifest():
    d = shared_data_dir()
    with open(d / "MANIFEST.tsv", newline="") as fh:
        return {
            r["path"]: r for r in csv.DictReader(fh, delimiter="\t") if r["task"] != "reference"
        }


@pytest.mark.parametrize("name", FILE_DATASETS)
def test_file_dataset_matches_manifest(manifest, name):
    entry = registry.registry_entry(name)
    row = manifest[entry["path"]]
    expected = {k: int(row[k]) if row[k] else None for k in COUNTS}
    if row["format"] == "rdata":  # the manifest could not count an R data frame's columns
        expected.update(features=entry["features"], classes=entry["classes"])
        expected["targets"] = 1 if entry["task"] == "regression" else None
    expected["features"] -= len(
        entry.get("drop_columns") or ()
    )  # identifier columns are not features
    if entry["task"] == "regression":  # the manifest counts the single target; summary() does not
        assert expected["targets"] == 1
        expected["targets"] = None
    ds = load_dataset(name)
    got = ds.summary()
    assert {k: got[k] for k in COUNTS} == expected
    assert ds.meta["sha256"] in (row["sha256"], row["sha256_raw"])
    assert registry.count_mismatches(ds, name) == []


@pytest.mark.parametrize("name", DERIVED)
def test_derived_dataset_matches_registry(name):
    ds = load_dataset(name)
    assert registry.count_mismatches(ds, name) == []


def test_registry_covers_the_manifest(manifest):
    by_path = {
        e["path"]: e
        for e in registry._registry().values()
        if e["source"] == "file" and e.get("in_manifest", True)
    }
    assert set(by_path) == set(manifest)
    for path, row in manifest.items():
        assert (by_path[path]["sha256"], by_path[path]["sha256_raw"]) == (
            row["sha256"],
            row["sha256_raw"],
        )


def test_registry_is_up_to_date_with_the_script(manifest):
    script = paths.REPO_ROOT / "scripts" / "make_registry.py"
    if not script.is_file():
        pytest.skip("not a checkout")
    result = subprocess.run(
        [
            sys.executable,
            str(script),
            "--check",
            "--manifest",
            str(shared_data_dir() / "MANIFEST.tsv"),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
