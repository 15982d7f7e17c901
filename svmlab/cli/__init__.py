"""The ``svmlab`` command line: run, report, stats, list, data, reproduce, pack.

:func:`main` is the entry point (the ``svmlab`` console script, ``python -m svmlab`` and
``python -m svmlab.cli``): ``svmlab run`` goes to the Hydra app (:mod:`svmlab.app`), every
other command is parsed here (:mod:`svmlab.cli.parser`) and runs from its own module
(:mod:`~svmlab.cli.report`, :mod:`~svmlab.cli.stats`, :mod:`~svmlab.cli.reproduce`,
:mod:`~svmlab.cli.data` for ``list`` and ``data``). Each command imports what it needs when it
runs, so that ``svmlab --help``, ``svmlab list`` and ``svmlab data list`` start fast.
"""

from __future__ import annotations

import signal
import sys
import threading

from svmlab.errors import SvmlabError

__all__ = ["main", "INTERRUPTED", "TERMINATED", "Terminated"]


#: Exit status after Ctrl-C (128 + SIGINT), as shells report an interrupted command.
INTERRUPTED = 130
TERMINATED = 143  # 128 + SIGTERM


class Terminated(KeyboardInterrupt):
    """SIGTERM (a scheduler's or container's stop) ends a command the way Ctrl-C does."""


def _terminate(signum, frame):
    raise Terminated()


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``svmlab`` command; returns the exit status.

    Ctrl-C (status 130) and SIGTERM (status 143) end any command with one line on stderr;
    for ``svmlab run`` the line says that finished tasks are kept and how to resume (every
    finished task is already in its own file, so nothing is lost). The pool's worker
    processes are stopped before the command returns.
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    previous = _on_sigterm(_terminate)
    try:
        if argv and argv[0] == "run":
            from svmlab.app import run

            try:
                return run(argv[1:])
            finally:  # the command's worker processes end with it (and are accounted to it)
                _stop_workers()
        return _dispatch(argv)
    except BrokenPipeError:  # e.g. `svmlab data list | head`
        sys.stderr.close()
        return 0
    except KeyboardInterrupt as exc:
        _on_sigterm(signal.SIG_IGN)  # a second SIGTERM while stopping changes nothing
        _stop_workers()
        if argv and argv[0] == "run":
            hint = "; finished tasks are kept - run the same command again (same run_id) to resume"
        elif argv and argv[0] == "reproduce":
            hint = "; finished tasks are kept - run the same command again to resume"
        else:
            hint = ""
        how = "terminated" if isinstance(exc, Terminated) else "interrupted"
        print(f"svmlab: {how}{hint}", file=sys.stderr)
        return TERMINATED if isinstance(exc, Terminated) else INTERRUPTED
    finally:
        _on_sigterm(previous)


def _on_sigterm(handler):
    """Install a SIGTERM handler (main thread only); returns the previous one."""
    if threading.current_thread() is not threading.main_thread() or handler is None:
        return None
    return signal.signal(signal.SIGTERM, handler)


def _stop_workers() -> None:
    """Kill the local pool's worker processes, if a pool was started."""
    if "joblib" not in sys.modules:
        return
    try:
        from joblib.externals.loky import reusable_executor

        executor = reusable_executor._executor
        if executor is not None:  # shut down as it is (asking for it anew would start one)
            executor.shutdown(wait=True, kill_workers=True)
    except Exception:  # already gone: nothing to stop
        pass


def _dispatch(argv: list[str]) -> int:
    from svmlab.cli.parser import build_parser

    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    try:
        if args.command == "report":
            from svmlab.cli.report import report

            return report(args)
        if args.command == "stats":
            from svmlab.cli.stats import stats

            return stats(args)
        if args.command == "list":
            from svmlab.cli.data import list_names

            return list_names(args.what)
        if args.command == "reproduce":
            from svmlab.cli.reproduce import reproduce

            return reproduce(args)
        if args.command == "pack":
            from svmlab.cli.pack import pack

            return pack(args)
        from svmlab.cli.data import data

        return data(args)
    except SvmlabError as exc:
        print(f"svmlab: error: {exc}", file=sys.stderr)
        return 2
