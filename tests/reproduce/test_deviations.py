"""Known deviations of the reproductions: each named one is registered and re-measurable."""

import re
from pathlib import Path

from svmlab.reproduce import REPRODUCTIONS, known_deviations
from svmlab.reproduce.registry import get_reproduction

ROOT = Path(__file__).resolve().parents[2]


def test_the_transductive_figures_deviation_is_registered_with_the_tsvm_target():
    topics = dict(known_deviations("tsvm_figures_5_2_to_5_7"))
    assert "gamma = 10" in topics["tsvm_figures"]


def test_every_deviation_names_a_script_that_exists():
    for name in REPRODUCTIONS:
        for topic, text in known_deviations(name):
            for script in re.findall(r"scripts/deviations/\w+\.py", text):
                assert (ROOT / script).is_file(), (topic, script)


def test_fig_7_carries_both_cc_lssvm_notes():
    topics = dict(known_deviations("lssvm_figure_7"))
    assert {"cc_lssvm_small_c", "cc_lssvm_sv_set"} <= set(topics)
    assert "CCIS(D, 0)" in topics["cc_lssvm_sv_set"]


def test_ollawv_accuracy_tables_carry_the_fold_assignment_note():
    for target in ("ollawv_table_5_3", "ollawv_table_5_5"):
        topics = dict(known_deviations(target))
        assert "ollawv_fold_seed" in topics, target
        assert "scripts/deviations/ollawv_fold_seed.py" in topics["ollawv_fold_seed"]
    # the note concerns the accuracy tables only, not Table 5.3's run times or %SV
    tables = get_reproduction("ollawv_table_5_3").tables
    assert [t.title for t in tables if "ollawv_fold_seed" in t.deviations] == ["accuracy (%)"]
