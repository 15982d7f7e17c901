"""Oliveira (2021), PhD thesis: sparse LSSVMs with class corners and Minimal Learning Machines.

Its targets compare Table 7 (the sparse LSSVMs on the fixed LIBSVM splits), Tables 11-13 and 16
(lightweight MLM regression) and Table 19 (CCLW-MLM classification). Every target derives the
sparsity SPR = 1 - M/N of Sec. 3.3.2.1 (:func:`svmlab.reproduce.engine.support_vector_columns`);
the MLM targets also derive the thesis's two NORM scalings of an MLM's ``||B||_F``
(:func:`mlm_norms`).
"""

from __future__ import annotations

import pandas as pd

from svmlab.reproduce.document import Paper, Protocol, PublishedTable, Reproduction, Study
from svmlab.reproduce.engine import SUPPORT_VECTOR_COLUMNS, support_vector_columns

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


def _datasets() -> dict:
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


def mlm_norms(df: pd.DataFrame) -> pd.DataFrame:
    """The thesis's two NORM scalings of ||B||_F (``b_norm``), per dataset (Oliveira (2021),
    Tables 13 and 19; docs/decisions/lssvm_mlm.md, "NORM"):

    * ``norm_ratio`` (Table 13): ||B|| / ||B_Full|| of the Full-MLM row of the same dataset,
      repetition and fold (Full-MLM = 1 by construction; lower is a smaller norm);
    * ``norm_one_minus`` (Table 19): 1 - ||B|| / max ||B||, the maximum over every row of the
      dataset (all methods and repetitions; higher is a smaller norm).

    Rows without ``b_norm`` are returned unchanged.
    """
    if "b_norm" not in df.columns:
        return df
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


def mlm_columns(rows: pd.DataFrame) -> pd.DataFrame:
    """The columns the MLM targets derive: SPR (``sparsity``) and the two NORM scalings."""
    return mlm_norms(support_vector_columns(rows))


#: The columns :func:`mlm_columns` derives, with their directions.
MLM_COLUMNS = {**SUPPORT_VECTOR_COLUMNS, "norm_ratio": "min", "norm_one_minus": "max"}


def _reproduction(
    name, source, tables, methods, note="", prepare=mlm_columns, derived=MLM_COLUMNS, **kw
) -> Reproduction:
    return Reproduction(
        name=name,
        source=source,
        tables=tables,
        datasets=_datasets(),
        methods=methods,
        note=note,
        prepare=prepare,
        derived=derived,
        **kw,
    )


def _mean_ranks(rows: pd.DataFrame, column: str, solvers=None) -> pd.Series:
    """Each solver's mean rank of ``column`` over the datasets (1 = highest mean, ties
    averaged), over ``solvers`` (default: all)."""
    means = rows.pivot_table(index="dataset", columns="solver", values=column, aggfunc="mean")
    if solvers is not None:
        means = means[[s for s in solvers if s in means.columns]]
    return means.dropna().rank(axis=1, ascending=False).mean().sort_values()


def _table_5_summary(rows: pd.DataFrame) -> list[dict]:
    """Table 5 for :func:`svmlab.reproduce.engine.table_summaries`: its numbers are not in the
    thesis's text, so it is listed with no published value, and its note sets the run's mean
    ranks beside Fig. 7's claims (CC-LSSVM best in accuracy, worst in sparsity)."""
    note = (
        "the table's numbers are lost from the thesis; Fig. 7 claims CC-LSSVM has the best mean "
        "rank of accuracy and the worst of sparsity (SPR)"
    )
    ranked = {"dataset", "solver", "accuracy", "sparsity"} <= set(rows.columns)
    accuracy = _mean_ranks(rows, "accuracy") if ranked else pd.Series(dtype=float)
    sparse = [s for s in accuracy.index if s != "lssvm"]  # the full LSSVM has SPR 0
    sparsity = _mean_ranks(rows, "sparsity", sparse) if ranked else accuracy
    if "cc_lssvm" in accuracy.index and "cc_lssvm" in sparsity.index:
        note += (
            f"; this run: CC-LSSVM's accuracy rank {accuracy['cc_lssvm']:.2f} of "
            f"{len(accuracy)} (best {accuracy.index[0]}, {accuracy.iloc[0]:.2f}), its sparsity "
            f"rank {sparsity['cc_lssvm']:.2f} of {len(sparsity)} sparse methods"
        )
    return [
        {
            "number": "Table 5 / Fig. 7",
            "title": "accuracy and sparsity of CC-LSSVM and the sparse LSSVMs",
            "metric": "accuracy, sparsity",
            "n_published": 0,
            "note": note,
        }
    ]


#: Ch. 4 and 5: 30 runs of a random hold-out split (Table 9's and Table 17's sizes).
_THIRTY_RUNS = Protocol("30 random hold-out splits", repeats=30)


REPRODUCTIONS = (
    _reproduction(
        "lssvm_figure_7",
        "Oliveira 2021, Table 5 / Fig. 7 (CC-LSSVM vs the sparse LSSVMs; the table's numbers "
        "are lost from the thesis: compare the ranks of accuracy and sparsity)",
        (),
        {},
        "svmlab report RUN_DIR --metric accuracy sparsity ranks both (Fig. 7's claims)",
        prepare=support_vector_columns,  # the sparse LSSVMs' SPR
        derived=SUPPORT_VECTOR_COLUMNS,
        summaries=_table_5_summary,
        protocol=Protocol("30 random hold-out splits", repeats=30),
        deviations=("cc_lssvm_small_c", "cc_lssvm_sv_set"),
    ),
    _reproduction(
        "lssvm_table_7",
        "Oliveira 2021, Table 7 (FCC-LSSVM vs FSA- and SSD-LSSVM)",
        (
            PublishedTable(
                "accuracy",
                "lssvm_t7_accuracy.csv",
                "accuracy",
                std_file="lssvm_t7_accuracy_std.csv",
                number="Table 7",
                deviations=("lssvm_large_width",),
            ),
        ),
        {"FCC-LSSVM": "fcc_lssvm", "FSA-LSSVM": "fsa_lssvm", "SSD-LSSVM": "ssd_lssvm"},
        "FSA- and SSD-LSSVM are reconstructed from their papers (the thesis only names them); "
        "(C, sigma) are searched once per dataset on the training part, the thesis took "
        "Zhou (2016)'s values",
        prepare=support_vector_columns,  # the sparse LSSVMs' SPR
        derived=SUPPORT_VECTOR_COLUMNS,
        protocol=Protocol("the fixed LIBSVM train/test splits, 20 realisations", repeats=20),
    ),
    _reproduction(
        "lwmlm_tables_11_to_13",
        "Oliveira 2021, Tables 11-13 (LW-MLM vs Full-, Random- and Rank-MLM)",
        (
            PublishedTable(
                "RMSE (raw target units)",
                "lwmlm_t11_rmse.csv",
                "rmse",
                std_file="lwmlm_t11_rmse_std.csv",
                number="Table 11",
            ),
            PublishedTable(
                "R² (squared Pearson r)",
                "lwmlm_t12_r2.csv",
                "r2_pearson_sq",
                std_file="lwmlm_t12_r2_std.csv",
                number="Table 12",
            ),
            PublishedTable(
                "NORM = ||B|| / ||B_Full||",
                "lwmlm_t13_norm.csv",
                "norm_ratio",
                std_file="lwmlm_t13_norm_std.csv",
                number="Table 13",
                deviations=("lwmlm_norm",),
            ),
        ),
        _MLM_REGRESSION,
        row_notes=dict.fromkeys(
            ("DAI", "DEL"),
            "DAI and DEL print as 0.00 in the thesis (raw targets of order 1e-4 and 1e-3)",
        ),
        protocol=Protocol("30 random hold-out splits of Table 9's sizes", repeats=30),
    ),
    _reproduction(
        "lwmlm_table_16",
        "Oliveira 2021, Table 16 (high-dimensional regression)",
        (
            PublishedTable("RMSE", "lwmlm_t16_rmse.csv", "rmse", number="Table 16"),
            PublishedTable(
                "R² (squared Pearson r)", "lwmlm_t16_r2.csv", "r2_pearson_sq", number="Table 16"
            ),
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
        protocol=Protocol(
            "random hold-out splits of Table 14's sizes; the number of runs is not printed"
        ),
        deviations=("lwmlm_knn_rs",),
    ),
    _reproduction(
        "cclwmlm_table_19",
        "Oliveira 2021, Table 19 (CCLW-MLM vs Full-, Random- and Rank-MLM)",
        (
            PublishedTable(
                "accuracy",
                "cclwmlm_t19_accuracy.csv",
                "accuracy",
                std_file="cclwmlm_t19_accuracy_std.csv",
                number="Table 19",
                deviations=("cclwmlm_split",),
            ),
            PublishedTable(
                "NORM = 1 - ||B|| / max ||B|| over the dataset's rows",
                "cclwmlm_t19_norm.csv",
                "norm_one_minus",
                std_file="cclwmlm_t19_norm_std.csv",
                number="Table 19",
                deviations=("cclwmlm_norm",),
            ),
        ),
        _MLM_CLASSIFICATION,
        "Table 18's random searches are grids here (docs/decisions/lssvm_mlm.md)",
        protocol=_THIRTY_RUNS,
    ),
)

DOCUMENT = Paper(
    "oliveira",
    "Oliveira (2021), PhD thesis: sparse LSSVM and minimal learning machines",
    (
        Study("Table 5 / Fig. 7, CC-LSSVM", "lssvm_bench", "lssvm_quick"),
        Study("Table 7, large sets", "lssvm_large", "lssvm_large_quick"),
        Study("Tables 11-13, LW-MLM", "lwmlm_bench", "lwmlm_quick"),
        Study("Table 16, high-dimensional outputs", "lwmlm_hd", "lwmlm_hd_quick"),
        Study("Table 19, CCLW-MLM", "cclwmlm_bench", "cclwmlm_quick"),
    ),
    REPRODUCTIONS,
)
