"""A document's report notes the duplicated rows or bags of its datasets: once per dataset in
the summary, and a pointer under each experiment that uses one."""

from __future__ import annotations

from pathlib import Path

import pytest

from svmlab.data.findings import duplicates_note
from svmlab.report.builder import DUPLICATES, Entry, RunReport, document, duplicates_section


def _entry(name, *datasets):
    config = {"datasets": {d: {"name": d} for d in datasets}}
    return Entry("part", name, None, "ok", RunReport(config=config))


def test_each_dataset_with_duplicates_is_noted_once_per_document(tmp_path, monkeypatch):
    monkeypatch.setenv("SVMLAB_CACHE_DIR", str(tmp_path))
    entries = [_entry("a_quick", "iris", "wine", "spiral"), _entry("b_quick", "iris")]
    section = duplicates_section(entries)
    assert section.title == DUPLICATES and list(section.table.index) == ["iris"]
    note = duplicates_note("iris")  # the same function as `svmlab data info iris`
    assert note == (
        "iris has 1 duplicated row (rows 101 = 142), 0 with conflicting labels "
        "(svmlab data info iris)"
    )
    assert section.table.at["iris", "note"] == note
    assert section.table.at["iris", "used by"] == "a_quick, b_quick"
    md, page = document("doc", entries, Path("."))
    assert md.count("rows 101 = 142") == 1 and page.count("rows 101 = 142") == 1
    pointer = f"duplicated rows or bags in iris; see [{DUPLICATES}]"
    assert md.count(pointer) == 2  # under each experiment that uses it
    assert "href='#datasets-with-duplicated-rows-or-bags'" in page


def test_a_document_without_duplicates_has_no_such_section():
    entries = [_entry("a_quick", "wine", "spiral")]
    assert duplicates_section(entries) is None
    md, _ = document("doc", entries, Path("."))
    assert DUPLICATES not in md


@pytest.mark.data
def test_tiger_is_noted_where_a_study_uses_it(tmp_path, monkeypatch):
    monkeypatch.setenv("SVMLAB_CACHE_DIR", str(tmp_path))
    section = duplicates_section([_entry("mil_quick", "musk1", "tiger")])
    assert list(section.table.index) == ["tiger"]
    assert section.table.at["tiger", "note"] == (
        "tiger has 20 duplicated bags (bags 0-19 = 180-199), 10 with opposite labels "
        "(svmlab data info tiger)"
    )
