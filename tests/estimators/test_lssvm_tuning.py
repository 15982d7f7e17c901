"""The LSSVM family's (C, gamma) search, cached across the variants of one split."""

import numpy as np


def test_a_cached_search_is_read_back_by_every_variant(tmp_path, monkeypatch):
    monkeypatch.setenv("SVMLAB_CACHE_DIR", str(tmp_path / "user_cache"))
    """memory: the first variant searches, the others on the same split read its result."""
    from svmlab.estimators.lssvm import CCLSSVMClassifier, LSSVMClassifier
    from svmlab.estimators.lssvm import tuning as tuning_module

    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 2))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=80) > 0, 1, -1)
    grids = dict(Cs=[0.5, 8.0], gammas=[0.1, 1.0], tune_folds=3, random_state=4)
    searches = []
    real = tuning_module.cv_scores
    monkeypatch.setattr(
        tuning_module, "cv_scores", lambda *a, **k: searches.append(1) or real(*a, **k)
    )
    cached = LSSVMClassifier(C=None, gamma=None, memory=str(tmp_path), **grids).fit(X, y)
    again = CCLSSVMClassifier(C=None, gamma=None, memory=str(tmp_path), **grids).fit(X, y)
    assert len(searches) == 1
    plain = LSSVMClassifier(C=None, gamma=None, **grids).fit(X, y)
    assert len(searches) == 2
    assert (cached.C_, cached.gamma_) == (again.C_, again.gamma_) == (plain.C_, plain.gamma_)
    other_seed = {**grids, "random_state": 5}
    LSSVMClassifier(C=None, gamma=None, memory=str(tmp_path), **other_seed).fit(X, y)
    assert len(searches) == 3  # another seed, other folds: searched again
    auto = tuning_module.tuning_memory("auto").location
    assert str(auto) == str(tmp_path / "user_cache" / "lssvm-tuning")
