"""The Weka multi-instance classifier run in a subprocess: :class:`WekaMIClassifier`."""

from __future__ import annotations

import hashlib
import os
import shlex
import subprocess
import tempfile
import time
from numbers import Real
from pathlib import Path

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from svmlab._sklearn_compat import Interval, _fit_context
from svmlab.contract import Contract
from svmlab.estimators.mil._bags import check_bag_labels, check_bags
from svmlab.estimators.mil.weka.arff import parse_predictions, write_mi_arff
from svmlab.estimators.mil.weka.java import find_java, find_weka_jar, parse_options

__all__ = ["RBF_KERNELS", "WekaMIClassifier"]

#: The support vector classifiers of ``weka.classifiers.mi`` and the RBF kernel each takes
#: through ``-K``; :class:`WekaMIClassifier`'s ``C`` and ``sigma`` apply to these only.
RBF_KERNELS = {
    "weka.classifiers.mi.MISMO": "weka.classifiers.mi.supportVector.MIRBFKernel",
    "weka.classifiers.mi.MISVM": "weka.classifiers.functions.supportVector.RBFKernel",
}


class WekaMIClassifier(ClassifierMixin, BaseEstimator):
    """A Weka multi-instance classifier run in a subprocess (lazy: Weka trains at predict time).

    Parameters
    ----------
    classname : str, default="weka.classifiers.mi.MISMO"
        The Weka classifier class, e.g. ``weka.classifiers.mi.MISVM``,
        ``weka.classifiers.mi.SimpleMI``, ``weka.classifiers.mi.MIWrapper``,
        ``weka.classifiers.mi.MIBoost``, ``weka.classifiers.mi.MIDD``,
        ``weka.classifiers.mi.MIOptimalBall``. Meta classifiers (``weka.classifiers.meta.Bagging``,
        ``...Stacking``) work too when their base learners are multi-instance capable.
    options : str or list of str, default=""
        Weka options of that classifier, as on Weka's command line (shell quoting for nested
        options, ``--`` before the options of a ``-W`` base classifier). Empty: Weka's defaults.
    C : float, optional
        MISMO and MISVM only: the complexity constant, written as ``-C C`` (None: Weka's
        default, 1, or what ``options`` says).
    sigma : float, optional
        MISMO and MISVM only: use Weka's RBF kernel of width ``sigma`` (``MIRBFKernel`` for
        MISMO, ``RBFKernel`` for MISVM), written as ``-K "<kernel> -G g"`` with
        ``g = 1 / (2 sigma^2)``, because Weka's RBF is ``exp(-g ||x - x'||^2)``. With ``C``
        this gives the Weka classifiers the same ``grid: {C: [...], sigma: [...]}`` as
        svmlab's own. None: the kernel of ``options`` (Weka's default: linear).
    weka_jar : str or Path, optional
        Path of ``weka.jar``; default ``$SVMLAB_WEKA_JAR``, else ``/usr/share/java/weka.jar``.
    java : str, default="java"
        The Java launcher (a name on PATH or a path).
    timeout : float, optional
        Seconds a Weka run may take before it is killed (None: no limit).
    jvm_options : str, default=""
        Extra JVM arguments, e.g. ``"-Xmx4g"`` for large data.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The bag labels, sorted; ``classes_[k]`` is written as Weka class value ``k``.
    n_features_in_ : int
    fit_info_ : dict
        ``n_bags``, ``n_instances``, ``classname`` and ``lazy`` (True).
    last_run_ : dict
        After a prediction: the ``command``, its wall-clock ``seconds`` and Weka's ``stderr``.
    """

    svmlab_contract = Contract(input="bags")

    _parameter_constraints: dict = {
        "classname": [str],
        "options": [str, list, tuple, None],
        "C": [Interval(Real, 0.0, None, closed="neither"), None],
        "sigma": [Interval(Real, 0.0, None, closed="neither"), None],
        "weka_jar": [str, os.PathLike, None],
        "java": [str],
        "timeout": [Interval(Real, 0.0, None, closed="neither"), None],
        "jvm_options": [str],
    }

    def __init__(
        self,
        classname: str = "weka.classifiers.mi.MISMO",
        options="",
        C: float | None = None,
        sigma: float | None = None,
        weka_jar=None,
        java: str = "java",
        timeout: float | None = None,
        jvm_options: str = "",
    ):
        self.classname = classname
        self.options = options
        self.C = C
        self.sigma = sigma
        self.weka_jar = weka_jar
        self.java = java
        self.timeout = timeout
        self.jvm_options = jvm_options

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, bags, y, sample_weight=None):
        """Check the input and Weka's presence, and store the training bags.

        Parameters
        ----------
        bags : sequence of array-like of shape (n_instances_I, n_features)
        y : array-like of shape (n_bags,)
            Exactly two classes.
        sample_weight : array-like of shape (n_bags,), optional
            Bag weights, written as Weka instance weights ``{w}``.

        Returns
        -------
        self : object

        Raises
        ------
        WekaNotAvailableError
            When Java or weka.jar is missing (names ``make weka``).
        ValueError
            For invalid bags, labels, weights or options.
        """
        self._weka_args()
        if not self.classname.strip() or any(c.isspace() for c in self.classname):
            raise ValueError(f"classname must be one Java class name, got {self.classname!r}")
        find_java(self.java)
        find_weka_jar(self.weka_jar)
        X, starts, sizes = check_bags(bags)
        self.classes_, y_idx = check_bag_labels(y, len(sizes), "WekaMIClassifier")
        if sample_weight is not None:
            sample_weight = np.asarray(sample_weight, dtype=np.float64).ravel()
            if sample_weight.shape != (len(sizes),):
                raise ValueError(
                    f"sample_weight has {sample_weight.size} values for {len(sizes)} bags"
                )
            if not np.all(np.isfinite(sample_weight)) or np.any(sample_weight < 0):
                raise ValueError("sample_weight must be finite and non-negative")
        self.n_features_in_ = X.shape[1]
        self._train = (X, starts, sizes, y_idx, sample_weight)
        self._cache = None
        self.fit_info_ = {
            "n_bags": int(len(sizes)),
            "n_instances": int(X.shape[0]),
            "classname": self.classname,
            "lazy": True,
        }
        return self

    # -- running Weka --------------------------------------------------------------------------
    def _run(self, bags):
        """Predicted class indices and distributions of ``bags`` (cached for the last test set)."""
        check_is_fitted(self)
        Xt, st, szt = check_bags(bags, self.n_features_in_)
        settings = repr(
            (self._weka_args(), self.classname, str(self.weka_jar), self.java, self.jvm_options)
        )
        digest = hashlib.sha256(Xt.tobytes() + szt.tobytes() + settings.encode()).hexdigest()
        if self._cache is not None and self._cache[0] == digest:
            return self._cache[1], self._cache[2]
        java, jar = find_java(self.java), find_weka_jar(self.weka_jar)
        X, starts, sizes, y_idx, weights = self._train
        train_bags = np.split(X, starts[1:])
        test_bags = np.split(Xt, st[1:])
        ids = [f"b{i}" for i in range(len(train_bags))] + [f"t{i}" for i in range(len(test_bags))]
        levels = [str(k) for k in range(len(self.classes_))]
        with tempfile.TemporaryDirectory(prefix="svmlab_weka_") as tmp:
            train_path, test_path = Path(tmp) / "train.arff", Path(tmp) / "test.arff"
            d = self.n_features_in_
            n_train = len(train_bags)
            write_mi_arff(
                train_path,
                train_bags,
                [levels[k] for k in y_idx],
                bag_ids=ids[:n_train],
                declared_ids=ids,
                class_levels=levels,
                weights=weights,
                relation="svmlab",
                n_features=d,
            )
            write_mi_arff(
                test_path,
                test_bags,
                [None] * len(test_bags),
                bag_ids=ids[n_train:],
                declared_ids=ids,
                class_levels=levels,
                relation="svmlab",
                n_features=d,
            )
            command = [
                java,
                *shlex.split(self.jvm_options),
                "-cp",
                str(jar),
                self.classname,
                "-t",
                str(train_path),
                "-T",
                str(test_path),
                "-p",
                "0",
                "-distribution",
                *self._weka_args(),
            ]
            t0 = time.perf_counter()
            try:
                proc = subprocess.run(
                    command, capture_output=True, text=True, timeout=self.timeout, cwd=tmp
                )
            except subprocess.TimeoutExpired:
                raise RuntimeError(
                    f"Weka ({self.classname}) did not finish within {self.timeout} s; "
                    f"command: {shlex.join(command)}"
                ) from None
            except OSError as exc:
                raise RuntimeError(f"cannot start Java ({java}): {exc}") from None
            seconds = time.perf_counter() - t0
        self.last_run_ = {"command": command, "seconds": seconds, "stderr": proc.stderr}
        try:
            pred, proba = parse_predictions(proc.stdout, len(test_bags), len(self.classes_))
        except ValueError as exc:
            raise RuntimeError(_failure_message(self.classname, self.options, proc, exc)) from None
        self._cache = (digest, pred, proba)
        return pred, proba

    def _weka_args(self) -> list[str]:
        """The classifier's Weka options: ``options`` plus what ``C`` and ``sigma`` say."""
        args = parse_options(self.options)
        extra = []
        for name, value, flag in (("C", self.C, "-C"), ("sigma", self.sigma, "-K")):
            if value is None:
                continue
            if self.classname not in RBF_KERNELS:
                raise ValueError(
                    f"{name}={value!r} applies to {' and '.join(sorted(RBF_KERNELS))} only, "
                    f"not to {self.classname}; pass Weka options instead"
                )
            if flag in args[: args.index("--") if "--" in args else len(args)]:
                raise ValueError(
                    f"{name} is set twice: as {name}={value!r} and as {flag} in options"
                )
            if name == "C":
                extra += ["-C", repr(float(value))]
            else:
                gamma = 1.0 / (2.0 * float(value) ** 2)
                extra += ["-K", f"{RBF_KERNELS[self.classname]} -G {gamma!r}"]
        return extra + args

    def predict(self, bags):
        """Weka's predicted label of each bag.

        Parameters
        ----------
        bags : sequence of array-like of shape (n_instances_I, n_features)

        Returns
        -------
        ndarray of shape (n_bags,)
        """
        pred, _ = self._run(bags)
        return self.classes_[pred]

    def predict_proba(self, bags):
        """Weka's class distribution of each bag (3 decimals, as Weka prints it).

        Parameters
        ----------
        bags : sequence of array-like of shape (n_instances_I, n_features)

        Returns
        -------
        ndarray of shape (n_bags, 2)
            Columns in the order of ``classes_``.
        """
        _, proba = self._run(bags)
        return proba.copy()


def _failure_message(classname, options, proc, exc) -> str:
    stderr = (proc.stderr or "").strip()
    # Weka appends its whole option help after "Weka exception: ..."; keep the first lines
    lines = stderr.splitlines()
    if len(lines) > 25:
        stderr = "\n".join(lines[:25]) + f"\n... ({len(lines) - 25} more lines)"
    stdout_tail = "\n".join((proc.stdout or "").strip().splitlines()[-10:])
    msg = (
        f"Weka run of {classname} with options {options!r} failed "
        f"(exit code {proc.returncode}): {exc}.\n"
        f"Weka's stderr:\n{stderr or '(empty)'}"
    )
    if stdout_tail:
        msg += f"\nLast lines of Weka's stdout:\n{stdout_tail}"
    return msg
