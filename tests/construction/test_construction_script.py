"""scripts/mo_construction_table62.py runs (in-process, cut down): the Table 6.2 comparison,
the SVR baselines and both figures."""

import runpy

import matplotlib.image as mpimg

from svmlab.paths import REPO_ROOT


def test_table62_script_quick_path(tmp_path, capsys):
    script = runpy.run_path(str(REPO_ROOT / "scripts" / "mo_construction_table62.py"))
    front = script["main"](
        ["--quick", "--generations", "8", "--svr-max-iter", "2000", "--out", str(tmp_path)]
    )
    out = capsys.readouterr().out
    assert "Table 6.2" in out and "X1; X1^2; X1^3; 1/X1^2; X1^4" in out
    assert "C = 1e8" in out and "capped at max_iter = 2,000" in out
    assert front["n_features"].is_monotonic_increasing and (front["test_mse"] > 0).all()
    assert script["notation"](script["TABLE_6_2"][3][3]) == "1/X1^2"
    for name in ("construction_front.png", "construction_fit.png"):
        img = mpimg.imread(tmp_path / name)
        assert img.ndim == 3 and img.shape[1] > 800
