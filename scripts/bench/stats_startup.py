"""Start-up of ``svmlab stats`` on a small table, against importing numpy and scipy.stats.

Usage::

    python scripts/bench/stats_startup.py [--runs 5] [--figures]

A 3 x 3 table is written to a temporary directory and ``svmlab stats TABLE --figures none``
(with ``--figures``: the default PNG figures too) is timed as a whole process, alternating
with ``python -c "import numpy, scipy.stats"`` in the same run so that the ratio holds on a
busy machine. Printed: the median wall seconds of each and the median of the pairwise ratios.
Nearly all of a small table's time is start-up: matplotlib is imported only when figures are
drawn, so what remains over the yardstick is pandas (read_table and the report sections).
Target: < 1.5 s without figures on the issue's machine, i.e. ratio <= 1.5 to the yardstick.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TABLE = "dataset,A,B,C\nd1,0.90,0.80,0.70\nd2,0.85,0.82,0.75\nd3,0.88,0.80,0.79\n"
YARDSTICK = [sys.executable, "-c", "import numpy, scipy.stats"]


def wall(cmd: list[str], cwd: Path) -> float:
    """Seconds from start to exit of ``cmd`` (output discarded; a failure stops the bench)."""
    t0 = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--figures", action="store_true", help="draw the default PNG figures too")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        (tmp / "t.csv").write_text(TABLE)
        stats = [sys.executable, "-m", "svmlab", "stats", "t.csv"]
        stats += ["--figures", "png"] if args.figures else ["--figures", "none"]
        wall(stats, tmp), wall(YARDSTICK, tmp)  # warm the file cache
        pairs = [(wall(stats, tmp), wall(YARDSTICK, tmp)) for _ in range(args.runs)]
    a = statistics.median(p[0] for p in pairs)
    b = statistics.median(p[1] for p in pairs)
    ratio = statistics.median(p[0] / p[1] for p in pairs)
    what = "with PNG figures" if args.figures else "without figures"
    print(f"svmlab stats, 3 x 3 table, {what}: {a:6.2f} s (median of {args.runs})")
    print(f"python -c 'import numpy, scipy.stats':     {b:6.2f} s")
    print(f"ratio (median of pairs): {ratio:.2f} (target <= 1.5 without figures)")


if __name__ == "__main__":
    main()
