"""``svmlab data fetch`` for a study and ``svmlab data verify`` as a reader on a fresh clone
sees them: an empty data folder and cache, no network (the mirror is a loopback port where
nothing listens), the exit statuses and one line per file not got."""

from __future__ import annotations

import functools
import re

import pytest

from svmlab.cli import main
from svmlab.cli.data import document_studies, study_datasets
from svmlab.data import registry
from svmlab.data.prefetch import needed_files

BY_HAND = "copy them in by hand"
NOWHERE = "http://127.0.0.1:9"  # the discard port: nothing listens, the download fails at once


@pytest.fixture
def fresh_clone(tmp_path, monkeypatch):
    """An empty data folder and cache, and no download mirror."""
    for name in ("data", "cache"):
        (tmp_path / name).mkdir()
    monkeypatch.setenv("SVMLAB_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("SVMLAB_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("SVMLAB_DATA_URL", raising=False)
    registry.clear_cache()
    yield tmp_path
    registry.clear_cache()


def err_lines(capsys) -> list[str]:
    return capsys.readouterr().err.strip().splitlines()


def test_an_experiment_names_its_datasets_from_its_composed_config():
    names, unavailable = study_datasets("lssvm_bench")
    assert "german_numer" in names and unavailable == ["vertebral_column"]
    assert "page_blocks0" in study_datasets("svmperf_bench")[0]


def test_a_document_names_every_study_full_or_quick():
    assert [e for e, _ in document_studies("oliveira")] == [
        "lssvm_bench",
        "lssvm_large",
        "lwmlm_bench",
        "lwmlm_hd",
        "cclwmlm_bench",
    ]
    assert [e for e, _ in document_studies("svmperf", quick=True)] == ["svmperf_quick"]
    studies = dict(document_studies("mierswa2009"))
    assert studies["evosvm_variants"] == ()  # its sweep over C needs no other data


def test_fetch_an_experiment_offline(fresh_clone, monkeypatch, capsys):
    """Every file of the study is tried from the mirror once it answers; when it does not,
    the others are not tried; each file not got is one line, the unobtainable set one."""
    monkeypatch.setenv("SVMLAB_DATA_URL", NOWHERE)
    assert main(["data", "fetch", "--experiment", "lssvm_bench"]) == 2
    lines = err_lines(capsys)
    files, _ = needed_files(study_datasets("lssvm_bench")[0])
    assert lines[0].startswith(f"svmlab: fetching [1/{len(files)}] ")
    assert lines[1] == (
        f"svmlab: {len(files)} file(s) needed: 0 already here, 0 fetched, {len(files)} "
        "missing; 1 dataset(s) not obtainable"
    )
    missing = [line for line in lines if line.startswith("svmlab: not fetched: ")]
    assert len(missing) == len(files) and len(lines) == len(files) + 3
    assert any(line.startswith("svmlab: not fetched: german_numer (") for line in missing)
    assert "offline" in missing[0] and "not tried" in missing[1]
    assert lines[-1].startswith("svmlab: not obtainable: vertebral_column: ")


def test_fetch_a_document_offline(fresh_clone, monkeypatch, capsys):
    monkeypatch.setenv("SVMLAB_DATA_URL", NOWHERE)
    assert main(["data", "fetch", "--document", "oliveira", "--quick"]) == 2
    lines = err_lines(capsys)
    assert re.fullmatch(
        r"svmlab: (\d+) file\(s\) needed: 0 already here, 0 fetched, \1 missing", lines[1]
    )
    assert len(lines) == 2 + int(lines[1].split()[1])  # quick profiles list no unobtainable set


@pytest.fixture
def by_hand(monkeypatch):
    """``by_hand``: a registered file without a download source (copied from a Debian
    package), like ionosphere_weka before its source was registered."""
    entry = dict(registry.registry_entry("ionosphere_weka"), name="by_hand", url=None)
    entry["unavailable_reason"] = "comes from the Debian package weka=3.6.14-3"
    table = {**registry._registry(), "by_hand": entry}
    registry.clear_cache()
    monkeypatch.setattr(registry, "_registry", functools.lru_cache(maxsize=1)(lambda: table))
    yield
    monkeypatch.undo()
    registry.clear_cache()


def test_a_file_without_download_source_says_where_to_copy_it_from(fresh_clone, by_hand, capsys):
    """No mirror: the file has no source, so nothing is downloaded (no network either)."""
    assert main(["data", "fetch", "by_hand"]) == 2
    assert err_lines(capsys) == [
        "svmlab: 1 file(s) needed: 0 already here, 0 fetched, 1 missing",
        "svmlab: not fetched: by_hand (classification/weka/ionosphere.arff): no "
        "download source: copy it from the Debian package weka=3.6.14-3 into a directory of "
        "SVMLAB_DATA_DIR",
        "svmlab: 1 of 1 dataset(s) not fetched: by_hand",
    ]
    assert main(["data", "verify", "by_hand"]) == 0
    assert err_lines(capsys) == [
        f"svmlab: 1 checked: 1 without a download source ({BY_HAND}); 0 problem(s)"
    ]


def test_fetch_names_a_dataset_that_needs_no_file(fresh_clone, capsys):
    assert main(["data", "fetch", "iris", "spiral"]) == 0
    assert err_lines(capsys) == [
        "svmlab: iris: sklearn data, no file to fetch",
        "svmlab: spiral: synthetic data, no file to fetch",
    ]


def test_fetch_names_a_dataset_that_cannot_be_had_as_not_fetched(fresh_clone, capsys):
    """A dataset documented as not obtainable, named on its own, is a failure (it is not
    when an experiment lists it as unavailable); nothing was needed, so no count of files."""
    reason = registry.registry_entry("polymer")["unavailable_reason"]
    assert main(["data", "fetch", "polymer"]) == 2
    assert err_lines(capsys) == [
        f"svmlab: not obtainable: polymer: {reason}",
        "svmlab: 1 of 1 dataset(s) not fetched: polymer",
    ]
    assert main(["data", "fetch", "iris", "polymer"]) == 2
    assert err_lines(capsys) == [
        "svmlab: iris: sklearn data, no file to fetch",
        f"svmlab: not obtainable: polymer: {reason}",
        "svmlab: 1 of 2 dataset(s) not fetched: polymer",
    ]


def test_fetch_an_unknown_experiment_is_one_line_and_fetches_nothing(
    fresh_clone, monkeypatch, capsys
):
    monkeypatch.setenv("SVMLAB_DATA_URL", NOWHERE)
    assert main(["data", "fetch", "--experiment", "lssvm_bench,lssvm_bnch"]) == 2
    (line,) = err_lines(capsys)
    assert line.startswith("svmlab: error: unknown experiment 'lssvm_bnch'. Did you mean ")
    assert "Valid experiments: " in line and "lssvm_quick" in line


def test_verify_counts_missing_files_as_problems(fresh_clone, capsys):
    assert main(["data", "verify"]) == 1
    out, err = capsys.readouterr()
    statuses = [line.split("  ")[0].strip() for line in out.splitlines()]
    findings = [line.split()[1] for line in out.splitlines() if line.startswith("duplicates ")]
    statuses = [s for s in statuses if s != "duplicates"]  # a finding, not a dataset's status
    n = {s: statuses.count(s) for s in set(statuses)}
    assert set(n) == {"ok", "missing", "unavailable"}  # every registered file has a source
    assert "iris" in findings  # a bundled set is checked too (sklearn's iris: rows 101 = 142)
    assert err.strip() == (
        f"svmlab: {len(statuses)} checked: {n['ok']} ok, {n['missing']} missing (svmlab data "
        f"fetch --all), {n['unavailable']} not obtainable; {n['missing']} problem(s); "
        f"{len(findings)} with duplicated rows or bags, 0 of them conflicting (not problems)"
    )
    generated = [r for r in registry.list_datasets() if r["source"] in ("sklearn", "synthetic")]
    assert n["ok"] == len(generated)  # nothing else is usable on a fresh clone


@pytest.mark.parametrize(
    ("names", "status", "summary"),
    [
        (["wine", "lawsuit"], 0, "2 checked: 1 ok, 1 not obtainable; 0 problem(s)"),
        (
            ["german_numer"],
            1,
            "1 checked: 1 missing (svmlab data fetch german_numer); 1 problem(s)",
        ),
    ],
)
def test_verify_keeps_not_obtainable_apart(fresh_clone, capsys, names, status, summary):
    assert main(["data", "verify", *names]) == status
    assert err_lines(capsys) == [f"svmlab: {summary}"]


@pytest.mark.parametrize("overrides", [(), ("+datasets.banana={name: page_blocks0}",)])
def test_run_without_download_names_the_files_to_fetch(fresh_clone, capsys, overrides):
    """The command names the missing files, not the experiment: an override that adds a
    dataset (page_blocks0 is not in lssvm_quick) is in it too."""
    argv = ["run", "+experiment=lssvm_quick", *overrides, f"results_dir={fresh_clone}/r"]
    assert main(argv) == 2
    (line,) = err_lines(capsys)
    assert line.startswith("svmlab: error: experiment 'lssvm_quick' needs ")
    command = re.search(r"fetch with `svmlab data fetch ([^`]*)`", line).group(1).split()
    files, _ = needed_files(study_datasets("lssvm_quick", overrides)[0])
    assert command == files and ("page_blocks0" in command) == bool(overrides)


def test_run_with_download_fetches_before_planning(fresh_clone, monkeypatch, capsys):
    monkeypatch.setenv("SVMLAB_DATA_URL", NOWHERE)
    argv = ["run", "+experiment=lssvm_quick", f"results_dir={fresh_clone}/r"]
    assert main([*argv, "data.allow_download=true"]) == 2
    lines = err_lines(capsys)
    assert lines[0].startswith("svmlab: fetching [1/") and "file(s) needed" in lines[1]
    assert lines[-1].startswith("svmlab: error: experiment 'lssvm_quick' needs ")
    assert "not here after fetching" in lines[-1]


def test_reproduce_fetches_every_chosen_study_before_the_first_runs(fresh_clone, monkeypatch):
    from svmlab.cli import data as data_cli
    from svmlab.cli import reproduce as reproduce_cli
    from svmlab.report.builder import Entry

    calls = []
    monkeypatch.setattr(data_cli, "fetch_for_studies", lambda studies: calls.append(studies))

    def study(s, args, run_id, figures):
        calls.append(s.quick)
        return Entry(s.part, s.full, None, "not run in this test", skipped=True)

    monkeypatch.setattr(reproduce_cli, "_reproduce_study", study)
    out = ["--out", str(fresh_clone / "o"), "--results-dir", str(fresh_clone / "r")]
    main(["reproduce", "oliveira", "--quick", "--only", "lssvm_bench,lwmlm_hd", *out])
    fetched = [("lssvm_quick", ()), ("lwmlm_hd_quick", ())]
    assert calls == [fetched, "lssvm_quick", "lwmlm_hd_quick"]
    calls.clear()
    main(["reproduce", "oliveira", "--quick", "--no-run", *out])
    assert all(isinstance(c, str) for c in calls)  # --no-run: nothing fetched
