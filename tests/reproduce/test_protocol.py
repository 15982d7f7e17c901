"""What protocol a run used, in the words a heading sets beside the document's."""

import pandas as pd
import pytest
import yaml

from svmlab.reproduce.document import Protocol
from svmlab.reproduce.protocol import (
    RunProtocol,
    protocol_heading,
    run_protocol,
    same_protocol,
)


def _rows_of(tmp_path, config) -> pd.DataFrame:
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config))
    return pd.DataFrame({"run_dir": [str(tmp_path)] * 2, "fold": [0, 1], "repeat": [0, 0]})


@pytest.mark.parametrize(
    "protocol, text, folds",
    [
        ({"kind": "stratified_kfold", "n_splits": 20, "n_repeats": 1}, "20-fold CV", 20),
        ({"kind": "auto_kfold", "n_splits": 2, "n_repeats": 5}, "5 x 2-fold CV", 2),
        ({"kind": "holdout", "test_size": 0.2, "n_repeats": 1}, "one 80/20 split", None),
        (
            {"kind": "holdout", "test_size": 0.3, "n_repeats": 30},
            "30 random 70/30 splits",
            None,
        ),
        (
            {"kind": "holdout", "test_size": None, "n_repeats": 3},
            "3 random train/test splits",
            None,
        ),
        (
            {"kind": "predefined", "n_repeats": 20},
            "the data's own train/test split, 20 repetitions",
            None,
        ),
    ],
)
def test_run_protocol_reads_the_stored_configuration(tmp_path, protocol, text, folds):
    run = run_protocol(_rows_of(tmp_path, {"name": "x_bench", "protocol": protocol}))
    assert run.text == text and run.folds == folds and not run.quick


def test_nested_tuning_is_part_of_the_protocol(tmp_path):
    config = {
        "name": "ollawv_quick",
        "protocol": {"kind": "auto_kfold", "n_splits": 5, "n_repeats": 1},
        "tuning": {"mode": "nested", "inner_folds": 3},
    }
    run = run_protocol(_rows_of(tmp_path, config))
    assert run.text == "5-fold CV, tuned by an inner 3-fold CV" and run.quick


def test_a_quick_profile_is_never_the_papers_protocol(tmp_path):
    config = {
        "name": "evosvm_quick",
        "description": "5 folds instead of 20",
        "protocol": {"kind": "stratified_kfold", "n_splits": 20},
    }
    run = run_protocol(_rows_of(tmp_path, config))
    assert run.quick and run.description == "5 folds instead of 20"
    paper = Protocol("20-fold CV", folds=20)
    assert not same_protocol(paper, run)  # even with the same folds
    assert protocol_heading(paper, run) == "paper: 20-fold CV; this run: 20-fold CV (quick profile)"


def test_heading_of_a_full_run_with_the_papers_protocol():
    paper = Protocol("RBF, 10-fold CV", folds=10)
    full = RunProtocol("10-fold CV", 10, 1)
    assert (
        protocol_heading(paper, full) == "paper: RBF, 10-fold CV; this run: the same (10-fold CV)"
    )
    other = RunProtocol("5-fold CV", 5, 1)
    assert protocol_heading(paper, other) == "paper: RBF, 10-fold CV; this run: 5-fold CV"
    repeats = Protocol("30 random hold-out splits", repeats=30)
    assert not same_protocol(repeats, RunProtocol("one 80/20 split, 10 repetitions", None, 10))
    assert protocol_heading(None, None) == ""
    assert protocol_heading(None, other) == "this run: 5-fold CV"


def test_without_a_configuration_the_rows_tell():
    rows = pd.DataFrame({"fold": [0, 1, 2, 0, 1, 2], "repeat": [0, 0, 0, 1, 1, 1]})
    run = run_protocol(rows)
    assert run.text == "3 fold(s) x 2 repetitions" and run.folds == 3 and run.repeats == 2
    assert run_protocol(pd.DataFrame({"x": [1]})) is None
