"""Check the HTML reports ``svmlab reproduce`` wrote: every table has rows, every figure exists.

    python scripts/check_report.py results/reproduce/mierswa2009-quick.html [...]

Prints one line per page (tables, figures) and exits 1 naming each problem. CI runs it on
the report of ``svmlab reproduce mierswa2009 --quick`` (``make reproduce-quick``).
"""

from __future__ import annotations

import argparse
import sys

from svmlab.report.render import check_page


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pages", nargs="+", help="HTML reports of svmlab reproduce")
    args = parser.parse_args(argv)
    bad = 0
    for path in args.pages:
        try:
            n_tables, n_figures, problems = check_page(path)
        except OSError as exc:
            print(f"{path}: cannot be read: {exc.strerror}", file=sys.stderr)
            bad += 1
            continue
        print(f"{path}: {n_tables} tables, {n_figures} figures")
        for problem in problems:
            print(f"{path}: {problem}", file=sys.stderr)
        bad += bool(problems) or n_tables == 0
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
