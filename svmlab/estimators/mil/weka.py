"""Optional adapter: run the real Weka multi-instance classifiers (``weka.classifiers.mi.*``).

The MIRSVM paper's comparators (Melki (2018), Sec. 4.3) were Weka classifiers. svmlab
re-implements them in Python; this module instead calls the original Java code so that a
result can be set beside the paper's Weka numbers. :class:`WekaMIClassifier` writes the
training and test bags to temporary Weka relational ARFF files and runs::

    java -cp weka.jar <classname> -t train.arff -T test.arff -p 0 -distribution <options>

in a subprocess, then reads Weka's per-bag predicted class and class distribution.

Requirements (not Python packages): a Java runtime and ``weka.jar``. ``make weka`` installs
the Debian packages ``weka`` (Weka 3.6, which ships ``weka.classifiers.mi``: MISMO, MISVM,
MIWrapper, SimpleMI, MIBoost, MIDD, MIEMDD, MILR, MINND, MIOptimalBall, CitationKNN, MDD)
and ``default-jre-headless``; it needs root. The jar is looked up in ``weka_jar``, then
``$SVMLAB_WEKA_JAR``, then ``/usr/share/java/weka.jar``. Weka 3.6 has no ``TLC`` (that
came with the MILK package / later Weka releases), so TLC and its Bagging/Stacking
ensembles have no Weka route here.

Things to know when comparing with the paper:

* The estimator is *lazy*: ``fit`` only validates and stores the training bags; Weka trains
  and predicts in one call, during ``predict``/``predict_proba``. Timings therefore land in
  the prediction phase, and include the JVM start-up (about 0.5 s per call). The result of
  the last test set is cached, so ``predict`` followed by ``predict_proba`` on the same bags
  runs Weka once.
* Weka's defaults are Weka's: e.g. ``SimpleMI`` and ``MIWrapper`` default to ``ZeroR`` (the
  majority class, which is what the paper's SimpleMI/MIWrapper/MIBoost columns show), and
  ``MISMO``/``MISVM`` normalise every attribute to [0, 1] and use a linear (``PolyKernel``,
  exponent 1) kernel with C = 1. Pass Weka options to change them, e.g.
  ``options='-C 10 -K "weka.classifiers.mi.supportVector.MIRBFKernel -G 0.02"'`` (Weka's
  RBF is ``exp(-G ||x - x'||^2)``, so ``G = 1 / (2 sigma^2)``).
* ``-p 0`` prints the class distribution with three decimals only, so ``predict_proba`` is
  rounded to 1e-3 (the predicted class is Weka's own, not the argmax of the rounded values).
* Bag weights (the ``{w}`` of some of the paper's ARFFs, e.g. musk1) can be passed as
  ``fit(bags, y, sample_weight=...)``; they are written as Weka instance weights.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import shutil
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

__all__ = [
    "DEFAULT_WEKA_JAR",
    "RBF_KERNELS",
    "WEKA_JAR_ENV",
    "WekaMIClassifier",
    "WekaNotAvailableError",
    "find_java",
    "find_weka_jar",
    "parse_options",
    "parse_predictions",
    "weka_available",
    "write_mi_arff",
]

DEFAULT_WEKA_JAR = "/usr/share/java/weka.jar"
WEKA_JAR_ENV = "SVMLAB_WEKA_JAR"
_INSTALL_HINT = (
    "install it with `make weka` (runs `apt-get install -y weka default-jre-headless`, "
    "needs root), "
    f"or point ${WEKA_JAR_ENV} at an existing weka.jar"
)

# Evaluation options that the adapter sets itself; they may not appear in ``options``.
_RESERVED = {
    "-t": "training file",
    "-T": "test file",
    "-p": "prediction output",
    "-distribution": "prediction output",
    "-x": "cross-validation",
    "-no-cv": "cross-validation",
    "-split-percentage": "percentage split",
    "-preserve-order": "percentage split",
    "-c": "class index",
    "-l": "model input",
    "-d": "model output",
    "-classifications": "prediction output",
    "-h": "help",
    "-help": "help",
    "-synopsis": "help",
    "-info": "help",
    "-threshold-file": "threshold output",
    "-threshold-label": "threshold output",
    "-r": "margin output",
}


#: The support vector classifiers of ``weka.classifiers.mi`` and the RBF kernel each takes
#: through ``-K``; :class:`WekaMIClassifier`'s ``C`` and ``sigma`` apply to these only.
RBF_KERNELS = {
    "weka.classifiers.mi.MISMO": "weka.classifiers.mi.supportVector.MIRBFKernel",
    "weka.classifiers.mi.MISVM": "weka.classifiers.functions.supportVector.RBFKernel",
}


class WekaNotAvailableError(RuntimeError):
    """Java or ``weka.jar`` cannot be found (the message names ``make weka``)."""


# ------------------------------------------------------------------------------------------
# locating java and weka.jar
# ------------------------------------------------------------------------------------------


def find_weka_jar(weka_jar=None) -> Path:
    """The Weka jar: ``weka_jar``, else ``$SVMLAB_WEKA_JAR``, else ``/usr/share/java/weka.jar``.

    Raises
    ------
    WekaNotAvailableError
        When the chosen file does not exist; the message says where it looked and names
        the ``make weka`` target.
    """
    if weka_jar is not None:
        where = f"weka_jar={str(weka_jar)!r}"
    elif os.environ.get(WEKA_JAR_ENV):
        weka_jar, where = os.environ[WEKA_JAR_ENV], f"${WEKA_JAR_ENV}={os.environ[WEKA_JAR_ENV]!r}"
    else:
        weka_jar, where = DEFAULT_WEKA_JAR, f"the default {DEFAULT_WEKA_JAR}"
    path = Path(weka_jar).expanduser()
    if not path.is_file():
        raise WekaNotAvailableError(f"Weka jar not found ({where}); {_INSTALL_HINT}")
    return path


def find_java(java: str = "java") -> str:
    """Full path of the Java launcher ``java`` (a name on ``PATH`` or a path).

    Raises
    ------
    WekaNotAvailableError
        When it is not found; the message names the ``make weka`` target.
    """
    found = shutil.which(java)
    if found is None:
        raise WekaNotAvailableError(
            f"Java runtime not found (java={java!r} is not an executable on PATH); {_INSTALL_HINT}"
        )
    return found


def weka_available(weka_jar=None, java: str = "java") -> bool:
    """True when both the Java launcher and the Weka jar are found (no JVM is started)."""
    try:
        find_java(java)
        find_weka_jar(weka_jar)
    except WekaNotAvailableError:
        return False
    return True


# ------------------------------------------------------------------------------------------
# options
# ------------------------------------------------------------------------------------------


def parse_options(options) -> list[str]:
    """Split a Weka command-line option string into arguments.

    Quoting follows the shell, as on Weka's own command line:
    ``'-C 10 -K "weka.classifiers.mi.supportVector.MIRBFKernel -G 0.5"'`` gives
    ``["-C", "10", "-K", "weka.classifiers.mi.supportVector.MIRBFKernel -G 0.5"]``.
    A list or tuple of strings is taken as already split.

    Raises
    ------
    ValueError
        For unbalanced quotes, a non-string argument, or an evaluation option the adapter sets
        itself (``-t``, ``-T``, ``-p``, ``-x``, ``-d``, ...). Options after ``--`` belong to a
        base classifier and are not checked.
    """
    if options is None:
        return []
    if isinstance(options, str):
        try:
            args = shlex.split(options, posix=True)
        except ValueError as exc:
            raise ValueError(f"cannot parse Weka options {options!r}: {exc}") from None
    elif isinstance(options, (list, tuple)):
        args = list(options)
        bad = [a for a in args if not isinstance(a, str)]
        if bad:
            raise ValueError(
                f"Weka options must be strings; got {bad[0]!r} ({type(bad[0]).__name__})"
            )
    else:
        raise ValueError(
            f"options must be a string or a list of strings, got {type(options).__name__}"
        )
    for arg in args:
        if arg == "--":
            break
        if arg in _RESERVED:
            raise ValueError(
                f"Weka option {arg} ({_RESERVED[arg]}) is set by WekaMIClassifier itself "
                "and cannot be passed in options"
            )
    return args


# ------------------------------------------------------------------------------------------
# ARFF writing and prediction parsing
# ------------------------------------------------------------------------------------------


def _row(values) -> str:
    # repr of a Python float is the shortest string that reads back to the same double
    return ",".join(map(repr, values))


def write_mi_arff(
    path,
    bags,
    labels,
    *,
    bag_ids,
    declared_ids=None,
    class_levels=("0", "1"),
    weights=None,
    relation: str = "svmlab",
    n_features: int | None = None,
) -> None:
    """Write bags as a Weka relational multi-instance ARFF file.

    Layout: a nominal bag id, ``@attribute bag relational`` with numeric features ``f1..fd``,
    and the nominal ``class``. Each bag is one line, ``id,"v11,v12,...\\nv21,...",label[,{w}]``
    (instances separated by the two characters backslash-n), values at full double precision.

    Parameters
    ----------
    path : str or Path
    bags : sequence of ndarray of shape (n_instances_I, d)
    labels : sequence of str or None
        Class value of each bag (one of ``class_levels``); None writes ``?`` (unknown).
    bag_ids : sequence of str
        The id of each bag.
    declared_ids : sequence of str, optional
        The ids the header declares (default ``bag_ids``). Weka needs identical headers in
        the training and the test file, so both declare the ids of both.
    class_levels : sequence of str
    weights : sequence of float, optional
        Weka instance weight of each bag.
    relation : str
    n_features : int, optional
        Number of features (default: taken from the first bag).
    """
    if len(bag_ids) != len(bags) or len(labels) != len(bags):
        raise ValueError(f"{len(bags)} bags but {len(bag_ids)} ids and {len(labels)} labels")
    if n_features is None:
        n_features = np.asarray(bags[0]).shape[1]
    declared = [str(b) for b in (bag_ids if declared_ids is None else declared_ids)]
    levels = [str(c) for c in class_levels]
    for s in (*declared, *levels, relation):
        if not s or any(c in s for c in ",'\"{}% \t\n\\"):
            raise ValueError(
                f"{s!r} cannot be written unquoted to ARFF (bag id, class value or relation name)"
            )
    missing = set(map(str, bag_ids)) - set(declared)
    if missing:
        raise ValueError(f"bag ids {sorted(missing)[:3]} are not among declared_ids")
    lines = [
        f"@relation {relation}",
        "",
        f"@attribute bag_id {{{','.join(declared)}}}",
        "@attribute bag relational",
    ]
    lines += [f"  @attribute f{j + 1} numeric" for j in range(n_features)]
    lines += ["@end bag", f"@attribute class {{{','.join(levels)}}}", "", "@data"]
    for i, bag in enumerate(bags):
        body = "\\n".join(_row(r) for r in np.asarray(bag, dtype=np.float64).tolist())
        label = "?" if labels[i] is None else str(labels[i])
        if label != "?" and label not in levels:
            raise ValueError(f"bag {i}: class value {label!r} is not one of {levels}")
        line = f'{bag_ids[i]},"{body}",{label}'
        if weights is not None:
            line += f",{{{float(weights[i])!r}}}"
        lines.append(line)
    Path(path).write_text("\n".join(lines) + "\n", encoding="ascii")


def parse_predictions(text: str, n_bags: int, n_classes: int = 2):
    """Read Weka 3.6's ``-p 0 -distribution`` output.

    Parameters
    ----------
    text : str
        Weka's standard output.
    n_bags : int
        Expected number of predictions.
    n_classes : int

    Returns
    -------
    pred : ndarray of shape (n_bags,), int
        Weka's predicted class index (0-based; the argmax of the distribution when Weka
        printed ``?``).
    proba : ndarray of shape (n_bags, n_classes)
        The printed distribution (3 decimals), renormalised to sum to 1.

    Raises
    ------
    ValueError
        When the predictions table is missing or malformed.
    """
    lines = text.splitlines()
    try:
        head = next(k for k, line in enumerate(lines) if line.split()[:2] == ["inst#", "actual"])
    except StopIteration:
        raise ValueError(
            "Weka printed no predictions table ('inst#  actual  predicted ...')"
        ) from None
    pred, proba = [], []
    for line in lines[head + 1 :]:
        tokens = line.split()
        if not tokens:
            continue
        if not tokens[0].isdigit() or len(tokens) < 4:
            raise ValueError(f"unexpected line in Weka's predictions: {line!r}")
        if int(tokens[0]) != len(pred) + 1:
            raise ValueError(f"Weka's predictions are out of order at line {line!r}")
        try:
            dist = np.array([float(v.lstrip("*")) for v in tokens[-1].split(",")])
        except ValueError:
            raise ValueError(
                f"cannot read the class distribution in Weka's line {line!r}"
            ) from None
        if dist.shape != (n_classes,):
            raise ValueError(
                f"expected {n_classes} class probabilities, Weka printed {tokens[-1]!r}"
            )
        total = dist.sum()
        dist = dist / total if total > 0 else np.full(n_classes, 1.0 / n_classes)
        label = tokens[2]
        pred.append(int(label.split(":", 1)[0]) - 1 if ":" in label else int(np.argmax(dist)))
        proba.append(dist)
    if len(pred) != n_bags:
        raise ValueError(f"Weka printed {len(pred)} predictions for {n_bags} test bags")
    pred = np.asarray(pred, dtype=np.intp)
    if np.any((pred < 0) | (pred >= n_classes)):
        raise ValueError(f"Weka predicted a class index outside 1..{n_classes}")
    return pred, np.asarray(proba, dtype=np.float64).reshape(n_bags, n_classes)


# ------------------------------------------------------------------------------------------
# the estimator
# ------------------------------------------------------------------------------------------


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
