"""Validation of the inputs shared by the figure functions, and the error they raise."""

from __future__ import annotations

import math
from collections.abc import Mapping

from svmlab.errors import SvmlabError


class FigureInputError(SvmlabError, ValueError):
    """The ranks, critical difference or options given to a figure function are invalid."""


def check_ranks(avg_ranks: Mapping[str, float]) -> dict[str, float]:
    """Return ``avg_ranks`` as an ordered ``{str: float}`` dict, or raise."""
    if not isinstance(avg_ranks, Mapping):
        raise FigureInputError(
            f"avg_ranks must be a mapping from method name to average rank, "
            f"got {type(avg_ranks).__name__}"
        )
    if len(avg_ranks) == 0:
        raise FigureInputError("avg_ranks is empty: at least one method is needed")
    ranks: dict[str, float] = {}
    for name, value in avg_ranks.items():
        key = str(name)
        if key in ranks:
            raise FigureInputError(f"method name {key!r} occurs twice in avg_ranks")
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise FigureInputError(
                f"the average rank of {key!r} is not a number: {value!r}"
            ) from None
        if not math.isfinite(number):
            raise FigureInputError(
                f"the average rank of {key!r} is {number}; every rank must be a finite number"
            )
        ranks[key] = number
    return ranks


def check_cd(cd: float) -> float:
    """Return the critical difference as a finite float ``>= 0``, or raise."""
    try:
        value = float(cd)
    except (TypeError, ValueError):
        raise FigureInputError(f"cd must be a number, got {cd!r}") from None
    if not math.isfinite(value) or value < 0:
        raise FigureInputError(
            f"cd (the critical difference) must be a finite number >= 0, got {value}"
        )
    return value


def check_control(control: str, ranks: Mapping[str, float]) -> str:
    """Return the control as one of the ranked method names, or raise."""
    key = str(control)
    if key not in ranks:
        raise FigureInputError(
            f"control {control!r} is not one of the ranked methods. "
            f"Valid methods: {', '.join(ranks)}"
        )
    return key


def check_alpha(alpha: float | None) -> float | None:
    """Return the significance level as a float in (0, 1), None for none, or raise."""
    if alpha is None:
        return None
    try:
        value = float(alpha)
    except (TypeError, ValueError):
        raise FigureInputError(f"alpha must be a number in (0, 1) or None, got {alpha!r}") from None
    if not 0.0 < value < 1.0:
        raise FigureInputError(f"alpha must lie strictly between 0 and 1, got {value}")
    return value


def check_format(value_format: str) -> str:
    """Return ``value_format`` if it formats one number, or raise."""
    try:
        value_format.format(1.5)
    except (AttributeError, IndexError, KeyError, ValueError) as exc:
        raise FigureInputError(
            f"value_format must be a format string for one number such as '{{:.2f}}', "
            f"got {value_format!r} ({exc})"
        ) from None
    return value_format
