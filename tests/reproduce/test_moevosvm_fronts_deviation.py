"""The MO-EvoSVM fronts target names its measured deviation (issue 36)."""

from pathlib import Path

from svmlab.reproduce import get_reproduction, known_deviations

ROOT = Path(__file__).resolve().parents[2]


def test_moevosvm_fronts_explains_the_missing_zero_error_end():
    assert "moevosvm_fronts" in get_reproduction("moevosvm_fronts").deviations
    texts = dict(known_deviations("moevosvm_fronts"))
    text = texts["moevosvm_fronts"]
    assert text.startswith("**")
    assert "scripts/deviations/moevosvm_fronts.py" in text
    assert (ROOT / "scripts" / "deviations" / "moevosvm_fronts.py").is_file()
