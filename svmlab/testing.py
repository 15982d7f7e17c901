"""Tiny estimators for testing and benchmarking the runner (not for research use)."""

from __future__ import annotations

import os
import time
from contextlib import contextmanager

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin

from svmlab.contract import Contract


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


class HungClassifier(_Base):
    """Majority classifier whose ``fit`` makes one blocking call into C for ``seconds``,
    with SIGALRM/SIGINT/SIGTERM blocked: the stand-in for a long compiled call (a LIBSVM
    fit, a numba loop) that no Python-level interrupt can stop, only a killed process.

    Parameters
    ----------
    seconds : float, default=30.0
    """

    def __init__(self, seconds: float = 30.0):
        self.seconds = seconds

    def _work(self):
        import signal

        blocked = {signal.SIGALRM, signal.SIGINT, signal.SIGTERM}
        previous = signal.pthread_sigmask(signal.SIG_BLOCK, blocked)
        try:
            time.sleep(self.seconds)  # one C call: no bytecode boundary until it returns
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, previous)


class SelfTuningClassifier(SleepClassifier):
    """Majority classifier that spends ``seconds`` in ``fit`` and reports the first ``tuned``
    of them as its own tuning (``fit_info_["tune_seconds"]``), like the MTR chains."""

    svmlab_contract = Contract(tune_seconds="tune_seconds")

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

    svmlab_contract = Contract(input="bags")

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


# --------------------------------------------------------------------------- test-suite helpers


def benchmark_data_dir():
    """The first ``SVMLAB_DATA_DIR`` directory holding the benchmark ``MANIFEST.tsv``, or None.

    The test suite's ``data`` marker (``tests/conftest.py``) skips a test when this is None:
    the absence of the benchmark folder is the only reason a data test may skip.
    """
    from svmlab.paths import data_dirs

    for d in data_dirs():
        if (d / "MANIFEST.tsv").is_file():
            return d
    return None


#: Environment of a test Ray cluster and of every process that joins it: ``ray start --head``
#: turns Ray's token authentication on by default, which a test cluster on 127.0.0.1 does
#: without (a worker node or a driver would otherwise need the token too).
RAY_TEST_ENV = {"RAY_AUTH_MODE": "disabled", "RAY_USAGE_STATS_ENABLED": "0"}


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def ray_cluster_processes(temp_dir: str) -> list:
    """The processes (``psutil.Process``) of the Ray cluster whose session is in ``temp_dir``,
    with all their children (the worker processes)."""
    import psutil

    found = {}
    for proc in psutil.process_iter(["cmdline"]):
        try:
            if temp_dir in " ".join(proc.info["cmdline"] or ()):
                for p in [proc, *proc.children(recursive=True)]:
                    found[p.pid] = p
        except psutil.Error:
            continue
    return list(found.values())


@contextmanager
def local_ray_cluster(cpus_per_node=(1, 1)):
    """A Ray cluster on 127.0.0.1, as ``ray start`` makes one: a head and one node per further
    entry of ``cpus_per_node``; yields ``(address, temp_dir)`` and kills every process of the
    cluster (and only those) on exit. The caller sets :data:`RAY_TEST_ENV` for its driver.
    """
    import shutil
    import subprocess
    import sys
    import tempfile
    from pathlib import Path

    ray_cli = str(Path(sys.executable).with_name("ray"))
    env = {**os.environ, **RAY_TEST_ENV}
    temp_dir = tempfile.mkdtemp(prefix="svr", dir="/tmp")  # short: Ray's sockets live there
    address = f"127.0.0.1:{_free_port()}"
    head = ["--head", "--port", address.rsplit(":", 1)[1], "--temp-dir", temp_dir]
    head += ["--include-dashboard", "false"]
    try:
        for i, cpus in enumerate(cpus_per_node):
            where = head if i == 0 else ["--address", address]
            cmd = [ray_cli, "start", "--num-cpus", str(cpus), "--node-ip-address", "127.0.0.1"]
            cmd += ["--object-store-memory", str(200 * 2**20)]  # not 30% of memory each
            done = subprocess.run(
                [*cmd, *where], env=env, capture_output=True, text=True, timeout=120
            )
            if done.returncode != 0:
                raise RuntimeError(f"ray start failed: {done.stderr.strip()[-1500:]}")
        yield address, temp_dir
    finally:
        for proc in ray_cluster_processes(temp_dir):
            try:
                proc.kill()
            except Exception:  # already gone
                pass
        shutil.rmtree(temp_dir, ignore_errors=True)


#: scikit-learn checks that the estimator test files run on their own estimator variants
#: (beside the full ``check_estimator`` run of ``tests/test_conformance.py`` on the configs).
ESSENTIAL_CHECKS = (
    "check_estimators_dtypes",
    "check_fit2d_predict1d",
    "check_estimators_fit_returns_self",
    "check_dont_overwrite_parameters",
    "check_n_features_in",
    "check_estimators_pickle",
)


def essential_checks(*, exclude=()):
    """The :data:`ESSENTIAL_CHECKS` as functions of ``sklearn.utils.estimator_checks``, for
    ``pytest.mark.parametrize("check", essential_checks(), ids=lambda c: c.__name__)``."""
    from sklearn.utils import estimator_checks

    return [getattr(estimator_checks, n) for n in ESSENTIAL_CHECKS if n not in exclude]


def registered_solvers(solver_dir=None) -> dict:
    """Every solver configuration ``conf/solver/*.yaml`` as a ``SolverSpec``, by file stem.

    The conformance suite (``tests/test_conformance.py``) parametrizes over this, so a new
    solver file is checked without touching the tests.
    """
    import yaml

    from svmlab.paths import conf_dir
    from svmlab.solvers import SolverSpec

    folder = solver_dir if solver_dir is not None else conf_dir() / "solver"
    return {
        p.stem: SolverSpec.from_config(yaml.safe_load(p.read_text()))
        for p in sorted(folder.glob("*.yaml"))
    }


def weka_pairs(solver_dir=None) -> dict:
    """``X -> (native spec, Weka spec)`` for every ``conf/solver/weka_X.yaml`` beside an
    ``X.yaml``: the native re-implementation and the real Weka classifier it stands for."""
    solvers = registered_solvers(solver_dir)
    return {
        name[len("weka_") :]: (solvers[name[len("weka_") :]], spec)
        for name, spec in solvers.items()
        if name.startswith("weka_") and name[len("weka_") :] in solvers
    }


def solver_targets(spec) -> list[str]:
    """Every ``_target_`` of a solver: its class and the classes of nested estimators."""
    found = [spec.target]

    def walk(value):
        if isinstance(value, dict):
            if "_target_" in value:
                found.append(value["_target_"])
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    walk(spec.params)
    return found


def is_svmlab_solver(spec) -> bool:
    """True when the solver or one of its nested estimators is a class of svmlab."""
    return any(t.startswith("svmlab.") for t in solver_targets(spec))


#: Caps on work-size parameters for the conformance tests: on the checks' tiny data sets the
#: configured values (1000 generations, 100 bagged trees, 10 inner folds, ...) only cost time.
FAST_CAPS = {
    "max_iter": 50,
    "max_starts": 2,
    "n_estimators": 5,
    "n_chains": 2,
    "oof_folds": 2,
    "inner_cv": 2,
    "tune_folds": 3,
    "population_size": 6,
    "max_generations": 3,
}
#: The evolutionary SVMs (:mod:`svmlab.estimators.evo`, one cheap fitness per individual) keep
#: more of their search, enough for scikit-learn's accuracy checks; the wrapper searches (a
#: cross-validation per fitness) take :data:`FAST_CAPS`.
FAST_CAPS_EVO = {**FAST_CAPS, "population_size": 10, "max_generations": 30}


def fast(estimator):
    """``estimator`` with every parameter of :data:`FAST_CAPS` (nested ones included) capped
    (:data:`FAST_CAPS_EVO` for an estimator of :mod:`svmlab.estimators.evo`), a named tuning
    grid (``param_grid="paper"``) replaced by ``{"C": [1.0, 10.0]}`` and a list-valued
    ``*_grid`` parameter cut to its first, middle and last values."""
    changes = {}
    params = estimator.get_params(deep=True)
    for key, value in params.items():
        owner_key, _, last = key.rpartition("__")
        owner = params[owner_key] if owner_key else estimator
        evo = type(owner).__module__.startswith("svmlab.estimators.evo.")
        cap = (FAST_CAPS_EVO if evo else FAST_CAPS).get(last)
        if cap is not None and isinstance(value, int) and not isinstance(value, bool):
            if value > cap:
                changes[key] = cap
        elif last == "param_grid" and isinstance(value, str):
            changes[key] = {"C": [1.0, 10.0]}
        elif last.endswith("_grid") and isinstance(value, list) and len(value) > 3:
            changes[key] = [value[0], value[len(value) // 2], value[-1]]
    return estimator.set_params(**changes) if changes else estimator


def write_weka_arff(path, X, y, n_classes: int, sample_weight=None) -> None:
    """An ARFF file of numeric ``X`` and class indices ``y`` (classes ``c0 .. c{K-1}``), with
    Weka's ``{weight}`` per row when ``sample_weight`` is given."""
    from pathlib import Path

    lines = ["@relation t"] + [f"@attribute f{j + 1} numeric" for j in range(X.shape[1])]
    lines += ["@attribute class {" + ",".join(f"c{k}" for k in range(n_classes)) + "}", "@data"]
    for i, (x, c) in enumerate(zip(np.asarray(X, dtype=float).tolist(), y)):
        weight = "" if sample_weight is None else f",{{{float(sample_weight[i])!r}}}"
        lines.append(",".join(map(repr, x)) + f",c{int(c)}{weight}")
    Path(path).write_text("\n".join(lines) + "\n")


def weka_classify(workdir, classname, options, X, y, X_test, *, sample_weight=None, n_classes=None):
    """Test-set class indices and class distributions of the real Weka 3.6 propositional
    classifier ``classname`` (with ``options``) trained on ``X``, ``y`` (class indices 0..K-1),
    for the parity tests of svmlab's re-implementations (needs Java and weka.jar)."""
    import subprocess
    from pathlib import Path

    from svmlab.estimators.mil.weka import find_java, find_weka_jar, parse_predictions

    workdir = Path(workdir)
    K = int(n_classes if n_classes is not None else np.max(y) + 1)
    write_weka_arff(workdir / "train.arff", X, y, K, sample_weight)
    write_weka_arff(workdir / "test.arff", X_test, np.zeros(len(X_test), int), K)
    out = subprocess.run(
        [find_java(), "-cp", str(find_weka_jar()), classname]
        + ["-t", str(workdir / "train.arff"), "-T", str(workdir / "test.arff")]
        + ["-p", "0", "-distribution"]
        + list(options),
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return parse_predictions(out, len(X_test), K)
