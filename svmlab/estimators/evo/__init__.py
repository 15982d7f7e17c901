"""Evolutionary SVMs of Mierswa (2009, Part I): the SVM dual with b = 0 maximised by an
evolution strategy (EvoSVM, mutation variants G, S and H) or a particle swarm (PsoSVM); the
multi-objective EvoSVM (NSGA-II over margin and training error); the transductive Evo-T-SVM
and MO-T-SVM (with clustering from the Pareto front); and the relevance vector machine
comparator. The readings svmlab takes where the thesis is unclear are in
docs/decisions/evo.md."""

from svmlab.estimators.evo._fitness import DualFitness, posthoc_bias
from svmlab.estimators.evo._transductive import tsvm_objective
from svmlab.estimators.evo.evo_tsvm import EvoTSVMClassifier
from svmlab.estimators.evo.evosvm import EvoSVMClassifier
from svmlab.estimators.evo.mo_tsvm import MOTSVMClassifier
from svmlab.estimators.evo.moevosvm import MOEvoSVMClassifier, mo_objectives
from svmlab.estimators.evo.pareto_clustering import (
    ParetoClustering,
    pareto_clustering,
    pareto_edges,
)
from svmlab.estimators.evo.pso import PsoSVMClassifier
from svmlab.estimators.evo.rvm import RVMClassifier, sparse_bayesian_regression
from svmlab.estimators.kernel_svc import KernelSVC  # general (any svmlab kernel); re-exported

__all__ = [
    "DualFitness",
    "EvoSVMClassifier",
    "EvoTSVMClassifier",
    "KernelSVC",
    "MOEvoSVMClassifier",
    "MOTSVMClassifier",
    "ParetoClustering",
    "PsoSVMClassifier",
    "RVMClassifier",
    "mo_objectives",
    "pareto_clustering",
    "pareto_edges",
    "posthoc_bias",
    "sparse_bayesian_regression",
    "tsvm_objective",
]
