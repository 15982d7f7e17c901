"""The findings of a registered dataset (svmlab.data.findings): counted from the file read,
stored per registry entry, and shown by ``svmlab data info`` and ``svmlab data verify``."""

from __future__ import annotations

import shutil

import pytest
from datahelpers import file_entry

from svmlab.cli import main
from svmlab.data import findings, registry
from svmlab.errors import DataUnavailableError

#: Rows 0 and 1 are identical with opposite labels; rows 2 and 3 identical with the same one.
TWINS_KEEL = "1.0, 2.0, a\n1.0, 2.0, b\n5.0, 6.0, a\n5.0, 6.0, a\n7.0, 8.0, b\n"
TWINS = "2 duplicated rows (rows 0 = 1, 2 = 3), 1 with opposite labels"


@pytest.fixture
def twins(isolated, add_entries, tmp_path):
    """A KEEL file with duplicated rows, registered as ``twins`` and placed in the data dir."""
    data, cache = isolated
    src = tmp_path / "twins.dat"
    src.write_text(TWINS_KEEL)
    add_entries(file_entry("twins", "toy/twins.dat", src, rows=5))
    (data / "toy").mkdir()
    shutil.copyfile(src, data / "toy" / "twins.dat")
    return data, cache


def test_findings_are_counted_once_and_then_read_from_the_cache(twins, monkeypatch):
    data, cache = twins
    found = findings.dataset_duplicates("twins")
    assert found.describe() == TWINS and found.unavoidable == 1
    stored = findings.cache_file(findings.cache_key("twins"))
    assert stored.is_file() and stored.is_relative_to(cache)

    def no_loading(*args, **kwargs):
        raise AssertionError("the stored findings should have been used")

    monkeypatch.setattr(registry, "load_dataset", no_loading)
    assert findings.dataset_duplicates("twins") == found
    (data / "toy" / "twins.dat").unlink()  # they describe the published file, here or not
    assert findings.dataset_duplicates("twins") == found


def test_without_a_stored_finding_or_a_file_nothing_is_found(twins):
    data, _ = twins
    (data / "toy" / "twins.dat").unlink()
    assert findings.dataset_duplicates("twins") is None
    assert findings.duplicates_text("twins").startswith("not checked: the file is not here")
    assert findings.duplicates_note("twins") is None


def test_a_changed_entry_is_checked_again(twins, add_entries, tmp_path):
    before = findings.cache_key("twins")
    src = tmp_path / "twins.dat"
    add_entries(file_entry("twins", "toy/twins.dat", src, rows=5, positive_class="b"))
    assert findings.cache_key("twins") != before


def test_a_cache_that_cannot_be_written_is_no_error(twins, monkeypatch):
    _, cache = twins
    (cache / "findings").write_text("a file where the folder would go")
    assert findings.dataset_duplicates("twins").describe() == TWINS


def test_notes_name_the_dataset_and_the_command(twins):
    assert findings.duplicates_note("twins") == f"twins has {TWINS} (svmlab data info twins)"
    assert findings.duplicates_note("not_registered") is None
    assert findings.duplicates_note("spiral") is None  # synthetic: drawn with a run's parameters
    assert findings.duplicates_note("wine") is None  # no duplicates


def test_bundled_sets_are_checked_but_not_stored(isolated):
    _, cache = isolated
    assert findings.dataset_duplicates("iris").groups == ((101, 142),)
    assert findings.cache_key("iris") is None and not (cache / "findings").exists()


def test_info_and_verify_print_one_line_per_finding(twins, capsys):
    assert main(["data", "info", "twins"]) == 0
    (line,) = [s for s in capsys.readouterr().out.splitlines() if s.startswith("duplicates")]
    assert line.split(None, 1)[1] == (
        f"{TWINS}; one model misclassifies at least 1 of the 5 rows (accuracy <= 80.0 %)"
    )
    assert main(["data", "verify", "twins", "wine"]) == 0  # duplicates are not problems
    out, err = capsys.readouterr()
    lines = [line.split(None, 2) for line in out.splitlines()]
    assert [(s, n) for s, n, _ in lines] == [
        ("ok", "twins"),
        ("duplicates", "twins"),
        ("ok", "wine"),
    ]
    assert lines[1][2] == TWINS
    assert err.strip() == (
        "svmlab: 2 checked: 2 ok; 0 problem(s); 1 with duplicated rows or bags, 1 of them "
        "conflicting (not problems)"
    )


def test_verify_resolves_every_name_before_reading_any(isolated, capsys):
    with pytest.raises(Exception, match="unknown dataset 'nosuch'"):
        registry.verify_iter(["iris", "nosuch"])
    assert capsys.readouterr().out == ""


def test_a_missing_file_gives_no_dataset_to_check(twins):
    data, _ = twins
    (data / "toy" / "twins.dat").unlink()
    ((name, status, _, dataset),) = registry.verify_iter(["twins"])
    assert (name, status, dataset) == ("twins", "missing", None)
    with pytest.raises(DataUnavailableError):
        registry.locate("twins")


@pytest.mark.data
def test_registered_tiger_is_named_by_info(data_dir, monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("SVMLAB_CACHE_DIR", str(tmp_path))
    assert main(["data", "info", "tiger"]) == 0
    line = [s for s in capsys.readouterr().out.splitlines() if s.startswith("duplicates")][0]
    assert line.split(None, 1)[1] == (
        "20 duplicated bags (bags 0-19 = 180-199), 10 with opposite labels; one model "
        "misclassifies at least 10 of the 200 bags (accuracy <= 95.0 %)"
    )
