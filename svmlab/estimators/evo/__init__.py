"""Evolutionary SVMs of Mierswa (2009, Part I): the SVM dual with b = 0 maximised by an
evolution strategy (EvoSVM, mutation variants G, S and H) or a particle swarm (PsoSVM).
Spec: ``evosvm.md`` §1.1-1.4."""

from svmlab.estimators.evo._fitness import DualFitness, posthoc_bias
from svmlab.estimators.evo.evosvm import EvoSVMClassifier
from svmlab.estimators.evo.pso import PsoSVMClassifier

__all__ = ["DualFitness", "EvoSVMClassifier", "PsoSVMClassifier", "posthoc_bias"]
