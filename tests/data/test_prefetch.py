"""Getting every file a study needs before it runs (svmlab.data.prefetch), from a loopback
server into a temporary cache: what is already here, what is fetched, what is missing and why."""

from __future__ import annotations

import pytest
from datahelpers import TINY_KEEL, file_entry, serve

from svmlab.data import prefetch
from svmlab.errors import DataUnavailableError, UnknownNameError


@pytest.fixture
def tiny_files(isolated, add_entries, tmp_path):
    """Three tiny file entries (``one``, ``two`` fetchable, ``byhand`` without a source), a
    joined set of ``one`` and ``two`` and the content they all share."""
    good = tmp_path / "tiny.dat"
    good.write_text(TINY_KEEL)
    byhand = file_entry("byhand", "toy/byhand.dat", good, origin="debian:toy=1.0:x/byhand.dat")
    add_entries(
        file_entry("one", "toy/one.dat", good, url="http://127.0.0.1:9/one.dat", bytes=44),
        file_entry("two", "toy/two.dat", good, url="http://127.0.0.1:9/two.dat", bytes=44),
        byhand,
        {"name": "both", "source": "joined", "parts": {"train": "one", "test": "two"}},
    )
    return good


def say_to(lines):
    return lines.append


def test_config_datasets_follow_the_planner():
    cfg = {
        "dataset": {"name": "iris"},
        "datasets": {"a": {"name": "wine"}, "b": None, "c": "bupa"},
        "unavailable_datasets": ["lawsuit"],
    }
    assert prefetch.config_datasets(cfg) == (["wine", "bupa"], ["lawsuit"])
    assert prefetch.config_datasets({"dataset": {"name": "iris"}}) == (["iris"], [])


def test_needed_files_expand_joined_sets_and_skip_generated_ones(tiny_files):
    files, unobtainable = prefetch.needed_files(["iris", "spiral", "both", "one", "lawsuit"])
    assert files == ["one", "two"]
    assert list(unobtainable) == ["lawsuit"] and unobtainable["lawsuit"]
    with pytest.raises(UnknownNameError):
        prefetch.needed_files(["nosuch"])


def test_prefetch_fetches_what_is_missing_and_says_why_the_rest_is(tiny_files, server, monkeypatch):
    root, url, requests = server
    serve(tiny_files, root, "toy/one.dat")  # two.dat is not served: HTTP 404
    monkeypatch.setenv("SVMLAB_DATA_URL", url)
    lines = []
    outcomes = prefetch.prefetch(["one", "two"], say=say_to(lines))
    assert [(o.dataset, o.status) for o in outcomes] == [("one", "fetched"), ("two", "missing")]
    assert "HTTP 404" in outcomes[1].detail
    assert lines == [
        "fetching [1/2] one (toy/one.dat, 0.1 kB)",
        "fetching [2/2] two (toy/two.dat, 0.1 kB)",
    ]
    again = prefetch.prefetch(["one"], say=say_to(lines))
    assert again[0].status == "here" and len(requests) == 2 and len(lines) == 2


def test_without_download_nothing_is_fetched(tiny_files, server, monkeypatch):
    root, url, requests = server
    serve(tiny_files, root, "toy/one.dat")
    monkeypatch.setenv("SVMLAB_DATA_URL", url)
    (outcome,) = prefetch.prefetch(["one"], download=False)
    assert (outcome.status, outcome.detail) == ("missing", "not downloaded yet")
    assert requests == []


def test_a_file_without_source_names_where_to_copy_it_from(tiny_files):
    (outcome,) = prefetch.prefetch(["byhand"])
    assert outcome.status == "missing"
    assert outcome.detail == (
        "no download source: copy it from the Debian package toy=1.0 into a directory of "
        "SVMLAB_DATA_DIR"
    )


def test_an_unreachable_host_is_tried_once(tiny_files):
    lines = []
    outcomes = prefetch.prefetch(["one", "two"], say=say_to(lines))  # port 9: nothing listens
    assert [o.status for o in outcomes] == ["missing", "missing"]
    assert "could not download one.dat from 127.0.0.1:9: offline" in outcomes[0].detail
    assert outcomes[1].detail.startswith("not tried: 127.0.0.1:9 was unreachable")
    assert len(lines) == 1


def test_a_corrupted_local_copy_is_missing_and_named(tiny_files, isolated):
    data, _ = isolated
    bad = data / "toy" / "one.dat"
    bad.parent.mkdir(parents=True)
    bad.write_text(TINY_KEEL + "9.0, 9.0, a\n")
    (outcome,) = prefetch.prefetch(["one"], download=False)
    assert outcome.status == "missing" and outcome.detail == f"checksum mismatch: {bad}"


def test_summary_is_a_count_then_one_line_per_file_not_got():
    outcomes = [
        prefetch.FileOutcome("a", "x/a", "here", "/d/x/a"),
        prefetch.FileOutcome("b", "x/b", "fetched", "/c/x/b"),
        prefetch.FileOutcome("c", "x/c", "missing", "HTTP 404 Not Found"),
    ]
    assert prefetch.summary_lines(outcomes, {"lawsuit": "not in any registry"}) == [
        "3 file(s) needed: 1 already here, 1 fetched, 1 missing; 1 dataset(s) not obtainable",
        "not fetched: c (x/c): HTTP 404 Not Found",
        "not obtainable: lawsuit: not in any registry",
    ]
    many = {f"d{i}": "why" for i in range(prefetch.MAX_NAMED + 1)}
    line = prefetch.summary_lines([], many)[1]
    assert line.startswith("not obtainable: d0, d1, d2")
    assert line.endswith("(svmlab data info NAME gives each reason)")  # data list cuts them


def test_a_run_without_download_names_the_fetch_command(tiny_files):
    cfg = {"datasets": {"a": {"name": "both"}, "b": {"name": "byhand"}, "c": {"name": "iris"}}}
    with pytest.raises(DataUnavailableError) as err:
        prefetch.ensure_run_files(cfg, "toy_bench")
    assert str(err.value) == (
        "experiment 'toy_bench' needs 3 dataset file(s) that are not here; fetch with "
        "`svmlab data fetch one two` (or run with data.allow_download=true)"
        "; byhand: no download source: copy it from the Debian package toy=1.0 into a "
        "directory of SVMLAB_DATA_DIR"
    )
    with pytest.raises(DataUnavailableError, match="`svmlab data fetch one two`"):
        prefetch.ensure_run_files({"datasets": {"a": {"name": "both"}}}, None)
    prefetch.ensure_run_files({"dataset": {"name": "iris"}}, None)  # needs no file


def test_a_run_with_download_fetches_first(tiny_files, server, monkeypatch):
    root, url, _ = server
    for rel in ("toy/one.dat", "toy/two.dat"):
        serve(tiny_files, root, rel)
    monkeypatch.setenv("SVMLAB_DATA_URL", url)
    cfg = {"datasets": {"a": {"name": "both"}}, "data": {"allow_download": True}}
    lines = []
    prefetch.ensure_run_files(cfg, "toy_bench", say=say_to(lines))
    assert lines[-1] == "2 file(s) needed: 0 already here, 2 fetched, 0 missing"
    lines.clear()
    prefetch.ensure_run_files(cfg, "toy_bench", say=say_to(lines))
    assert lines == []  # all here: nothing to say
    cfg["datasets"]["b"] = {"name": "byhand"}  # the mirror is its source, and lacks it
    with pytest.raises(DataUnavailableError, match="after fetching; byhand: .* HTTP 404"):
        prefetch.ensure_run_files(cfg, "toy_bench", say=say_to(lines))
