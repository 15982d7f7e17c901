"""DSOLLAWV: OLLAWV for batched data streams (dissertation Ch. 6; reconstructed)."""

from __future__ import annotations

from collections import deque
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.model_selection import StratifiedKFold
from sklearn.preprocessing import StandardScaler
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from svmlab._sklearn_compat import Interval, StrOptions, _fit_context
from svmlab.contract import Contract
from svmlab.estimators._ovo import ovo_scores
from svmlab.estimators.ollawv.classifier import OLLAWVClassifier

__all__ = ["DSOLLAWVClassifier"]

#: The (gamma, margin) grid the author's stream code (github.com/melkiga/DataStreamOLLAWV)
#: searches on the first chunk; see docs/decisions/ollawv.md, "DSOLLAWV (Ch. 6) is
#: reconstructed".
GAMMA_GRID = (0.001, 0.01, 0.1, 0.5, 1.0, 2.0, 4.0, 16.0)
MARGIN_GRID = (0.0, 0.01, 0.1, 0.5)


class DSOLLAWVClassifier(ClassifierMixin, BaseEstimator):
    """DSOLLAWV: retrain an OLLAWV classifier from scratch on every chunk of a stream.

    **Reconstructed; no paper targets.** Chapter 6 of the dissertation ("OLLAWV for Batched
    Data Streams") has headings only. This follows the author's public MOA code
    (github.com/melkiga/DataStreamOLLAWV; docs/decisions/ollawv.md, "DSOLLAWV (Ch. 6) is
    reconstructed"): the hyper-parameters ``(gamma, margin)`` are tuned once, by
    stratified cross-validation on the first chunk a model is trained on; then every
    chunk replaces the model by a fresh one-vs-one OLLAWV trained on that chunk (on the
    latest ``window`` chunks, an svmlab option). As in the author's final version there is
    no ``C``: the step is ``Lambda = eta_t * y`` and training stops when every remaining
    sample has ``y * o >= margin`` (``OLLAWVClassifier`` with ``C=1`` and
    ``margin_mode="absolute"``), or when every sample was selected.

    Use it with a batched test-then-train (prequential) protocol: predict chunk ``k``
    with the model of the chunks before it, then call :meth:`partial_fit` with chunk ``k``.

    Parameters
    ----------
    gamma : float, default=1.0
        RBF precision used when ``tune=False`` (or before tuning is possible); > 0.
    margin : float, default=0.1
        Stopping margin used when ``tune=False``; >= 0.
    tune : bool, default=True
        Choose ``(gamma, margin)`` by cross-validated accuracy on the first trained chunk
        (window), then keep them for the rest of the stream.
    gamma_grid, margin_grid : sequence of float
        The tuning grid; defaults are those of the author's MOA code.
    tune_folds : int, default=10
        Folds of the stratified cross-validation (fewer when the smallest class of the
        chunk has fewer samples).
    window : int, default=1
        Number of latest chunks the model is trained on. 1 (the author's scheme) retrains
        on the newest chunk only.
    max_iter_frac : float or None, default=None
        Cap on each pairwise model's iterations, as a fraction of its samples; ``None``
        means no cap (the author's stream code stops after ``n - 1`` iterations, which
        differs only when the last sample would be selected).
    use_bias : bool, default=True
        Learn a bias in each pairwise model.
    eta : {"inv_sqrt", "inv_t"}, default="inv_sqrt"
        Learning-rate schedule of :class:`OLLAWVClassifier`.
    eta_scale : float, default=2.0
        Numerator of the learning rate.
    standardize : bool, default=False
        z-score each training window with its own mean and standard deviation (the
        author's option) and apply that scaling when predicting with the resulting model.
        Leave it off when the input is already scaled.
    random_state : int, RandomState instance or None, default=None
        Seeds the per-chunk shuffles and the tuning folds; a fixed value makes the whole
        stream deterministic.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The classes given to the first :meth:`partial_fit`, or, when none were given, every
        label seen so far (sorted; it grows when a new label arrives).
    model_ : OLLAWVClassifier or None
        The current model; ``None`` until a chunk (window) with two trainable classes
        arrived. A class with a single sample in the window is left out of its training.
    gamma_, margin_ : float
        The hyper-parameters in use (tuned or given).
    tuning_scores_ : dict or None
        ``{(gamma, margin): mean CV accuracy}`` of the tuning, ``None`` if not tuned.
    n_support_ : ndarray of shape (n_classes,), dtype int32
        Support vectors of the current model per class of ``classes_`` (zeros without a
        model).
    n_chunks_seen_, n_samples_seen_ : int
        Chunks and samples received by :meth:`partial_fit` (since the last :meth:`fit`).
    fit_info_ : dict
        ``trained`` (one bool per chunk: whether the model was replaced),
        ``tuned_on_chunk`` (index of the tuning chunk or ``None``) and ``iterations`` of
        the current model's pairwise models.
    n_features_in_ : int
        Number of features.

    Notes
    -----
    **Degenerate chunks.** When the training window holds fewer than two classes with at
    least two samples each, the previous model is kept. Before any model exists,
    :meth:`predict` returns the most frequent label seen so far. Calling :meth:`predict`
    before any chunk raises ``NotFittedError``.

    :meth:`fit` forgets the stream and trains on ``(X, y)`` as one chunk (with tuning),
    so the estimator is also an ordinary batch classifier.

    References
    ----------
    G. A. Melki, "Novel Support Vector Machines for Diverse Learning Paradigms", PhD
    dissertation, Virginia Commonwealth University, 2018, Ch. 5–6 and Ch. 8 (item 5).
    """

    svmlab_contract = Contract(input="stream")

    _parameter_constraints: dict = {
        "gamma": [Interval(Real, 0, None, closed="neither")],
        "margin": [Interval(Real, 0, None, closed="left")],
        "tune": ["boolean"],
        "gamma_grid": ["array-like"],
        "margin_grid": ["array-like"],
        "tune_folds": [Interval(Integral, 2, None, closed="left")],
        "window": [Interval(Integral, 1, None, closed="left")],
        "max_iter_frac": [Interval(Real, 0, None, closed="neither"), None],
        "use_bias": ["boolean"],
        "eta": [StrOptions({"inv_sqrt", "inv_t"})],
        "eta_scale": [Interval(Real, 0, None, closed="neither")],
        "standardize": ["boolean"],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        gamma=1.0,
        margin=0.1,
        tune=True,
        gamma_grid=GAMMA_GRID,
        margin_grid=MARGIN_GRID,
        tune_folds=10,
        window=1,
        max_iter_frac=None,
        use_bias=True,
        eta="inv_sqrt",
        eta_scale=2.0,
        standardize=False,
        random_state=None,
    ):
        self.gamma = gamma
        self.margin = margin
        self.tune = tune
        self.gamma_grid = gamma_grid
        self.margin_grid = margin_grid
        self.tune_folds = tune_folds
        self.window = window
        self.max_iter_frac = max_iter_frac
        self.use_bias = use_bias
        self.eta = eta
        self.eta_scale = eta_scale
        self.standardize = standardize
        self.random_state = random_state

    # ------------------------------------------------------------------ training
    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Forget the stream and train on ``(X, y)`` as a single chunk.

        Returns
        -------
        self : DSOLLAWVClassifier
        """
        for attr in ("classes_", "n_features_in_", "feature_names_in_"):
            self.__dict__.pop(attr, None)
        return self._partial_fit(X, y, None)

    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y, classes=None):
        """Receive one chunk and retrain on the latest ``window`` chunks.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        classes : array-like of shape (n_classes,), default=None
            All the labels of the stream. Only taken on the first call (later calls must
            give the same or ``None``); labels outside it are then an error. Without it
            ``classes_`` grows with the labels seen.

        Returns
        -------
        self : DSOLLAWVClassifier
        """
        return self._partial_fit(X, y, classes)

    def _partial_fit(self, X, y, classes):
        first = not hasattr(self, "classes_")
        X, y = validate_data(self, X, y, dtype=np.float64, order="C", reset=first)
        check_classification_targets(y)
        if first:
            self._fixed_classes = classes is not None
            self.classes_ = np.unique(classes if classes is not None else y)
            self._rng = check_random_state(self.random_state)
            self._window = deque(maxlen=self.window)
            self._seen = {}
            self.model_, self._scaler = None, None
            self.gamma_, self.margin_ = float(self.gamma), float(self.margin)
            self.tuning_scores_ = None
            self.n_chunks_seen_ = self.n_samples_seen_ = 0
            self.fit_info_ = {"trained": [], "tuned_on_chunk": None, "iterations": []}
        elif classes is not None and not np.array_equal(np.unique(classes), self.classes_):
            raise ValueError(
                f"classes={np.unique(classes).tolist()} differs from the first call's "
                f"{self.classes_.tolist()}"
            )
        new = np.setdiff1d(y, self.classes_)
        if new.size:
            if self._fixed_classes:
                raise ValueError(
                    f"labels {new.tolist()} are not in classes {self.classes_.tolist()}"
                )
            self.classes_ = np.union1d(self.classes_, new)
        for label, count in zip(*np.unique(y, return_counts=True)):
            self._seen[label] = self._seen.get(label, 0) + int(count)

        self._window.append((X, y))
        Xw = np.concatenate([c[0] for c in self._window])
        yw = np.concatenate([c[1] for c in self._window])
        seed = int(
            self._rng.randint(np.iinfo(np.int32).max)
        )  # drawn every chunk: reproducible streams
        scaler = StandardScaler().fit(Xw) if self.standardize else None
        Xt = scaler.transform(Xw) if scaler is not None else Xw
        Xt, yt = _trainable(Xt, yw)
        trained = yt is not None
        if trained:
            if self.tune and self.tuning_scores_ is None:
                self._tune(Xt, yt, seed)
                self.fit_info_["tuned_on_chunk"] = self.n_chunks_seen_
            self.model_ = self._ollawv(self.gamma_, self.margin_, seed).fit(Xt, yt)
            self._scaler = scaler
            self.fit_info_["iterations"] = list(self.model_.fit_info_["iterations"])
        self.fit_info_["trained"].append(trained)
        self.n_chunks_seen_ += 1
        self.n_samples_seen_ += len(y)
        self.n_support_ = np.zeros(len(self.classes_), dtype=np.int32)
        if self.model_ is not None:
            self.n_support_[np.searchsorted(self.classes_, self.model_.classes_)] = (
                self.model_.n_support_
            )
        return self

    def _ollawv(self, gamma, margin, seed):
        return OLLAWVClassifier(
            C=1.0,
            gamma=gamma,
            margin=margin,
            margin_mode="absolute",
            max_iter_frac=self.max_iter_frac,
            use_bias=self.use_bias,
            eta=self.eta,
            eta_scale=self.eta_scale,
            shuffle=True,
            random_state=seed,
        )

    def _tune(self, X, y, seed):
        """Pick ``(gamma, margin)`` by stratified CV accuracy; ties go to the first grid point."""
        folds = min(self.tune_folds, int(np.unique(y, return_counts=True)[1].min()))
        splits = list(StratifiedKFold(folds, shuffle=True, random_state=seed).split(X, y))
        scores = {}
        for gamma in self.gamma_grid:
            for margin in self.margin_grid:
                acc = []
                for train, test in splits:
                    Xa, ya = _trainable(X[train], y[train])
                    if ya is None:  # a fold without two trainable classes: predict its majority
                        labels, counts = np.unique(y[train], return_counts=True)
                        acc.append(np.mean(y[test] == labels[np.argmax(counts)]))
                        continue
                    model = self._ollawv(float(gamma), float(margin), seed).fit(Xa, ya)
                    acc.append(np.mean(model.predict(X[test]) == y[test]))
                scores[(float(gamma), float(margin))] = float(np.mean(acc))
        self.gamma_, self.margin_ = max(scores, key=scores.get)  # first maximum in grid order
        self.tuning_scores_ = scores

    # ------------------------------------------------------------------ prediction
    def _inputs(self, X):
        check_is_fitted(self, "classes_")
        X = validate_data(self, X, dtype=np.float64, order="C", reset=False)
        return self._scaler.transform(X) if self._scaler is not None else X

    def _fallback(self):
        """The most frequent label seen (the first such in ``classes_`` order)."""
        counts = np.array([self._seen.get(c, 0) for c in self.classes_])
        return int(np.argmax(counts))

    def decision_function(self, X):
        """Decision values of the current model, in terms of ``classes_``.

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
            Two classes: positive means ``classes_[1]``. More: the one-vs-one score of
            :meth:`OLLAWVClassifier.decision_function` (votes plus a tie-break term in
            (-1/3, 1/3)) per class, -1 for a class the current model was not trained on.
            Without a model: +-1 (two classes) or a one-hot row for the fallback label.
        """
        X = self._inputs(X)
        n, k = X.shape[0], len(self.classes_)
        if self.model_ is None:
            c = self._fallback()
            if k == 2:
                return np.full(n, 1.0 if c == 1 else -1.0)
            scores = np.zeros((n, k))
            scores[:, c] = 1.0
            return scores
        d = self.model_.decision_function(X)
        if k == 2:  # the model then has both classes, in the same order
            return d
        if d.ndim == 1:  # a binary model inside a multiclass stream: its two OvO scores
            d = ovo_scores(np.column_stack([d <= 0, d > 0]).astype(float), np.column_stack([-d, d]))
        scores = np.full((n, k), -1.0)
        scores[:, np.searchsorted(self.classes_, self.model_.classes_)] = d
        return scores

    def predict(self, X):
        """Labels predicted by the current model (see :meth:`OLLAWVClassifier.predict`).

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
        """
        X = self._inputs(X)
        if self.model_ is None:
            return np.full(X.shape[0], self.classes_[self._fallback()])
        return self.model_.predict(X)


def _trainable(X, y):
    """Drop the classes with a single sample; ``(X, y)``, or ``(X, None)`` if < 2 classes remain."""
    labels, counts = np.unique(y, return_counts=True)
    if (counts >= 2).sum() < 2:
        return X, None
    if (counts < 2).any():
        keep = np.isin(y, labels[counts >= 2])
        X, y = X[keep], y[keep]
    return X, y
