"""Seconds per call of the SVM^perf most-violated-constraint oracles against n.

Usage::

    python scripts/bench/svmperf_oracles.py [--sizes 1000 10000 100000 1000000]
        [--enum-max 100000] [--pos-rate 0.1] [--budget 0.5] [--quick] [--threads 1]

The claim (Joachims (2005), Algs. 2-3; docs/decisions/svmperf.md): accuracy is
O(n), F1 and ROC area O(n log n), PRBEP O(n) after an O(n log n) sort, MCC O(n+ n-) (exact
enumeration, no concavity to exploit). Each oracle of
:mod:`svmlab.estimators.svmperf.oracles` is called on y with ``--pos-rate`` positives (random
positions) and N(0, 1) scores, seed 0, svmperf scaling. The O(n+ n-) enumerations (MCC and the
F1 reference ``_f1_reference``) run only up to ``--enum-max`` (at 10 % positives n = 10^6 is
9 * 10^10 grid cells; their time there is the 10^5 time times 100, not measured). The named
peer is an O(n log n) reference timed in the same run: ``np.argsort`` of the same scores.

Every time is the minimum over repeated calls (repeated until ``--budget`` seconds are spent,
at most 5 calls, at least 1). Printed: seconds per call, then per oracle the growth ratio per
decade of n and the least-squares slope of log t against log n (1 = linear, 2 = quadratic;
n log n shows as about 1.1), then each oracle's time over argsort's. One process, ``--threads``
BLAS threads (default 1). ``--quick``: n = 10^3 and 10^4 only.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
from threadpoolctl import threadpool_limits

from svmlab.estimators.svmperf.oracles import _f1_reference, most_violated

ORACLES = ("accuracy", "f1", "prbep", "auc", "mcc", "f1 (O(n+n-) ref.)")
ENUMERATIONS = ("mcc", "f1 (O(n+n-) ref.)")
PEER = "argsort (peer)"


def _timed(call, budget):
    best, spent, calls = math.inf, 0.0, 0
    while calls < 5 and (calls == 0 or spent < budget):
        t0 = time.perf_counter()
        call()
        dt = time.perf_counter() - t0
        best, spent, calls = min(best, dt), spent + dt, calls + 1
    return best


def _data(n, pos_rate):
    rng = np.random.default_rng(0)
    y = -np.ones(n, dtype=np.int8)
    y[rng.choice(n, max(1, round(pos_rate * n)), replace=False)] = 1
    return y, rng.normal(size=n)


def _call(name, y, f):
    if name == PEER:
        return lambda: np.argsort(f)
    if name == "f1 (O(n+n-) ref.)":
        return lambda: _f1_reference(y, f)
    return lambda: most_violated(name, y, f)


def _slope(ns, ts):
    pts = [(math.log10(n), math.log10(t)) for n, t in zip(ns, ts) if t is not None]
    if len(pts) < 2:
        return math.nan
    x, z = np.array(pts).T
    return float(np.polyfit(x, z, 1)[0])


def run(sizes, enum_max, pos_rate, budget):
    names = (*ORACLES, PEER)
    times = {name: [] for name in names}
    _call("f1", *_data(100, pos_rate))()  # warm-up (imports, first allocations)
    for n in sizes:
        y, f = _data(n, pos_rate)
        for name in names:
            skip = name in ENUMERATIONS and n > enum_max
            times[name].append(None if skip else _timed(_call(name, y, f), budget))

    width = max(map(len, names)) + 2
    fmt = lambda t: f"{t:12.3e}" if t is not None else f"{'--':>12}"
    print(f"\nseconds per call (min over repeats), positive rate {pos_rate}, N(0, 1) scores")
    print(f"{'oracle':<{width}}" + "".join(f"{f'n = {n:.0e}':>12}" for n in sizes))
    for name in names:
        print(f"{name:<{width}}" + "".join(fmt(t) for t in times[name]))

    print("\ngrowth per decade of n (t(10n) / t(n)) and fitted log-log slope")
    header = "".join(f"{f'{a:.0e}->{b:.0e}':>14}" for a, b in zip(sizes, sizes[1:]))
    print(f"{'oracle':<{width}}{header}{'slope':>8}")
    for name in names:
        ts = times[name]
        ratios = [
            f"{b / a:14.1f}" if a is not None and b is not None else f"{'--':>14}"
            for a, b in zip(ts, ts[1:])
        ]
        print(f"{name:<{width}}{''.join(ratios)}{_slope(sizes, ts):8.2f}")

    print(f"\ntime / time of the peer ({PEER}: O(n log n), same scores, same run)")
    print(f"{'oracle':<{width}}" + "".join(f"{f'n = {n:.0e}':>12}" for n in sizes))
    for name in ORACLES:
        row = [
            f"{t / p:12.1f}" if t is not None else f"{'--':>12}"
            for t, p in zip(times[name], times[PEER])
        ]
        print(f"{name:<{width}}" + "".join(row))
    return times


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--sizes", type=int, nargs="*", default=None)
    ap.add_argument(
        "--enum-max", type=int, default=100_000, help="largest n of the O(n+ n-) enumerations"
    )
    ap.add_argument("--pos-rate", type=float, default=0.1)
    ap.add_argument("--budget", type=float, default=0.5, help="seconds of repeats per timing")
    ap.add_argument("--quick", action="store_true", help="smoke-test size: n = 10^3, 10^4")
    ap.add_argument("--threads", type=int, default=1, help="BLAS threads (default one)")
    args = ap.parse_args(argv)
    if args.sizes is None:
        args.sizes = [1_000, 10_000] if args.quick else [1_000, 10_000, 100_000, 1_000_000]
    print(f"one process, {args.threads} BLAS thread(s)")
    with threadpool_limits(limits=args.threads, user_api="blas"):
        run(args.sizes, args.enum_max, args.pos_rate, args.budget)


if __name__ == "__main__":
    main()
