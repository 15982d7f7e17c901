"""The NSGA-II search over feature masks: cache, parallel evaluation, empty masks, history."""

from __future__ import annotations

import numpy as np
import pytest

from svmlab.selection.mo_search import MaskObjective, search_masks

WEIGHTS = np.arange(1.0, 11.0)


def weighted_loss(mask):
    """Maximised objectives: minus the weight left out, minus the number of features."""
    return -float(WEIGHTS[~mask].sum()), -float(mask.sum())


def test_front_is_the_exact_optimum_for_every_size():
    res = search_masks(weighted_loss, 10, max_generations=40, random_state=0)
    assert res.masks.sum(axis=1).tolist() == list(range(1, 11))
    for k, mask in enumerate(res.masks, start=1):
        assert np.flatnonzero(mask).tolist() == list(range(10 - k, 10))


def test_no_empty_mask_is_ever_evaluated():
    seen = []

    def objective(mask):
        seen.append(int(mask.sum()))
        return -float(mask.sum()), float(mask.sum())  # pushes towards few features

    search_masks(objective, 4, population_size=8, max_generations=30, random_state=1)
    assert min(seen) >= 1


def test_cache_changes_the_cost_not_the_front():
    cached = search_masks(weighted_loss, 10, max_generations=15, random_state=3)
    plain = search_masks(weighted_loss, 10, max_generations=15, random_state=3, cache=False)
    np.testing.assert_array_equal(cached.masks, plain.masks)
    np.testing.assert_array_equal(cached.objectives, plain.objectives)
    assert cached.n_requests == plain.n_requests == plain.n_evaluations
    assert cached.n_evaluations < plain.n_evaluations and cached.cache_hit_rate > 0.5


@pytest.mark.slow
def test_parallel_workers_give_the_same_front():
    kw = dict(max_generations=4, random_state=3)
    one = search_masks(weighted_loss, 10, **kw)
    two = search_masks(weighted_loss, 10, n_jobs=2, **kw)
    np.testing.assert_array_equal(one.masks, two.masks)
    assert (one.n_requests, one.n_evaluations) == (two.n_requests, two.n_evaluations)


def test_objective_cache_serves_repeats_within_and_across_calls():
    calls = []
    fn = MaskObjective(lambda m: (calls.append(1) or float(m.sum()), 0.0), 2)
    masks = np.array([[1, 0, 1], [1, 0, 1], [0, 1, 0]], dtype=bool)
    F = fn(masks)
    assert F[:, 0].tolist() == [2.0, 2.0, 1.0] and len(calls) == 2
    fn(masks[:1])
    assert (fn.n_requests, fn.n_evaluations, len(calls)) == (4, 2, 2)


def test_non_finite_objective_is_refused_with_a_clear_message():
    with pytest.raises(ValueError, match="non-finite"):
        search_masks(lambda m: (np.nan, 0.0), 3, max_generations=1, random_state=0)


def test_history_has_one_front_per_generation_and_never_worsens():
    res = search_masks(weighted_loss, 10, max_generations=12, random_state=0, record_history=True)
    assert len(res.history) == 13
    best = [h[:, 0].max() for h in res.history]
    assert np.all(np.diff(best) >= 0) and len(res.history[-1]) >= len(res.history[0])


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"engine": "spea2"}, "engine"),
        ({"crowding": "none"}, "crowding"),
        ({"gene_mutation_rate": 0.0}, "gene_mutation_rate"),
        ({"population_size": 3}, "population_size"),
    ],
)
def test_bad_settings_name_the_parameter(kwargs, name):
    with pytest.raises(ValueError, match=name):
        search_masks(weighted_loss, 10, max_generations=1, **kwargs)
