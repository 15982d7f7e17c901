"""Known deviations of the reproductions: each named one is registered and re-measurable."""

import re
from pathlib import Path

from svmlab.reproduce import REPRODUCTIONS, known_deviations

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
