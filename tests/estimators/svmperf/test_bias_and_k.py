"""SVMPerfClassifier's bias feature (SVM^perf's ``--b``) and the Prec@k / Rec@k losses with
their ``k_fraction`` (SVM^perf's ``--p``)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_classification

from svmlab.estimators.svmperf import MKLPOClassifier, SVMPerfClassifier
from svmlab.estimators.svmperf.blocks import GramBlock
from svmlab.estimators.svmperf.cutting_plane import cutting_plane
from svmlab.estimators.svmperf.kernel_bank import KernelBank
from svmlab.estimators.svmperf.oracles import measure_value, most_violated


def _data(n=120, seed=0, shift=1.5):
    X, y = make_classification(
        n,
        5,
        n_informative=3,
        n_redundant=0,
        n_clusters_per_class=1,
        weights=[0.7],
        random_state=seed,
    )
    return X + shift, y  # shifted: a bias matters


def _objective(Z, y_pm, w, loss, C, **opts):
    f = Z @ w
    return 0.5 * w @ w + C * max(0.0, most_violated(loss, y_pm, f, **opts).violation(f))


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("loss", ["accuracy", "f1", "prbep", "prec_at_k"])
@pytest.mark.parametrize("B", [1.0, 2.5])
def test_bias_equals_an_appended_constant_column(loss, B, sparse):
    X, y = _data()
    Xa = np.hstack([X, np.full((len(y), 1), B)])
    if sparse:
        X, Xa = sp.csr_matrix(X), sp.csr_matrix(Xa)
    with_bias = SVMPerfClassifier(loss=loss, C=10.0, bias=B).fit(X, y)
    appended = SVMPerfClassifier(loss=loss, C=10.0).fit(Xa, y)
    np.testing.assert_allclose(with_bias.coef_, appended.coef_[:-1], rtol=1e-12, atol=1e-12)
    assert with_bias.intercept_ == pytest.approx(B * appended.coef_[-1], rel=1e-12, abs=1e-12)
    assert with_bias.n_iter_ == appended.n_iter_
    assert with_bias.fit_info_["final_primal"] == pytest.approx(
        appended.fit_info_["final_primal"], rel=1e-12
    )
    np.testing.assert_allclose(
        with_bias.decision_function(X), appended.decision_function(Xa), rtol=1e-10, atol=1e-10
    )
    np.testing.assert_array_equal(with_bias.predict(X), appended.predict(Xa))
    # the recorded primal is the objective of [w, w_bias] on the augmented rows
    w = np.append(with_bias.coef_, with_bias.intercept_ / B)
    y_pm = np.where(y == 1, 1, -1)
    dense = Xa.toarray() if sparse else Xa
    assert _objective(dense, y_pm, w, loss, 10.0) == pytest.approx(
        with_bias.fit_info_["final_primal"], rel=1e-9
    )


def test_bias_changes_the_model_and_zero_is_no_bias():
    X, y = _data(seed=1)
    plain = SVMPerfClassifier(loss="accuracy", C=10.0).fit(X, y)
    zero = SVMPerfClassifier(loss="accuracy", C=10.0, bias=0.0).fit(X, y)
    biased = SVMPerfClassifier(loss="accuracy", C=10.0, bias=1.0).fit(X, y)
    assert SVMPerfClassifier().get_params()["bias"] == 0.0
    assert plain.intercept_ == 0.0
    np.testing.assert_array_equal(plain.coef_, zero.coef_)
    assert biased.fit_info_["final_primal"] < plain.fit_info_["final_primal"]
    assert biased.intercept_ != 0.0


def test_kernel_bias_is_the_gram_matrix_plus_b_squared():
    X, y = _data(n=60, seed=2)
    B, C = 1.5, 5.0
    est = SVMPerfClassifier(loss="f1", C=C, kernel="rbf", bias=B).fit(X, y)
    K = KernelBank([{"kernel": "rbf", "gamma_factor": 1.0}]).fit(X).blocks()[0].K
    y_pm = np.where(y == 1, 1, -1)
    res = cutting_plane([GramBlock(K + B * B)], y_pm, "f1", C=C, epsilon=0.1)
    np.testing.assert_allclose(est.beta_, res.G @ res.alpha, rtol=1e-9, atol=1e-9)
    assert est.fit_info_["final_primal"] == pytest.approx(res.primal, rel=1e-12)
    assert est.intercept_ == pytest.approx(B * B * est.beta_.sum())
    np.testing.assert_allclose(est.decision_function(X), (K + B * B) @ est.beta_, atol=1e-9)


def test_kernel_bias_nystroem_with_every_landmark_equals_exact():
    X, y = _data(n=50, seed=3)
    kw = {"loss": "accuracy", "C": 5.0, "kernel": "rbf", "bias": 1.0, "epsilon": 0.001}
    exact = SVMPerfClassifier(**kw).fit(X, y)
    nys = SVMPerfClassifier(**kw, kernel_approx="nystrom", n_components=50).fit(X, y)
    assert nys.fit_info_["final_primal"] == pytest.approx(exact.fit_info_["final_primal"], rel=1e-3)
    np.testing.assert_allclose(nys.decision_function(X), exact.decision_function(X), atol=0.05)
    assert nys.intercept_ == pytest.approx(exact.intercept_, rel=0.05, abs=0.05)


@pytest.mark.parametrize("loss", ["prec_at_k", "rec_at_k"])
def test_at_k_losses_fit_and_k_fraction_reaches_the_oracle(loss):
    X, y = _data(n=150, seed=4, shift=0.0)
    default = SVMPerfClassifier(loss=loss, C=10.0, bias=1.0).fit(X, y)
    other = 1.0 if loss == "prec_at_k" else 1.0001
    assert default.fit_info_["stop_reason"] == "converged"
    scores = default.decision_function(X)
    assert measure_value(loss, y * 2 - 1, scores) > 0.5
    k_set = SVMPerfClassifier(loss=loss, C=10.0, bias=1.0, k_fraction=other).fit(X, y)
    assert not np.allclose(k_set.coef_, default.coef_)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"bias": -1.0}, r"bias must be >= 0 \(0: no bias feature\); got -1.0"),
        ({"bias": np.inf}, "bias must be a finite number"),
        ({"bias": "1"}, "bias must be a finite number"),
        ({"loss": "prec_at_k", "k_fraction": 2.0}, r"k_fraction for prec_at_k must lie in"),
        ({"loss": "rec_at_k", "k_fraction": 0.5}, "k_fraction for rec_at_k must be a finite"),
    ],
)
def test_bad_bias_and_k_fraction_get_one_clear_line(kwargs, message):
    X, y = _data(n=30)
    with pytest.raises(ValueError, match=message):
        SVMPerfClassifier(**kwargs).fit(X, y)


def test_mklpo_has_no_bias_but_takes_k_fraction():
    assert "bias" not in MKLPOClassifier().get_params()
    X, y = _data(n=40, seed=5)
    est = MKLPOClassifier(loss="prec_at_k", k_fraction=1.0, kernels="rbf", C=5.0).fit(X, y)
    assert est.fit_info_["measure_optimised"] == "prec_at_k"
    with pytest.raises(ValueError, match="k_fraction for prec_at_k"):
        MKLPOClassifier(loss="prec_at_k", k_fraction=3.0).fit(X, y)
