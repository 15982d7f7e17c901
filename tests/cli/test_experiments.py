"""Every shipped experiment composes, and the OLLAWV quick profile runs end to end."""

import json

import numpy as np
import pandas as pd
import pytest

from svmlab.paths import conf_dir

EXPERIMENTS = sorted(p.stem for p in (conf_dir() / "experiment").glob("*.yaml"))


@pytest.mark.parametrize("name", EXPERIMENTS)
def test_experiment_composes(name):
    """Hydra composes every experiment with the root config (in-process, as ``svmlab run``
    does; ``test_one_experiment_composes_through_the_cli`` covers the command itself)."""
    from hydra import compose, initialize_config_dir
    from omegaconf import OmegaConf

    with initialize_config_dir(config_dir=str(conf_dir()), version_base="1.3"):
        cfg = compose("config", overrides=[f"+experiment={name}"])
    assert cfg.name == name
    solvers = OmegaConf.to_container(cfg.solvers, resolve=True) or {"p": dict(cfg.solver)}
    assert all(s is None or s.get("_target_") or s.get("name") for s in solvers.values())


def _composed(name):
    from hydra import compose, initialize_config_dir

    with initialize_config_dir(config_dir=str(conf_dir()), version_base="1.3"):
        return compose("config", overrides=[f"+experiment={name}"])


def test_cost_ordered_experiments_list_their_cheap_solvers_first():
    """``--order solvers`` runs the solvers in the experiment's order: OLLAWV's placeholder
    entry puts it first while ``${solver}`` still gives its settings (and takes overrides)."""
    from omegaconf import OmegaConf

    cfg = _composed("ollawv_bench")
    assert list(cfg.solvers) == ["ollawv", "mnsvm", "nnisda"]
    assert OmegaConf.to_container(cfg.solvers.ollawv, resolve=True) == OmegaConf.to_container(
        cfg.solver, resolve=True
    )
    assert cfg.solvers.ollawv.use_bias is True and cfg.solvers.ollawv.grid.margin is None
    relieff = list(_composed("hydrmi_relieff").solvers)
    assert len(relieff) == 17 and relieff[0] == "relieff_miwrapper_nb"
    assert relieff[-3:] == ["relieff_miemdd", "relieff_midd", "relieff_mdd"]
    full = [name.split("_", 1)[1] for name in _composed("hydrmi_full").solvers]
    assert full == [
        c for c in ("miwrapper_nb", "mi_optimal_ball", "mismo_poly", "mismo_rbf") for _ in range(3)
    ]  # MISMO (minutes a search) after the seconds-a-search ones


def test_one_experiment_composes_through_the_cli(run_cli, tmp_path):
    out = run_cli("run", "+experiment=quickstart", "--cfg", "job", cwd=tmp_path, check=0).stdout
    assert "name: quickstart" in out


@pytest.mark.data
def test_ollawv_quick_runs_and_reports_beside_the_paper(run_cli, tmp_path):
    drop = [f"~datasets.{d}" for d in ("wine", "sonar", "vote", "heart")]
    proc = run_cli(
        "run",
        "+experiment=ollawv_quick",
        *drop,
        "protocol.n_splits=3",
        "tuning.inner_folds=2",
        f"results_dir={tmp_path}",
        "run_id=q",
        "runner=sequential",
        cwd=tmp_path,
        check=0,
    )
    assert "Table 5.3" in proc.stdout and "OLLAWV paper" in proc.stdout
    df = pd.read_parquet(tmp_path / "ollawv_quick" / "q" / "results.parquet")
    assert set(df["solver"]) == {"ollawv", "nnisda", "mnsvm"} and (df["status"] == "ok").all()
    assert (df["model_size"] > 0).all() and (df.groupby("solver")["accuracy"].mean() > 0.8).all()


@pytest.mark.data
def test_mtr_quick_runs_and_reports_beside_the_paper(run_cli, tmp_path):
    drop = [f"datasets.{d}=null" for d in ("andro", "edm", "enb", "jura")]
    drop += [
        f"solvers.{s}=null"
        for s in ("mtr_morf", "mtr_mts", "mtr_mtsc", "mtr_rc", "mtr_erc", "mtr_ercc", "svrrc")
    ]
    proc = run_cli(
        "run",
        "+experiment=mtr_quick",
        *drop,
        "protocol.n_splits=3",
        "mtr.inner_cv=2",
        "solvers.mtr_st.n_estimators=3",
        f"results_dir={tmp_path}",
        "run_id=q",
        "runner=sequential",
        cwd=tmp_path,
        check=0,
    )
    assert "Tables 3.3-3.12" in proc.stdout and "aRRMSE" in proc.stdout
    df = pd.read_parquet(tmp_path / "mtr_quick" / "q" / "results.parquet")
    assert set(df["solver"]) == {"svrcc", "mtr_svr", "mtr_st"} and (df["status"] == "ok").all()
    svr = df[df["solver"] != "mtr_st"]
    assert (svr["tune_time"] > 0).all() and (svr["final_fit_time"] < svr["fit_time"]).all()
    assert (df["arrmse"] < 1.0).all()  # every method beats the training mean on slump


@pytest.mark.data
def test_evosvm_variants_runs_with_per_dataset_gamma_and_reports_beside_the_paper(
    run_cli, tmp_path
):
    proc = run_cli(
        "run",
        "+experiment=evosvm_variants",
        "evo.C=0.1",
        "datasets.liver=null",
        "datasets.ionosphere=null",
        "protocol.n_splits=3",
        f"results_dir={tmp_path}",
        "run_id=e",
        "runner=sequential",
        cwd=tmp_path,
        check=0,
    )
    assert "Table 3.4, C = 0.1" in proc.stdout and "EvoSVM-H" in proc.stdout
    df = pd.read_parquet(tmp_path / "evosvm_variants" / "e" / "results.parquet")
    assert len(set(df["solver"])) == 6 and (df["status"] == "ok").all()
    assert df["solver_params"].map(lambda p: '"gamma": 1.0' in p and '"C": 0.1' in p).all()
    assert df["error_rate"].between(0.0, 0.6).all()


@pytest.mark.data
@pytest.mark.slow
def test_sweep_report_keeps_each_jobs_rows_and_label(run_cli, tmp_path):
    """Regression: the report of the Table 3.4 sweep labelled every table with the first
    job's C and filled it (and its ANOVA) with rows of all jobs."""
    drop = [f"solvers.{s}=null" for s in ("evosvm", "evosvm_s", "evosvm_h", "psosvm")]
    drop += ["datasets.ionosphere=null", "datasets.sonar=null"]
    run_cli(
        "run",
        "-m",
        "+experiment=evosvm_variants",
        "evo.C=1,0.01",
        *drop,
        "runner=sequential",
        "runner.progress=false",
        f"results_dir={tmp_path}",
        "run_id=sw",
        cwd=tmp_path,
        check=0,
    )
    out = run_cli("report", str(tmp_path / "evosvm_variants" / "sw"), "--no-stats", check=0).stdout
    blocks = {}
    for block in out.split("\n## ")[1:]:
        for c in ("1", "0.01"):
            if block.startswith(f"[evo.C={c}] "):
                blocks.setdefault(c, []).append(block)
    assert set(blocks) == {"1", "0.01"}
    assert all("Table 3.4, C = 1 " in b for b in blocks["1"])
    assert all("Table 3.4, C = 0.01" in b for b in blocks["0.01"])
    for c, job in blocks.items():
        run = next(
            p.parent
            for p in (tmp_path / "evosvm_variants" / "sw").rglob("results.parquet")
            if f"evo.C={c}" in pd.read_parquet(p.parent / "results.parquet")["variant"][0]
        )
        df = pd.read_parquet(run / "results.parquet")
        own = 100 * df[df["solver"] == "libsvm_kernel"]["error_rate"].mean()
        assert f"{own:.2f}" in job[0]  # the job's own LibSVM error, not another job's


@pytest.mark.data
def test_cclwmlm_quick_reports_accuracy_and_norm_beside_table_19(run_cli, tmp_path):
    drop = [f"datasets.{d}=null" for d in ("heart", "ionosphere_weka", "two_moons")]
    proc = run_cli(
        "run",
        "+experiment=cclwmlm_quick",
        *drop,
        "protocol.n_repeats=1",
        "tuning.inner_folds=2",
        f"results_dir={tmp_path}",
        "run_id=q",
        "runner=sequential",
        cwd=tmp_path,
        check=0,
    )
    assert "Table 19" in proc.stdout and "NORM = 1 - ||B||" in proc.stdout
    df = pd.read_parquet(tmp_path / "cclwmlm_quick" / "q" / "results.parquet")
    assert set(df["dataset"]) == {"haberman"} and (df["status"] == "ok").all()
    # every MLM row stores ||B||_F, from which the report scales NORM
    assert (df["b_norm"] > 0).all() and set(df["solver"]) >= {"cclwmlm", "mlm_full_clf"}
    # SPR = 1 - M/N, derived by the reproduction from the model size (every training point
    # is a reference point here); the runner writes no paper-derived column
    assert "sparsity" not in df.columns and "sv_percent" not in df.columns
    cclwmlm = df[df["solver"] == "cclwmlm"]
    assert (cclwmlm["model_size"] == cclwmlm["n_train"]).all()
    # the derived NORM is a metric of the report like any other
    out = run_cli(
        "report", str(tmp_path / "cclwmlm_quick" / "q"), "--metric", "norm_one_minus", cwd=tmp_path
    ).stdout
    assert "## norm_one_minus" in out


@pytest.mark.parametrize("roster, target", [("native", "CitationKNNClassifier"), ("weka", "Weka")])
def test_hydrmi_experiments_take_their_classifiers_from_the_roster(roster, target):
    from hydra import compose, initialize_config_dir
    from omegaconf import OmegaConf

    with initialize_config_dir(str(conf_dir()), version_base=None):
        cfg = compose("config", overrides=["+experiment=hydrmi_bench", f"hydrmi_roster={roster}"])
    solvers = OmegaConf.to_container(cfg, resolve=True)["solvers"]
    assert len(solvers) == 17 * 3
    assert target in solvers["hydrmi_citation_knn"]["estimator"]["_target_"]
    assert solvers["hydrmi_citation_knn"]["runs"] == 5


@pytest.mark.data
def test_svmperf_quick_runs_one_model_per_measure_and_reports_the_claims(run_cli, tmp_path):
    """A cut-down svmperf_quick: wdbc_lsvt, 3 folds, MKLPO for two measures, NDLO for one,
    and the SVC baseline -- real runner, real Parquet rows, the MKLPO report sections."""
    from svmlab.reproduce.documents.svmperf import MEASURES, METHODS

    keep = {"mklpo_f1", "mklpo_auc", "ndlo_f1", "svc"}
    names = [f"{p}_{loss}" for p in METHODS.values() for loss, _ in MEASURES.values()]
    drop = [f"~solvers.{n}" for n in names if n not in keep]
    proc = run_cli(
        "run",
        "+experiment=svmperf_quick",
        "~datasets.splice_ei",
        "~datasets.synthetic_lsvt",
        *drop,
        "protocol.n_splits=3",
        f"results_dir={tmp_path}",
        "run_id=q",
        "runner=sequential",
        cwd=tmp_path,
        check=0,
    )
    assert "MKLPO study, Figs. 1-2" in proc.stdout and "claims" in proc.stdout
    df = pd.read_parquet(tmp_path / "svmperf_quick" / "q" / "results.parquet")
    assert set(df["solver"]) == keep and (df["status"] == "ok").all() and len(df) == 12
    tuned = df.set_index("solver")["tuning_metric"].to_dict()
    assert tuned["mklpo_auc"] == "roc_auc" and tuned["mklpo_f1"] == "f1_pos"
    info = pd.Series([json.loads(s) for s in df["fit_info"]], index=df["solver"])
    assert np.isclose(sum(info["mklpo_f1"].iloc[0]["tau"]), 1.0)  # on the simplex
    assert (df.loc[df["solver"] == "mklpo_f1", "f1_pos"] > 0.9).all()


@pytest.mark.data
def test_mo_feature_selection_quick_keeps_fronts_scores_them_and_draws_them(run_cli, tmp_path):
    """A cut-down mo_feature_selection_quick: wdbc and the noisy sum set, 3 outer folds, a small
    search -- real runner, every front member scored on the outer test part, the report's
    sections and the Pareto-front figures."""
    proc = run_cli(
        "run",
        "+experiment=mo_feature_selection_quick",
        "~datasets.sonar",
        "~datasets.ionosphere",
        "~datasets.sum15",
        "protocol.n_splits=3",
        "solvers.mofs_svm.population_size=8",
        "solvers.mofs_svm.max_generations=3",
        "solvers.mofs_linreg.max_generations=8",
        f"results_dir={tmp_path}",
        "run_id=q",
        "runner=sequential",
        cwd=tmp_path,
        check=0,
    )
    assert "outer test error of the chosen member vs all features" in proc.stdout
    assert "Fig. 6.1" in proc.stdout and "Pareto front of wdbc" in proc.stdout
    df = pd.read_parquet(tmp_path / "mo_feature_selection_quick" / "q" / "results.parquet")
    assert (df["status"] == "ok").all() and len(df) == 12
    for row in df[df["solver"].str.startswith("mofs")].itertuples():
        info = json.loads(row.fit_info)
        sizes = info["front"]["n_features"]
        assert sizes == sorted(sizes) and len(info["front_test_error"]) == len(sizes)
        chosen_test = info["front_test_error"][info["chosen"]]
        metric = row.error_rate if row.solver == "mofs_svm" else row.rmse
        assert np.isclose(chosen_test, metric, atol=1e-6)  # the chosen member made the row
    report = run_cli("report", str(tmp_path / "mo_feature_selection_quick" / "q"), cwd=tmp_path)
    assert "mo_fronts_mofs_svm" in report.stderr and "mo_fronts_mofs_linreg" in report.stderr
    drawn = list((tmp_path / "mo_feature_selection_quick" / "q").rglob("mo_fronts_*.png"))
    assert len(drawn) >= 4


@pytest.mark.parametrize("name", EXPERIMENTS)
def test_every_solver_of_every_experiment_builds(name):
    """Each solver of each experiment (full and quick) composes, builds and validates its
    parameters and grid, without data and without fitting: an experiment cannot break
    unnoticed (as mirsvm_bench once did on a merged nested estimator)."""
    from svmlab.config import compose
    from svmlab.runner.plan import validated_solvers

    container, _ = compose([f"+experiment={name}"])
    entries = validated_solvers(container)
    assert entries and all(e.spec.build() is not None for e in entries)


@pytest.mark.data
@pytest.mark.parametrize("name", EXPERIMENTS)
def test_every_experiment_plans(name, tmp_path):
    """The whole plan of every experiment: datasets load, folds split, every task is listed
    (nothing is fitted). A data file that must first be fetched skips with the command."""
    from svmlab.config import compose
    from svmlab.errors import DataUnavailableError
    from svmlab.runner.plan import build_plan

    container, _ = compose([f"+experiment={name}"])
    try:
        plan = build_plan(container, str(tmp_path), "t")
    except DataUnavailableError as exc:
        pytest.skip(f"{exc} (svmlab data fetch --experiment {name})")
    assert plan.tasks and plan.experiment == name


def test_a_replacing_nested_estimator_takes_nothing_of_the_replaced_one():
    """mirsvm_bench gives MIBoost Weka's default base learner ZeroR over the solver file's
    entropy stump: the stump's `criterion` must not reach ZeroR (it did, and the flagship
    experiment stopped at planning)."""
    from svmlab.config import compose

    container, _ = compose(["+experiment=mirsvm_bench"])
    estimator = container["solvers"]["miboost"]["estimator"]
    assert estimator["_target_"].endswith("ZeroRClassifier") and set(estimator) == {"_target_"}


def test_an_override_that_replaces_a_nested_estimator_keeps_its_own_keys():
    """On the command line too: a new `_target_` drops the file's `criterion: entropy`; the
    keys the command line gives stay, one that restates the file's value included; an
    override of the same class merges as before."""
    from svmlab.config import compose

    tree = ["solver=miboost", "solver.estimator._target_=sklearn.tree.DecisionTreeClassifier"]
    container, _ = compose([*tree, "+solver.estimator.max_depth=1"])
    assert container["solver"]["estimator"] == {
        "_target_": "sklearn.tree.DecisionTreeClassifier",
        "max_depth": 1,
    }
    restated, _ = compose([*tree, "solver.estimator.criterion=entropy"])
    assert restated["solver"]["estimator"]["criterion"] == "entropy"
    same, _ = compose(["solver=miboost", "solver.estimator.criterion=gini"])
    assert same["solver"]["estimator"]["criterion"] == "gini"  # same class: merged as before
