"""Locating Java and ``weka.jar``, and checking the Weka options of
:class:`~svmlab.estimators.mil.weka.WekaMIClassifier` (the evaluation options the adapter sets
itself may not be passed)."""

from __future__ import annotations

import os
import shlex
import shutil
from pathlib import Path

DEFAULT_WEKA_JAR = "/usr/share/java/weka.jar"
WEKA_JAR_ENV = "SVMLAB_WEKA_JAR"
_INSTALL_HINT = (
    "install it with `make weka` (runs `apt-get install -y weka default-jre-headless`, "
    "needs root), "
    f"or point ${WEKA_JAR_ENV} at an existing weka.jar"
)

# Evaluation options that the adapter sets itself; they may not appear in ``options``.
_RESERVED = {
    "-t": "training file",
    "-T": "test file",
    "-p": "prediction output",
    "-distribution": "prediction output",
    "-x": "cross-validation",
    "-no-cv": "cross-validation",
    "-split-percentage": "percentage split",
    "-preserve-order": "percentage split",
    "-c": "class index",
    "-l": "model input",
    "-d": "model output",
    "-classifications": "prediction output",
    "-h": "help",
    "-help": "help",
    "-synopsis": "help",
    "-info": "help",
    "-threshold-file": "threshold output",
    "-threshold-label": "threshold output",
    "-r": "margin output",
}


class WekaNotAvailableError(RuntimeError):
    """Java or ``weka.jar`` cannot be found (the message names ``make weka``)."""


# ------------------------------------------------------------------------------------------
# locating java and weka.jar
# ------------------------------------------------------------------------------------------


def find_weka_jar(weka_jar=None) -> Path:
    """The Weka jar: ``weka_jar``, else ``$SVMLAB_WEKA_JAR``, else ``/usr/share/java/weka.jar``.

    Raises
    ------
    WekaNotAvailableError
        When the chosen file does not exist; the message says where it looked and names
        the ``make weka`` target.
    """
    if weka_jar is not None:
        where = f"weka_jar={str(weka_jar)!r}"
    elif os.environ.get(WEKA_JAR_ENV):
        weka_jar, where = os.environ[WEKA_JAR_ENV], f"${WEKA_JAR_ENV}={os.environ[WEKA_JAR_ENV]!r}"
    else:
        weka_jar, where = DEFAULT_WEKA_JAR, f"the default {DEFAULT_WEKA_JAR}"
    path = Path(weka_jar).expanduser()
    if not path.is_file():
        raise WekaNotAvailableError(f"Weka jar not found ({where}); {_INSTALL_HINT}")
    return path


def find_java(java: str = "java") -> str:
    """Full path of the Java launcher ``java`` (a name on ``PATH`` or a path).

    Raises
    ------
    WekaNotAvailableError
        When it is not found; the message names the ``make weka`` target.
    """
    found = shutil.which(java)
    if found is None:
        raise WekaNotAvailableError(
            f"Java runtime not found (java={java!r} is not an executable on PATH); {_INSTALL_HINT}"
        )
    return found


def weka_available(weka_jar=None, java: str = "java") -> bool:
    """True when both the Java launcher and the Weka jar are found (no JVM is started)."""
    try:
        find_java(java)
        find_weka_jar(weka_jar)
    except WekaNotAvailableError:
        return False
    return True


# ------------------------------------------------------------------------------------------
# options
# ------------------------------------------------------------------------------------------


def parse_options(options) -> list[str]:
    """Split a Weka command-line option string into arguments.

    Quoting follows the shell, as on Weka's own command line:
    ``'-C 10 -K "weka.classifiers.mi.supportVector.MIRBFKernel -G 0.5"'`` gives
    ``["-C", "10", "-K", "weka.classifiers.mi.supportVector.MIRBFKernel -G 0.5"]``.
    A list or tuple of strings is taken as already split.

    Raises
    ------
    ValueError
        For unbalanced quotes, a non-string argument, or an evaluation option the adapter sets
        itself (``-t``, ``-T``, ``-p``, ``-x``, ``-d``, ...). Options after ``--`` belong to a
        base classifier and are not checked.
    """
    if options is None:
        return []
    if isinstance(options, str):
        try:
            args = shlex.split(options, posix=True)
        except ValueError as exc:
            raise ValueError(f"cannot parse Weka options {options!r}: {exc}") from None
    elif isinstance(options, (list, tuple)):
        args = list(options)
        bad = [a for a in args if not isinstance(a, str)]
        if bad:
            raise ValueError(
                f"Weka options must be strings; got {bad[0]!r} ({type(bad[0]).__name__})"
            )
    else:
        raise ValueError(
            f"options must be a string or a list of strings, got {type(options).__name__}"
        )
    for arg in args:
        if arg == "--":
            break
        if arg in _RESERVED:
            raise ValueError(
                f"Weka option {arg} ({_RESERVED[arg]}) is set by WekaMIClassifier itself "
                "and cannot be passed in options"
            )
    return args
