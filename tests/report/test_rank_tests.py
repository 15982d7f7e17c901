"""The rank tests of a sweep compare a dataset on the folds every method has finished, and
only in the run that lacks folds."""

import pandas as pd

from svmlab.report.builder import RunReport
from svmlab.report.rank_tests import add_rank_tests

SOLVERS = ["svc", "knn", "tree"]
JOBS = ["C=1", "C=2"]
DATASETS = ["bupa", "sonar", "spiral"]


def _sweep(missing=()):
    """Rows of a two-run sweep, three methods per run, each run its own directory; the
    ``(job, dataset, solver, fold)`` in ``missing`` were never written."""
    rows = []
    for job in JOBS:
        for s, solver in enumerate(SOLVERS):
            for d, dataset in enumerate(DATASETS):
                for fold in range(3):
                    if (job, dataset, solver, fold) in missing:
                        continue
                    rows.append(
                        {
                            "task_type": "binary",
                            "dataset": dataset,
                            "solver": solver,
                            "job": job,
                            "method": f"{solver} [{job}]",
                            "run_dir": f"/runs/sweep/{job}",
                            "repeat": 0,
                            "fold": fold,
                            "status": "ok",
                            "selected": True,
                            "accuracy": 0.9 - 0.05 * s + 0.01 * d + 0.001 * fold,
                        }
                    )
    return pd.DataFrame(rows)


def _omnibus_by_group(out):
    return {s.group: s.note for s in out.sections if s.title.startswith("Friedman")}


def test_a_run_missing_folds_compares_on_the_shared_folds_in_its_own_block_only(tmp_path):
    df = _sweep(missing={("C=2", "spiral", "knn", 2)})
    out = RunReport()
    stats = {"pairwise": ("holm",)}
    add_rank_tests(out, df, ["accuracy"], "mean", {}, out_dir=tmp_path, formats=(), stats=stats)
    notes = _omnibus_by_group(out)
    complete = next(
        n for g, n in notes.items() if g.endswith("C=1 (its methods against each other)")
    )
    partial = next(
        n for g, n in notes.items() if g.endswith("C=2 (its methods against each other)")
    )
    assert "N = 3 datasets" in complete and "N = 3 datasets" in partial
    incomplete = [n for n in out.notes if "incomplete" in n]
    assert incomplete == [
        "the sweep's run C=2 is incomplete; the statistics compare each dataset on the folds "
        "every method has finished: spiral (2 of 3 folds)"
    ]


def test_shared_folds_are_the_ones_every_method_finished():
    from svmlab.results import common_folds

    df = _sweep(missing={("C=2", "spiral", "knn", 2), ("C=2", "spiral", "tree", 0)})
    df = df[df["job"] == "C=2"]
    rows, cut, left_out = common_folds(df)
    spiral = rows[rows["dataset"] == "spiral"]
    assert set(spiral["fold"]) == {1} and len(spiral) == 3  # one row per method
    assert cut == {"spiral": "1 of 3 folds"} and left_out == {}
    assert len(rows[rows["dataset"] != "spiral"]) == len(df[df["dataset"] != "spiral"])
    none_shared = _sweep(missing={("C=1", "bupa", "svc", f) for f in range(3)})
    rows, cut, left_out = common_folds(none_shared[none_shared["job"] == "C=1"])
    assert left_out == {"bupa": "no rows of svc [C=1]"} and "bupa" not in set(rows["dataset"])


def test_a_complete_sweep_leaves_no_note(tmp_path):
    out = RunReport()
    stats = {"pairwise": ("holm",)}
    add_rank_tests(
        out, _sweep(), ["accuracy"], "mean", {}, out_dir=tmp_path, formats=(), stats=stats
    )
    assert not [n for n in out.notes if "incomplete" in n]
    assert all("N = 3 datasets" in n for n in _omnibus_by_group(out).values())


def test_a_target_with_its_own_tests_replaces_the_tests_over_the_solvers():
    from svmlab.report.builder import targets_with_own_rank_tests

    own = {"/runs/a": {"reproduce": "svmperf_figures_1_2"}}
    assert targets_with_own_rank_tests(own) == ["svmperf_figures_1_2"]
    # a run without such a target keeps the tests for all (one report, one set of tests)
    mixed = {**own, "/runs/b": {"reproduce": "ollawv_table_5_3"}}
    assert targets_with_own_rank_tests(mixed) == []
    assert targets_with_own_rank_tests({"/runs/c": {}}) == []


def test_task_hours_count_each_task_once():
    from svmlab.report.builder import provenance

    # a task tuned on the outer folds stores one row per candidate, each with the task's time
    rows = pd.DataFrame(
        {
            "key": ["a", "a", "a", "b"],
            "task_seconds": [1800.0, 1800.0, 1800.0, 1800.0],
            "started_at": ["2026-01-01T00:00:00"] * 4,
        }
    )
    made = provenance(rows)
    assert made["tasks"] == 2 and made["task-hours"] == 1.0


def test_provenance_names_the_library_versions_the_rows_record():
    from svmlab.report.builder import provenance

    rows = pd.DataFrame(
        {
            "key": ["a", "b"],
            "prov_host": ["vm", "vm"],
            "prov_python": ["3.11.7", "3.11.7"],
            "prov_scikit_learn": ["1.9.1", "1.8.0"],  # a run resumed after an upgrade
            "prov_numpy": ["2.4.6", None],
            "prov_blas_threads": [1, 1],
        }
    )
    made = provenance(rows)
    assert made["libraries"] == "python 3.11.7, scikit-learn 1.8.0, scikit-learn 1.9.1, numpy 2.4.6"
    assert made["host"] == "vm" and made["BLAS threads per task"] == "1"
    older = provenance(rows.drop(columns="prov_blas_threads"))
    assert (
        older["BLAS threads per task"] == "not recorded" and older["libraries"] == made["libraries"]
    )


def test_a_sweep_of_one_method_per_run_is_paired_across_its_runs():
    """Each run holds one method: the shared folds are those both runs finished."""
    from svmlab.results import common_folds

    df = _sweep(missing={("C=2", "spiral", "svc", 0)})
    df = df[df["solver"] == "svc"]  # two runs, one method each, compared as one block
    rows, cut, left_out = common_folds(df)
    spiral = rows[rows["dataset"] == "spiral"]
    assert set(spiral["fold"]) == {1, 2} and set(spiral["method"]) == {"svc [C=1]", "svc [C=2]"}
    assert cut == {"spiral": "2 of 3 folds"} and left_out == {}


def test_a_method_on_one_dataset_is_set_aside_rather_than_every_other_dataset(tmp_path):
    """A study run in solver order stops with its last method on one fold of one dataset:
    the tests go on over all datasets without that method, and the note says so."""
    from svmlab.results import sparse_methods

    never = {("C=2", d, "tree", f) for d in DATASETS for f in range(3)} - {
        ("C=2", "spiral", "tree", 0)
    }
    df = _sweep(missing=never)
    block = df[df["job"] == "C=2"]
    assert sparse_methods(block) == {"tree [C=2]": "rows on 1 of 3 datasets"}
    out = RunReport()
    stats = {"pairwise": ("holm",)}
    add_rank_tests(out, df, ["accuracy"], "mean", {}, out_dir=tmp_path, formats=(), stats=stats)
    partial = next(
        n
        for g, n in _omnibus_by_group(out).items()
        if g.endswith("C=2 (its methods against each other)")
    )
    assert "N = 3 datasets" in partial and "k = 2" in partial
    assert [n for n in out.notes if "incomplete" in n] == [
        "the sweep's run C=2 is incomplete; the statistics set aside tree (rows on 1 of 3 "
        "datasets) rather than leave out the datasets it lacks"
    ]


def test_a_method_missing_one_dataset_of_three_leaves_out_that_dataset():
    """When dropping the dataset keeps as many cells as dropping the method, the method
    stays: a published comparison is over its methods."""
    from svmlab.results import sparse_methods

    df = _sweep(missing={("C=1", "bupa", "knn", f) for f in range(3)})
    assert sparse_methods(df[df["job"] == "C=1"]) == {}
    assert sparse_methods(df[df["job"] == "C=2"]) == {}
