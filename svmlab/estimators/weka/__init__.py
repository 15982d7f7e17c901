"""Weka 3.6's propositional classifiers, re-implemented natively in Python.

Each module re-implements one Weka 3.6 (3.6.14) learner from a reading of its behaviour, so
that on the same data (same attribute order, same seeds) it gives Weka's test predictions.
They are the single-instance base learners of the multi-instance wrappers and ensembles of
:mod:`svmlab.estimators.mil` (SimpleMI, MIWrapper, MIBoost) and of the HyDR-MI roster:

* :mod:`~svmlab.estimators.weka.part` -- ``weka.classifiers.rules.PART``
* :mod:`~svmlab.estimators.weka.rep_tree` -- ``weka.classifiers.trees.REPTree``
* :mod:`~svmlab.estimators.weka.smo` -- ``weka.classifiers.functions.SMO``
* :mod:`~svmlab.estimators.weka.adaboost_m1` -- ``weka.classifiers.meta.AdaBoostM1``
* :mod:`~svmlab.estimators.weka.bagging` -- ``weka.classifiers.meta.Bagging``
* :mod:`~svmlab.estimators.weka.decision_stump` -- ``weka.classifiers.trees.DecisionStump``
* :mod:`~svmlab.estimators.weka.naive_bayes` -- ``weka.classifiers.bayes.NaiveBayes``
* :mod:`~svmlab.estimators.weka.zero_r` -- ``weka.classifiers.rules.ZeroR``
* :mod:`~svmlab.estimators.weka.java_random` -- ``java.util.Random``, the source of every
  random choice above
* :mod:`~svmlab.estimators.weka.optimization` -- ``weka.core.Optimization``, the quasi-Newton
  minimiser of the native MIDD, MIEMDD, MILR and MDD (:mod:`svmlab.estimators.mil`)

The adapter that runs the real Weka (Java) is :mod:`svmlab.estimators.mil.weka`; the tests
compare these ports with it.
"""
