"""Tiny estimators for testing and benchmarking the runner (not for research use)."""

from __future__ import annotations

import time

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin


class _Base(ClassifierMixin, BaseEstimator):
    def fit(self, X, y):
        self.classes_, counts = np.unique(y, return_counts=True)
        self.majority_ = self.classes_[np.argmax(counts)]
        self._work()
        return self

    def predict(self, X):
        return np.full(len(X), self.majority_)

    def _work(self):
        pass


class MajorityClassifier(_Base):
    """Predicts the most frequent training class; costs (almost) nothing."""


class SleepClassifier(_Base):
    """Majority classifier whose ``fit`` sleeps ``seconds`` (timeouts, kill tests).

    Parameters
    ----------
    seconds : float, default=1.0
    """

    def __init__(self, seconds: float = 1.0):
        self.seconds = seconds

    def _work(self):
        end = time.perf_counter() + self.seconds
        while time.perf_counter() < end:  # short slices, so a timeout can interrupt it
            time.sleep(min(0.02, max(end - time.perf_counter(), 0)))


class SelfTuningClassifier(SleepClassifier):
    """Majority classifier that spends ``seconds`` in ``fit`` and reports the first ``tuned``
    of them as its own tuning (``fit_info_["tune_seconds"]``), like the MTR chains."""

    def __init__(self, seconds: float = 0.2, tuned: float = 0.15):
        self.seconds = seconds
        self.tuned = tuned

    def fit(self, X, y):
        super().fit(X, y)
        self.fit_info_ = {"tune_seconds": self.tuned}
        return self


class FailingClassifier(_Base):
    """Raises ``RuntimeError(message)`` in ``fit`` (failure rows)."""

    def __init__(self, message: str = "deliberate failure"):
        self.message = message

    def _work(self):
        raise RuntimeError(self.message)


class BusyClassifier(_Base):
    """Majority classifier whose ``fit`` burns CPU in pure Python for ``iterations`` steps."""

    def __init__(self, iterations: int = 200_000):
        self.iterations = iterations

    def _work(self):
        acc = 0
        for i in range(self.iterations):
            acc = (acc * 31 + i) % 1_000_003
        self.work_ = acc


class MeanBagClassifier(ClassifierMixin, BaseEstimator):
    """Multi-instance test double: nearest class centroid of the bags' mean instances.

    Takes ``fit(bags, y)`` / ``predict(bags)`` with ``bags`` a list of 2-D arrays, the
    multi-instance estimator API, so the runner's bag path can be tested before the
    multi-instance family exists.
    """

    def fit(self, bags, y):
        means = np.array([np.mean(b, axis=0) for b in bags])
        self.classes_ = np.unique(y)
        self.centroids_ = np.array([means[np.asarray(y) == c].mean(axis=0) for c in self.classes_])
        return self

    def decision_function(self, bags):
        means = np.array([np.mean(b, axis=0) for b in bags])
        d = ((means[:, None, :] - self.centroids_[None]) ** 2).sum(axis=2)
        return d[:, 0] - d[:, -1]

    def predict(self, bags):
        return self.classes_[(self.decision_function(bags) > 0).astype(int)]


class BlasProbeClassifier(_Base):
    """Majority classifier that records the BLAS/OpenMP thread limits it ran under.

    ``fit_info_["max_threads"]`` is the largest ``num_threads`` threadpoolctl reports
    for the libraries loaded in the fitting process.
    """

    def _work(self):
        from threadpoolctl import threadpool_info  # numpy (and its BLAS) is already loaded

        self.fit_info_ = {
            "max_threads": max((p["num_threads"] for p in threadpool_info()), default=1)
        }


class CrashClassifier(_Base):
    """Kills its own process in ``fit`` (a stand-in for a segfault or an out-of-memory kill)."""

    def _work(self):
        import os
        import signal

        os.kill(os.getpid(), signal.SIGKILL)
