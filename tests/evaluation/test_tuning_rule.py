"""The tuner's selection rules (svmlab/evaluation/tuning.py): ``best`` and the
one-standard-error rule ``one_se`` along a path parameter's declared simpler end."""

import numpy as np
import pytest

import svmlab.evaluation.tuning as tuning
from svmlab.contract import Contract
from svmlab.data.dataset import Dataset
from svmlab.errors import ConfigError
from svmlab.solvers import SolverSpec

OLLAWV = "svmlab.estimators.ollawv.OLLAWVClassifier"


def _ollawv(grid):
    return SolverSpec.from_config({"name": "ollawv", "_target_": OLLAWV, "grid": grid})


# a constructed score table: margins (the path) x two gammas, accuracy with its errors
MARGINS = [0.03, 0.01, 0.003, 0.001, 0.03, 0.01, 0.003, 0.001]
SCORES = [0.90, 0.91, 0.89, 0.80, 0.88, 0.905, 0.885, 0.70]
ERRORS = [0.01, 0.02, 0.01, 0.01, 0.01, 0.01, 0.01, 0.01]
GAMMAS = [1.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 2.0]


def test_best_keeps_the_best_score_and_the_first_on_ties():
    assert tuning.select_point(SCORES) == 1
    assert tuning.select_point([0.5, 0.7, 0.7, np.nan]) == 1
    assert tuning.select_point([np.nan, np.nan]) == 0
    assert tuning.select_point([0.3, 0.1, 0.2], higher_is_better=False) == 1  # an error metric


def test_one_se_keeps_the_simplest_point_within_one_error_of_the_best():
    # the best is 0.91 (index 1) with error 0.02: every point >= 0.89 is within reach; the
    # smallest margin among them is 0.003 (index 2: 0.89; index 6: 0.885 is out of reach)
    chosen = tuning.select_point(
        SCORES, rule="one_se", errors=ERRORS, path_values=MARGINS, simpler="min"
    )
    assert chosen == 2
    # the best point's error decides the reach, not the candidate's: with 0.005 only 0.905
    # (index 5, margin 0.01, the same margin as the best) is close enough; ties on the margin
    # go to the better score
    tight = [0.01, 0.005, *ERRORS[2:]]
    assert (
        tuning.select_point(SCORES, rule="one_se", errors=tight, path_values=MARGINS, simpler="min")
        == 1
    )


def test_one_se_moves_along_the_best_points_own_path():
    # gamma 2's smallest margin (index 7) is within reach too, but it lies on another path:
    # the margin orders the models of one gamma only
    scores = [*SCORES[:7], 0.90]
    one_se = dict(rule="one_se", errors=ERRORS, path_values=MARGINS, simpler="min")
    assert tuning.select_point(scores, **one_se) == 7  # one path: anything within reach
    assert tuning.select_point(scores, **one_se, groups=GAMMAS) == 2


def test_one_se_moves_towards_the_declared_end():
    # simpler="max": larger path values are simpler; 0.03 is the largest within reach, at
    # both gammas (0.90 and 0.88 is out of reach): index 0
    chosen = tuning.select_point(
        SCORES, rule="one_se", errors=ERRORS, path_values=MARGINS, simpler="max"
    )
    assert chosen == 0


def test_one_se_on_an_error_metric_reaches_upwards():
    rmse = [1.0, 1.05, 1.2, 0.98]
    path = [0.1, 0.3, 1.0, 0.03]
    chosen = tuning.select_point(
        rmse,
        rule="one_se",
        higher_is_better=False,
        errors=[0.1] * 4,
        path_values=path,
        simpler="max",
    )
    assert chosen == 1  # 1.05 <= 0.98 + 0.1, and 0.3 is the largest value within reach


def test_with_zero_errors_one_se_keeps_the_simplest_of_the_points_tied_with_the_best():
    scores = [0.9, 0.8, 0.9, 0.7]
    chosen = tuning.select_point(
        scores, rule="one_se", errors=[0.0] * 4, path_values=[0.03, 0.01, 0.003, 0.001]
    )
    assert chosen == 2


def test_the_standard_errors():
    assert tuning.fold_standard_error([0.8, 0.9, 1.0]) == pytest.approx(0.1 / np.sqrt(3))
    assert tuning.fold_standard_error([0.8, np.nan, 1.0]) == pytest.approx(
        np.std([0.8, 1.0], ddof=1) / np.sqrt(2)
    )
    assert tuning.fold_standard_error([0.8, np.nan]) == 0.0
    assert tuning.proportion_standard_error(0.9, 100) == pytest.approx(0.03)


def test_the_rule_is_validated():
    assert tuning.Tuning.from_config({}).rule == "best"
    assert tuning.Tuning.from_config({"rule": "one_se"}).rule == "one_se"
    with pytest.raises(ConfigError, match="tuning.rule='1se' is not valid; choose one of best"):
        tuning.Tuning.from_config({"rule": "1se"})
    with pytest.raises(ConfigError, match="one_se picks within the inner search"):
        tuning.Tuning.from_config({"rule": "one_se", "mode": "outer_best"})


def test_one_se_refuses_a_tuned_estimator_that_declares_no_simpler_end():
    one_se = tuning.Tuning.from_config({"rule": "one_se"})
    svc = SolverSpec.from_config(
        {"name": "svc", "_target_": "sklearn.svm.SVC", "grid": {"C": [1.0, 10.0]}}
    )
    with pytest.raises(ConfigError, match="solver 'svc' declares no simpler end") as info:
        one_se.check_task("binary", "toy", [svc])
    assert "\n" not in str(info.value)
    one_se.check_task("binary", "toy", [_ollawv({"margin": [0.1, 0.01]})])
    untuned = SolverSpec.from_config({"name": "svc", "_target_": "sklearn.svm.SVC"})
    one_se.check_task("binary", "toy", [untuned])  # nothing to select: nothing to refuse
    tuning.Tuning.from_config({}).check_task("binary", "toy", [svc])  # best: anyone


def test_a_solver_rule_overrides_the_run_rule():
    best = tuning.Tuning.from_config({})
    own = SolverSpec.from_config(
        {"name": "o", "_target_": OLLAWV, "rule": "one_se", "grid": {"margin": [0.1, 0.01]}}
    )
    assert own.rule == "one_se" and "rule" not in own.params
    assert best.rule_for(own, "nested") == "one_se"
    forced = SolverSpec.from_config(
        {"name": "o", "_target_": OLLAWV, "rule": "best", "grid": {"margin": [0.1, 0.01]}}
    )
    assert tuning.Tuning.from_config({"rule": "one_se"}).rule_for(forced, "nested") == "best"
    misspelt = SolverSpec.from_config({"name": "o", "_target_": OLLAWV, "rule": "1se"})
    with pytest.raises(ConfigError, match="solver 'o': rule='1se' is not valid"):
        best.check_task("binary", "toy", [misspelt])
    svc = SolverSpec.from_config(
        {"name": "svc", "_target_": "sklearn.svm.SVC", "rule": "one_se", "grid": {"C": [1, 10]}}
    )
    with pytest.raises(ConfigError, match="its rule=one_se: solver 'svc' declares no simpler"):
        best.check_task("binary", "toy", [svc])


def test_the_rule_actually_followed():
    one_se = tuning.Tuning.from_config({"rule": "one_se"})
    path = _ollawv({"margin": [0.1, 0.01], "gamma": [1.0]})
    assert one_se.rule_for(path, "nested") == "one_se"
    assert one_se.rule_for(path, "none") == "best"
    # without a path of two values every point is equally simple: the rule keeps the best
    assert one_se.rule_for(_ollawv({"gamma": [0.5, 1.0]}), "nested") == "best"
    assert one_se.rule_for(_ollawv({"margin": [0.1], "gamma": [0.5, 1.0]}), "nested") == "best"
    assert tuning.Tuning.from_config({}).rule_for(path, "nested") == "best"


def test_the_identity_names_the_rule_only_when_it_is_not_best():
    best = tuning.Tuning.from_config({"inner_folds": 5})
    assert best.identity() == {
        "mode": "nested",
        "inner_folds": 5,
        "scoring": None,
        "inner_always": False,
    }  # as before the rule existed: stored runs keep their keys
    one_se = tuning.Tuning.from_config({"inner_folds": 5, "rule": "one_se"})
    assert one_se.identity()["rule"] == "one_se"
    assert one_se.identity("best") == best.identity()  # a task that follows best after all


def _noisy():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(150, 3))
    y = (np.sin(2 * X[:, 0]) + X[:, 1] ** 2 - 1 + 0.4 * rng.normal(size=150) > 0).astype(int)
    return Dataset(name="toy", task="binary", X=X, y=y)


def test_inner_search_with_one_se_keeps_the_smallest_margin_within_reach_at_its_gamma():
    spec = _ollawv({"margin": [0.3, 0.1, 0.03, 0.01, 0.003, 0.001], "gamma": [0.3, 1.0]})
    run = dict(preprocessing=None, classes=np.array([0, 1]), seed=0, random_state=0)
    best, table = tuning.inner_search(spec, _noisy(), tuning={"inner_folds": 3}, **run)
    chosen, table_se = tuning.inner_search(
        spec, _noisy(), tuning={"inner_folds": 3, "rule": "one_se"}, **run
    )
    assert [r["score"] for r in table] == [r["score"] for r in table_se]  # the same scores
    assert "se" not in table[0] and all(r["se"] >= 0 for r in table_se)
    top = max(table_se, key=lambda r: r["score"])
    assert best == top["params"]
    within = [r for r in table_se if r["score"] >= top["score"] - top["se"]]
    own_path = [r for r in within if r["params"]["gamma"] == best["gamma"]]
    assert chosen["gamma"] == best["gamma"]
    assert chosen["margin"] == min(r["params"]["margin"] for r in own_path)
    assert chosen["margin"] < best["margin"]  # this table's best is not its simplest


def test_the_ollawv_classifier_declares_its_smaller_margins_simpler():
    from svmlab.estimators.ollawv import OLLAWVClassifier

    contract = OLLAWVClassifier.svmlab_contract
    assert isinstance(contract, Contract)
    assert contract.path_parameter == "margin" and contract.path_simpler == "min"


def test_one_se_without_a_direction_is_refused_where_it_would_be_guessed():
    with pytest.raises(ValueError, match="simpler='min' or 'max'"):
        tuning.select_point(SCORES, rule="one_se", errors=ERRORS, path_values=MARGINS, simpler=None)
    svc = SolverSpec.from_config(
        {"name": "svc", "_target_": "sklearn.svm.SVC", "grid": {"C": [1.0, 10.0]}}
    )
    with pytest.raises(ConfigError, match="declares no simpler end"):
        tuning.inner_search(
            svc,
            _noisy(),
            tuning={"rule": "one_se"},
            preprocessing=None,
            classes=np.array([0, 1]),
            seed=0,
            random_state=0,
        )


def test_the_ollawv_regressor_declares_its_wider_tubes_simpler():
    import numpy as np

    from svmlab.estimators.ollawv import OLLAWVRegressor

    contract = OLLAWVRegressor.svmlab_contract
    assert contract.path_parameter == "epsilon" and contract.path_simpler == "max"
    X = np.linspace(0, 1, 300)[:, None]
    y = np.sin(6 * X[:, 0]) + np.random.default_rng(0).normal(0, 0.1, 300)
    models = OLLAWVRegressor(gamma=10.0, random_state=0).fit_path(X, y, [0.1, 0.3, 0.5])
    n_sv = [len(m.support_) for m in models]
    assert n_sv[0] > n_sv[1] > n_sv[2]  # the declared direction is the sparser one
