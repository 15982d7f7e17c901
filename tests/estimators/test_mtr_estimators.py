"""svmlab.estimators.mtr: per-link tuning, baselines, bad input, seeds, missing targets,
scikit-learn's estimator checks, the solver configs and a real-data run."""

import json
from pathlib import Path

import numpy as np
import pytest
import yaml
from sklearn.datasets import make_regression
from sklearn.svm import SVR
from sklearn.utils import estimator_checks

from svmlab.estimators.mtr import (
    ERC,
    ERCC,
    MORF,
    MTS,
    MTSC,
    PAPER_GRID,
    PAPER_GRID_GAMMA_BASE2,
    RC,
    ST,
    SVRCC,
    SVRRC,
    SingleTargetSVR,
)
from svmlab.solvers import SolverSpec
from svmlab.testing import ESSENTIAL_CHECKS

ROOT = Path(__file__).resolve().parents[2]
GRID = {"C": [1.0, 10.0], "gamma": [0.1], "epsilon": [0.1]}


def fast_estimators():
    """Every class, with parameters small enough for a test."""
    return [
        SingleTargetSVR(param_grid=GRID, inner_cv=2),
        SVRRC(param_grid=GRID, inner_cv=2),
        SVRCC(param_grid=GRID, inner_cv=2),
        ST(n_estimators=3),
        MTS(n_estimators=3),
        MTSC(n_estimators=3, oof_folds=2),
        RC(n_estimators=3),
        ERC(n_estimators=3, n_chains=2),
        ERCC(n_estimators=3, n_chains=2, oof_folds=2),
        MORF(n_estimators=5),
    ]


IDS = [type(e).__name__ for e in fast_estimators()]


@pytest.fixture(params=range(len(IDS)), ids=IDS)
def est(request):
    """A fresh, unfitted instance of each class."""
    return fast_estimators()[request.param]


def mtr_data(n=60, m=3, seed=0):
    X, Y = make_regression(n_samples=n, n_features=5, n_targets=m, noise=1.0, random_state=seed)
    return X, (Y - Y.mean(axis=0)) / Y.std(axis=0)


# --------------------------------------------------------------------------- tuning
def wiggly_problem():
    """Target 0 is linear in x, target 1 oscillates fast: small vs large RBF gamma."""
    x = np.random.RandomState(0).uniform(0, 1, (60, 1))
    return x, np.column_stack([x[:, 0], np.sin(25 * x[:, 0])])


TWO_GAMMAS = {"C": [10.0], "gamma": [0.1, 100.0], "epsilon": [0.01]}


def test_every_target_and_every_link_gets_its_own_parameters():
    x, Y = wiggly_problem()
    svr = SingleTargetSVR(param_grid=TWO_GAMMAS, inner_cv=3, random_state=0).fit(x, Y)
    assert [p["gamma"] for p in svr.best_params_] == [0.1, 100.0]
    assert [e.gamma for e in svr.estimators_] == [0.1, 100.0]
    for order, gammas in (([0, 1], [0.1, 100.0]), ([1, 0], [100.0, 0.1])):
        chain = SVRCC(param_grid=TWO_GAMMAS, inner_cv=3, order=order, random_state=0).fit(x, Y)
        assert [p["gamma"] for p in chain.best_params_] == gammas
        assert [link.gamma for link in chain.estimators_] == gammas
        info = chain.fit_info_
        assert info["tuned"] and info["tune_seconds"] > 0 and info["fit_seconds"] > 0
        assert info["best_params"] == [chain.best_params_]
        json.dumps(info)


def test_inner_cv_none_or_zero_skips_tuning_and_keeps_the_base_estimator():
    X, Y = mtr_data()
    for inner_cv in (None, 0):
        model = SVRRC(estimator=SVR(C=3.0, gamma=0.2), inner_cv=inner_cv, random_state=0).fit(X, Y)
        assert all(p is None for chain in model.best_params_ for p in chain)
        assert all(
            link.C == 3.0 and link.gamma == 0.2 for chain in model.estimators_ for link in chain
        )
        assert model.fit_info_["tune_seconds"] == 0.0 and not model.fit_info_["tuned"]
    untuned = SingleTargetSVR(param_grid=None).fit(X, Y)
    assert untuned.best_params_ == [None] * 3 and untuned.estimators_[0].C == 1.0


def test_paper_grids():
    assert len(PAPER_GRID["C"]) * len(PAPER_GRID["gamma"]) * len(PAPER_GRID["epsilon"]) == 72
    assert PAPER_GRID["gamma"][:5] == [1e-9, 1e-7, 1e-5, 1e-3, 1e-1]
    assert PAPER_GRID_GAMMA_BASE2["gamma"][:5] == [2.0**-9, 2.0**-7, 2.0**-5, 2.0**-3, 2.0**-1]
    assert SingleTargetSVR().param_grid == "paper" and SingleTargetSVR().inner_cv == 10
    X, Y = mtr_data(n=20, m=2)
    model = SingleTargetSVR(param_grid="paper_gamma_base2", inner_cv=2, random_state=0).fit(X, Y)
    assert all(p["gamma"] in PAPER_GRID_GAMMA_BASE2["gamma"] for p in model.best_params_)


def test_a_pluggable_base_learner():
    from svmlab.estimators.ollawv import OLLAWVRegressor

    X, Y = mtr_data(n=40)
    model = SVRCC(
        estimator=OLLAWVRegressor(),
        param_grid={"C": [0.5, 1.0], "gamma": [0.1]},
        inner_cv=2,
        random_state=0,
    ).fit(X, Y)
    assert all(isinstance(link, OLLAWVRegressor) for link in model.estimators_)
    assert model.predict(X).shape == Y.shape


# --------------------------------------------------------------------------- baselines
def test_baseline_defaults_follow_the_paper():
    assert (
        ST().n_estimators == MTS().n_estimators == ERC().n_estimators == MORF().n_estimators == 100
    )
    assert ERC().n_chains == ERCC().n_chains == 10 and ERCC().oof_folds == MTSC().oof_folds == 10
    assert not MTS().exclude_own and SVRRC().max_chains == 10 and SVRCC().corr == "signed"


def test_stacking_meta_features():
    X, Y = mtr_data(n=40)
    full = MTS(n_estimators=3, random_state=0).fit(X, Y)
    own_out = MTS(n_estimators=3, exclude_own=True, random_state=0).fit(X, Y)
    assert [e.n_features_in_ for e in full.stage2_estimators_] == [5 + 3] * 3
    assert [e.n_features_in_ for e in own_out.stage2_estimators_] == [5 + 2] * 3
    corrected = MTSC(n_estimators=3, oof_folds=3, random_state=0).fit(X, Y)
    assert (
        corrected.fit_info_["meta_features"] == "oof"
        and full.fit_info_["meta_features"] == "insample"
    )
    # same seeds, same stage 1; only the stage-2 training inputs differ
    np.testing.assert_array_equal(
        full.stage1_estimators_[0].predict(X), corrected.stage1_estimators_[0].predict(X)
    )
    assert not np.allclose(full.predict(X), corrected.predict(X))


def test_st_and_morf():
    X, Y = mtr_data(n=40)
    st = ST(n_estimators=4, random_state=0).fit(X, Y)
    assert len(st.estimators_) == 3 and st.estimators_[0].n_estimators == 4
    morf = MORF(n_estimators=4, random_state=0).fit(X, Y)
    assert morf.forest_.max_features == 3 == morf.fit_info_["max_features"]  # floor(log2 5) + 1
    assert MORF(max_features="sqrt", n_estimators=2).fit(X, Y).forest_.max_features == "sqrt"


# --------------------------------------------------------------------------- bad input
def test_bad_targets_and_inputs(est):
    X, Y = mtr_data(n=20)
    with pytest.raises(ValueError, match="n_targets >= 2"):
        est.fit(X, Y[:, 0])
    with pytest.raises(ValueError, match=r"n_targets >= 2.*got shape \(20, 1\)"):
        est.fit(X, Y[:, :1])
    Xn = X.copy()
    Xn[3, 1] = np.nan
    with pytest.raises(ValueError, match="Input X contains NaN"):
        est.fit(Xn, Y)
    Ye = Y.copy()
    Ye[:, 1] = np.nan
    with pytest.raises(ValueError, match=r"Y column\(s\) \[1\] have no observed value"):
        est.fit(X, Ye)
    with pytest.raises(ValueError, match="different numbers of rows"):
        est.fit(X, Y[:-1])


@pytest.mark.parametrize("cls", [SVRCC, RC])
@pytest.mark.parametrize("order", [[0, 1], [0, 1, 1], [0, 1, 3], [[0, 1, 2]], [0.5, 1, 2]])
def test_order_must_be_a_permutation(cls, order):
    X, Y = mtr_data(n=20)
    with pytest.raises(ValueError, match=r"order must be a permutation of range\(3\).*m=3.*got"):
        cls(order=order).fit(X, Y)


def test_invalid_parameters_are_named():
    X, Y = mtr_data(n=20)
    for est, name in (
        (SVRRC(train_inputs="predicted"), "train_inputs"),
        (SVRCC(corr="spearman"), "corr"),
        (SingleTargetSVR(inner_cv=1), "inner_cv"),
        (SVRRC(max_chains=0), "max_chains"),
        (SingleTargetSVR(param_grid="pape"), "param_grid"),
        (MORF(max_features="log3"), "max_features"),
    ):
        with pytest.raises(ValueError, match=f"'{name}' parameter"):
            est.fit(X, Y)


# --------------------------------------------------------------------------- seeds, missing targets
def test_same_random_state_same_predictions(est):
    X, Y = mtr_data(n=40, m=4)
    a = est.set_params(random_state=3).fit(X, Y).predict(X)
    b = est.set_params(random_state=3).fit(X, Y).predict(X)
    np.testing.assert_array_equal(a, b)


def test_missing_target_values_fit_and_predict(est):
    X, Y = mtr_data(n=40)
    Y[np.random.RandomState(0).rand(*Y.shape) < 0.2] = np.nan
    pred = est.set_params(random_state=0).fit(X, Y).predict(X)
    assert pred.shape == Y.shape and np.isfinite(pred).all()
    json.dumps(est.fit_info_)
    if hasattr(est, "chains_"):
        observed = (~np.isnan(Y)).sum(axis=0)
        for chain in est.chains_:
            assert chain.n_train == observed[chain.order].tolist()


# --------------------------------------------------------------------------- scikit-learn's checks
def _two_target_y(enforce):
    """The checks hand multi-output-only estimators a one-column y, which these refuse (m >= 2);
    give them two columns (y, 2y + 1) instead."""

    def patched(estimator, y):
        y = np.asarray(y)
        if y.ndim == 2 and y.shape[1] >= 2:
            return y
        y = np.asarray(enforce(estimator, y))
        y = y[:, 0] if y.ndim == 2 else y
        return np.column_stack([y, 2.0 * y + 1.0])

    return patched


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.SkipTestWarning")
def test_scikit_learn_estimator_checks(est, monkeypatch):
    monkeypatch.setattr(
        estimator_checks,
        "_enforce_estimator_tags_y",
        _two_target_y(estimator_checks._enforce_estimator_tags_y),
    )
    results = estimator_checks.check_estimator(est, on_fail=None)
    ran = {r["check_name"] for r in results if r["status"] == "passed"}
    assert {*ESSENTIAL_CHECKS, "check_regressor_multioutput", "check_fit_idempotent"} <= ran
    assert not [(r["check_name"], str(r["exception"])) for r in results if r["status"] == "failed"]


# --------------------------------------------------------------------------- solver configs
CONFIGS = {
    "mtr_svr": SingleTargetSVR,
    "svrrc": SVRRC,
    "svrcc": SVRCC,
    "mtr_st": ST,
    "mtr_mts": MTS,
    "mtr_mtsc": MTSC,
    "mtr_rc": RC,
    "mtr_erc": ERC,
    "mtr_ercc": ERCC,
    "mtr_morf": MORF,
}


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_solver_configs_validate_and_build(name):
    cfg = yaml.safe_load((ROOT / "conf" / "solver" / f"{name}.yaml").read_text())
    assert cfg["name"] == name and "grid" not in cfg
    spec = SolverSpec.from_config(cfg)
    spec.validate()
    assert spec.tasks == ("multitarget",) and spec.grid_points() == [{}]
    est = spec.build(random_state=5)
    assert type(est) is CONFIGS[name] and est.random_state == 5
    default = CONFIGS[name]().get_params(deep=False)
    for key, value in est.get_params(deep=False).items():
        if key not in ("estimator", "random_state"):
            assert value == default[key], (name, key)


def test_a_config_runs_through_the_evaluation_path():
    from svmlab.data.synthetic import mtr_correlated
    from svmlab.evaluation.evaluate import fit_and_score

    ds = mtr_correlated(n_samples=60, n_features=4, n_targets=3)
    spec = SolverSpec.from_config(
        yaml.safe_load((ROOT / "conf" / "solver" / "svrcc.yaml").read_text())
    )
    ev = fit_and_score(
        spec,
        {"param_grid": GRID, "inner_cv": 2},
        ds.subset(np.arange(40)),
        ds.subset(np.arange(40, 60)),
        preprocessing={"Y": "zscore"},
        random_state=0,
    )
    assert ev.metrics["arrmse"] < 1.0
    assert ev.fit_info["tune_seconds"] > 0 and len(ev.fit_info["orders"][0]) == 3


# --------------------------------------------------------------------------- real data
@pytest.mark.data
def test_slump_svrcc_beats_the_mean_and_orders_by_correlation():
    from sklearn.model_selection import KFold

    from svmlab.data.registry import load_dataset

    ds = load_dataset("slump")
    X, Y = ds.X, ds.Y
    errs = []
    for train, test in KFold(3, shuffle=True, random_state=0).split(X):
        mu, sd = X[train].mean(0), X[train].std(0)
        ym, ys = Y[train].mean(0), Y[train].std(0)
        model = SVRCC(
            param_grid={"C": [1.0, 10.0], "gamma": [0.01, 0.1], "epsilon": [0.1]},
            inner_cv=3,
            random_state=0,
        ).fit((X[train] - mu) / sd, (Y[train] - ym) / ys)
        np.testing.assert_array_equal(
            model.order_, np.argsort(-np.corrcoef(Y[train], rowvar=False).sum(0), kind="stable")
        )
        resid = model.predict((X[test] - mu) / sd) - (Y[test] - ym) / ys
        errs.append(np.sqrt((resid**2).mean(0)) / ((Y[test] - ym) / ys).std(0))
    assert np.mean(errs) < 0.9  # aRRMSE well below the mean predictor's 1


@pytest.mark.slow
def test_inner_grid_search_chooses_what_gridsearchcv_chooses():
    from sklearn.model_selection import GridSearchCV, KFold
    from sklearn.svm import SVR

    from svmlab.estimators.mtr.tuning import _grid_search

    rng = np.random.default_rng(3)
    Z = rng.normal(size=(60, 4))
    y = np.sin(2 * Z[:, 0]) + 0.2 * rng.normal(size=60)
    grid = {"C": [0.1, 1.0, 10.0], "gamma": [0.01, 0.3, 3.0], "epsilon": [0.01, 0.3]}
    ref = GridSearchCV(
        SVR(),
        grid,
        scoring="neg_root_mean_squared_error",
        cv=KFold(4, shuffle=True, random_state=11),
        refit=False,
    ).fit(Z, y)
    assert _grid_search(SVR(), grid, Z, y, 4, 11, None) == ref.best_params_
    assert _grid_search(SVR(), grid, Z, y, 4, 11, 2) == ref.best_params_


def test_an_svr_grid_shares_each_gammas_kernels_with_the_same_scores():
    from sklearn.model_selection import KFold, ParameterGrid
    from sklearn.svm import SVR

    from svmlab.estimators.mtr.tuning import (
        PAPER_GRID,
        _cv_rmse,
        _shares_rbf_kernels,
        _svr_cv_rmse,
    )

    rng = np.random.default_rng(5)
    Z = rng.normal(size=(80, 40))
    y = Z[:, 0] - np.tanh(Z[:, 1]) + 0.1 * rng.normal(size=80)
    points = list(ParameterGrid(PAPER_GRID))
    folds = list(KFold(5, shuffle=True, random_state=1).split(Z))
    template = SVR(tol=1e-4)
    assert _shares_rbf_kernels(template, points)
    shared = _svr_cv_rmse(template, points, Z, y, folds)
    alone = [_cv_rmse(template, p, Z, y, folds) for p in points]
    np.testing.assert_allclose(shared, alone, rtol=1e-7, atol=1e-9)
    assert int(np.argmin(shared)) == int(np.argmin(alone))
    assert not _shares_rbf_kernels(SVR(kernel="linear"), points)
    assert not _shares_rbf_kernels(SVR(), [{"C": 1.0}, {"C": 2.0}])  # gamma="scale"
    assert not _shares_rbf_kernels(SVR(), [{"gamma": 0.1, "degree": 2}, {"gamma": 1.0}])
