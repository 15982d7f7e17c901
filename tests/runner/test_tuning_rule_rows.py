"""The selection rule through the runner: rows record the rule each task followed, a run of
the default rule keeps its task keys, and ``one_se`` is refused before any work for an
estimator that declares no simpler end of a path."""

import json

import pytest

from svmlab.errors import ConfigError
from svmlab.runner.execute import execute
from svmlab.runner.plan import build_plan
from svmlab.runner.store import consolidate, prepare_run_dir

OLLAWV = {
    "name": "ollawv",
    "_target_": "svmlab.estimators.ollawv.OLLAWVClassifier",
    "tasks": ["binary", "multiclass"],
    "grid": {"margin": [0.1, 0.01, 0.001], "gamma": [0.5]},
}


def _rows(cfg, tmp_path):
    plan = build_plan(cfg, str(tmp_path), "r")
    prepare_run_dir(tmp_path, plan.identity, "")
    assert execute(plan.tasks, cfg["runner"]).n_failed == 0
    return plan, consolidate(tmp_path)


def test_rows_record_the_rule_each_solver_followed(make_cfg, tmp_path):
    knn = make_cfg()["solver"]
    cfg = make_cfg(solvers={"o": OLLAWV, "k": {**knn, "grid": {}}})
    cfg["tuning"]["rule"] = "one_se"
    plan, df = _rows(cfg, tmp_path)
    rules = df.groupby("solver")["tuning_rule"].unique().to_dict()
    assert list(rules["ollawv"]) == ["one_se"] and list(rules["knn"]) == ["best"]
    for table in df.loc[df["solver"] == "ollawv", "grid_scores"]:
        assert all("se" in row for row in json.loads(table))
    assert (
        plan.identity["parts"]["tuning"]
        != build_plan(make_cfg(solvers={"o": OLLAWV}), str(tmp_path / "b"), "r").identity["parts"][
            "tuning"
        ]
    )


def test_the_default_rule_keeps_the_task_keys(make_cfg, tmp_path):
    cfg = make_cfg(solvers={"o": OLLAWV})
    keys = [t.key for t in build_plan(cfg, str(tmp_path), "r").tasks]
    cfg["tuning"]["rule"] = "best"
    assert [t.key for t in build_plan(cfg, str(tmp_path), "r").tasks] == keys
    cfg["tuning"]["rule"] = "one_se"
    assert not set(keys) & {t.key for t in build_plan(cfg, str(tmp_path), "r").tasks}


def test_one_se_is_refused_before_any_work_for_an_undeclared_estimator(make_cfg, tmp_path):
    cfg = make_cfg()  # k-NN with a grid, and no path parameter
    cfg["tuning"]["rule"] = "one_se"
    with pytest.raises(ConfigError, match="solver 'knn' declares no simpler end"):
        build_plan(cfg, str(tmp_path), "r")
