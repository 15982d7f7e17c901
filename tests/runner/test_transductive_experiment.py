"""The transductive SVM study (Mierswa 2009, Ch. 5) runs end to end through the runner.

``+experiment=tsvm_quick`` composed as ``svmlab run`` composes it, planned, executed and
consolidated in-process on a tiny setting (one repetition, the two cluster sets).
"""

import json

import pytest

from svmlab.paths import conf_dir
from svmlab.results import load_results, select_outer_best
from svmlab.runner.execute import execute
from svmlab.runner.plan import build_plan
from svmlab.runner.store import consolidate, prepare_run_dir


@pytest.fixture(scope="module")
def tsvm_rows(tmp_path_factory):
    from hydra import compose, initialize_config_dir
    from omegaconf import OmegaConf

    overrides = [
        "+experiment=tsvm_quick",
        "~datasets.two_moons",
        "protocol.n_repeats=1",
        "runner=sequential",
    ]
    with initialize_config_dir(config_dir=str(conf_dir()), version_base="1.3"):
        cfg = OmegaConf.to_container(compose("config", overrides=overrides), resolve=True)
    run_dir = tmp_path_factory.mktemp("tsvm") / "run"
    plan = build_plan(cfg, str(run_dir), "r")
    prepare_run_dir(run_dir, plan.identity, "{}")
    summary = execute(plan.tasks, {**cfg["runner"], "progress": False})
    assert summary.n_failed == 0
    consolidate(run_dir, postprocess=select_outer_best)
    return load_results(run_dir)


def _error(df, dataset, solver):
    rows = df[(df["dataset"] == dataset) & (df["solver"] == solver)]
    assert len(rows) == 1 and (rows["status"] == "ok").all()
    return float(rows["error_rate"].iloc[0])


def test_evo_tsvm_separates_4_clusters_where_the_zscored_inductive_svm_cannot(tsvm_rows):
    # Figs. 5.2/5.3: the inductive (z-scored) SVM puts both unlabeled points on LL's side,
    # Evo-T-SVM separates upper from lower
    assert _error(tsvm_rows, "four_clusters", "mysvm_like") == 0.5
    assert _error(tsvm_rows, "four_clusters", "tsvm_evo") == 0.0


def test_evo_tsvm_beats_the_inductive_svm_on_3_clusters(tsvm_rows):
    trans = _error(tsvm_rows, "three_clusters", "tsvm_evo")
    assert trans < 0.2
    assert trans < _error(tsvm_rows, "three_clusters", "mysvm_like")


def test_the_transductive_solver_saw_the_test_rows_unlabeled_and_the_inductive_ones_did_not(
    tsvm_rows,
):
    df = tsvm_rows[tsvm_rows["dataset"] == "three_clusters"].set_index("solver")
    info = json.loads(df.loc["tsvm_evo", "fit_info"])
    assert (info["n_labeled"], info["n_unlabeled"]) == (4, 146)
    assert (df["n_train"] == 4).all() and (df["n_test"] == 146).all()
    assert "n_unlabeled" not in json.loads(df.loc["mysvm_like", "fit_info"])
