"""The genetic search scoring masks from per-feature tables finds exactly what refitting finds:
the same fitness of every mask, the same history and the same selected mask.

``data/genetic_reference.json`` was recorded with the refitting search before the tables
existed (svmlab 39fbb86, MIWrapper with PrecisionNaiveBayes, seed 0): per case the selected
mask, its fitness, the per-generation history and the fitness of every mask evaluated."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from sklearn.model_selection import StratifiedShuffleSplit

from svmlab.estimators.mil import MIWrapperClassifier
from svmlab.estimators.weka.naive_bayes import PrecisionNaiveBayes
from svmlab.selection import GeneticFeatureSelector, MultiInstanceFeatureSelector, genetic

REFERENCE = json.loads((Path(__file__).parent / "data" / "genetic_reference.json").read_text())


def _synthetic():
    rng = np.random.default_rng(7)
    y = np.arange(30) % 2
    bags = []
    for c in y:
        b = rng.normal(size=(int(rng.integers(1, 5)), 12)).round(2)
        b[:, :3] += 0.8 * c
        bags.append(b)
    return bags, y


def _musk1():
    from svmlab.data.registry import load_dataset

    ds = load_dataset("musk1")
    bags, y = list(ds.bags), np.asarray(ds.y)
    split = StratifiedShuffleSplit(n_splits=1, train_size=0.9, random_state=0)
    train, _ = next(split.split(np.zeros(len(y)), y))
    bags, y = [bags[i] for i in train], y[train]
    return MultiInstanceFeatureSelector(0.5).fit_transform(bags, y), y


def _search(case, data, monkeypatch, **params):
    ref = REFERENCE[case]
    seen = {}
    call = genetic.FitnessCache.__call__

    def recording(cache, masks):
        out = call(cache, masks)
        for mask, value in zip(np.asarray(masks, bool), out):
            seen[np.packbits(mask).tobytes().hex()] = float(value)
        return out

    monkeypatch.setattr(genetic.FitnessCache, "__call__", recording)
    bags, y = data()
    learner = MIWrapperClassifier(method=ref["method"], estimator=PrecisionNaiveBayes())
    ga = GeneticFeatureSelector(
        learner,
        population_size=ref["population_size"],
        max_generations=ref["max_generations"],
        random_state=0,
        **params,
    ).fit(bags, y)
    return ref, ga, seen


def _assert_as_recorded(ref, ga, seen):
    assert seen == ref["fitness_by_mask"]
    assert ga.history_ == ref["history"]
    assert np.packbits(ga.support_).tobytes().hex() == ref["support_hex"]
    assert ga.fitness_ == ref["fitness"]
    assert (ga.n_evaluations_, ga.n_cache_hits_) == (ref["n_evaluations"], ref["n_cache_hits"])


@pytest.mark.parametrize("method", ["geometric", "arithmetic", "max"])
def test_tables_reproduce_the_recorded_refitting_search(method, monkeypatch):
    _assert_as_recorded(*_search(f"synthetic_{method}", _synthetic, monkeypatch))


def test_refitting_still_reproduces_the_record(monkeypatch):
    _assert_as_recorded(
        *_search("synthetic_geometric", _synthetic, monkeypatch, fitness_tables=False)
    )


@pytest.mark.data
@pytest.mark.parametrize("method", ["geometric", "arithmetic"])
def test_tables_reproduce_the_recorded_search_on_musk1(method, monkeypatch):
    _assert_as_recorded(*_search(f"musk1_{method}", _musk1, monkeypatch))


def test_tables_are_used_only_when_the_learner_offers_them():
    bags, y = _synthetic()
    sel = GeneticFeatureSelector(MIWrapperClassifier(), random_state=0)
    X, starts = np.concatenate(bags), np.cumsum([0] + [len(b) for b in bags[:-1]])
    fitness = sel._fitness_function(X, starts, y, y, 0)
    assert isinstance(fitness, genetic._TableFitness)
    sel.set_params(fitness_tables=False)
    assert not isinstance(sel._fitness_function(X, starts, y, y, 0), genetic._TableFitness)
