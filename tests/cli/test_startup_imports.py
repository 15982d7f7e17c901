"""The commands that should start at once import no heavy library (issue 34, item 2).

What is asserted is the behaviour that keeps them fast - which modules a command loads - not
their time: ``scripts/bench/startup.py`` measures the CPU seconds.
"""

import subprocess
import sys

import pytest

HEAVY = ("sklearn", "pandas", "scipy", "matplotlib", "hydra", "joblib")


@pytest.mark.parametrize(
    "argv",
    [
        ["--help"],
        ["list", "datasets"],
        ["list", "solvers"],
        ["list", "protocols"],
        ["list", "experiments"],
        ["list", "runners"],
        ["list", "metrics"],
        ["data", "list"],
    ],
)
def test_listing_commands_import_no_heavy_library(argv, tmp_path):
    code = (
        "import sys\n"
        "from svmlab.cli import main\n"
        "try:\n"
        f"    rc = main({argv!r})\n"
        "except SystemExit as exc:\n"
        "    rc = exc.code\n"
        f"loaded = sorted(m for m in {HEAVY!r} if m in sys.modules)\n"
        "print('LOADED', rc, ','.join(loaded))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True
    ).stdout
    assert out.strip().splitlines()[-1] in ("LOADED 0 ", "LOADED 0"), out[-300:]
