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

The package: :mod:`~svmlab.estimators.mil.weka.java` finds Java and ``weka.jar`` and checks
Weka options, :mod:`~svmlab.estimators.mil.weka.arff` writes the relational ARFF files and
reads Weka's predictions, :mod:`~svmlab.estimators.mil.weka.classifier` holds
:class:`WekaMIClassifier`. Every name is importable from ``svmlab.estimators.mil.weka``.
"""

from __future__ import annotations

from svmlab.estimators.mil.weka.arff import parse_predictions, write_mi_arff
from svmlab.estimators.mil.weka.classifier import RBF_KERNELS, WekaMIClassifier
from svmlab.estimators.mil.weka.java import (
    DEFAULT_WEKA_JAR,
    WEKA_JAR_ENV,
    WekaNotAvailableError,
    find_java,
    find_weka_jar,
    parse_options,
    weka_available,
)

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
