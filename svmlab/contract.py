"""The estimator contract: what an estimator tells svmlab's runner about itself.

Everything the runner, the evaluation and the tuner need to know about an estimator beyond
scikit-learn's API is declared once, on the class, as a :class:`Contract`::

    class MyBagClassifier(ClassifierMixin, BaseEstimator):
        svmlab_contract = Contract(
            input="bags",
            row_values={"objective": RowValue("objective", "max")},
        )

and read from the class without building an instance (:func:`contract_of`). An estimator
that declares nothing (scikit-learn's ``SVC``, say) has the default contract: it takes
vectors, is inductive, has no path, ignores no tuned parameter and reports no extra row
value. docs/decisions/contract.md says why the contract is a dataclass on the class rather
than scikit-learn tags.

This module is a leaf: estimators import it to declare, the runner imports it to read.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

#: What ``fit`` / ``predict`` take: 2-D arrays (``vector``), a list of per-bag 2-D arrays
#: (``bags``), 2-D arrays with a target matrix ``Y`` (``multitarget``), or 2-D arrays fed
#: through ``partial_fit`` as they arrive (``stream``).
INPUTS = ("vector", "bags", "multitarget", "stream")

#: The name of the class attribute that holds an estimator's :class:`Contract`.
ATTRIBUTE = "svmlab_contract"


@dataclass(frozen=True)
class RowValue:
    """One extra value a fitted estimator reports in its result row.

    Parameters
    ----------
    key : str
        The ``fit_info_`` key it is read from; a missing or non-numeric value gives NaN.
    direction : {"max", "min"}
        Whether a higher or a lower value is better, for reports that rank it.
    """

    key: str
    direction: str = "max"

    def __post_init__(self):
        if self.direction not in ("max", "min"):
            raise ValueError(f"RowValue.direction must be 'max' or 'min', got {self.direction!r}")


def _no_ignored(params: Mapping[str, Any]) -> tuple[str, ...]:
    return ()


@dataclass(frozen=True)
class Contract:
    """The capabilities an estimator declares to svmlab (see the module docstring).

    Parameters
    ----------
    input : {"vector", "bags", "multitarget", "stream"}, default="vector"
        What ``fit`` and ``predict`` take. ``bags`` estimators run on multi-instance data
        only, and only they do.
    transductive : bool, default=False
        ``fit`` takes the training rows plus the test rows marked unlabeled (``y = -1``,
        scikit-learn's semi-supervised convention); their labels are never passed.
    path_parameter : str, tuple of str or None, default=None
        A parameter whose values ``fit_path(X, y, values)`` fits in one run, returning one
        fitted estimator per value, each the model a separate fit with that value gives
        (OLLAWV's stopping margin). The tuner then fits the path once per inner fold. A
        tuple names parameters fitted jointly: ``fit_path(X, y, points)`` then takes a list
        of dicts over those of them the grid varies, every combination of their grid values
        (the MLM's ``C`` and number of reference points: one factorisation serves all), distinct
        names.
        The points of a path share their ``random_state``.
    path_simpler : {"min", "max"}, tuple of them or None, default=None
        Which end of the path parameter's values gives the simpler model: ``"min"`` when
        smaller values do (OLLAWV's margin: a smaller one stops the run earlier, with fewer
        support vectors), ``"max"`` when larger ones do; for a tuple of parameters, a tuple
        of the same length (None for a parameter without a direction). The tuner's
        one-standard-error rule (``tuning.rule=one_se``) moves towards that end along the
        first parameter the grid varies; None declares no direction, and that rule then
        refuses the estimator.
    tuning_ignores : callable, default=no parameter
        ``tuning_ignores(params) -> names``: the parameters that do not change the fitted
        model at the estimator's parameters ``params`` (its constructor's defaults updated
        by the configuration and the grid point). Grid points that differ only in those are
        trained once.
    row_values : mapping of str to RowValue, default={}
        Extra result-row columns, by column name, each read from ``fit_info_``.
    tune_seconds : str or None, default=None
        The ``fit_info_`` key of the seconds ``fit`` spent tuning itself (an inner search
        per chain link, say): the row moves them from the final fit's time to ``tune_time``.
    test_diagnostics : bool, default=False
        The fitted estimator has ``test_diagnostics(X_test, y_test) -> dict``, merged into
        the row's ``fit_info`` after prediction. It informs the report only, never the fit
        (e.g. the outer-test score of every member of a Pareto front).
    """

    input: str = "vector"
    transductive: bool = False
    path_parameter: str | tuple[str, ...] | None = None
    path_simpler: str | tuple[str | None, ...] | None = None
    tuning_ignores: Callable[[Mapping[str, Any]], Iterable[str]] = _no_ignored
    row_values: Mapping[str, RowValue] = field(default_factory=dict)
    tune_seconds: str | None = None
    test_diagnostics: bool = False

    def __post_init__(self):
        if self.input not in INPUTS:
            raise ValueError(f"Contract.input must be one of {INPUTS}, got {self.input!r}")
        simpler = self.path_simpler
        if simpler is not None and self.path_parameter is None:
            raise ValueError("Contract.path_simpler needs a path_parameter to point along")
        joint = isinstance(self.path_parameter, tuple)
        if not (self.path_parameter is None or joint or isinstance(self.path_parameter, str)) or (
            joint
            and (
                not self.path_parameter
                or not all(isinstance(n, str) for n in self.path_parameter)
                or len(set(self.path_parameter)) != len(self.path_parameter)
            )
        ):
            raise ValueError(
                "Contract.path_parameter must be a name or a tuple of distinct names, "
                f"got {self.path_parameter!r}"
            )
        if (
            joint
            and simpler is not None
            and (not isinstance(simpler, tuple) or len(simpler) != len(self.path_parameter))
        ):
            raise ValueError(
                "Contract.path_simpler must be a tuple as long as path_parameter "
                f"{self.path_parameter!r}, got {simpler!r}"
            )
        for each in simpler if joint and simpler is not None else (simpler,):
            if each not in (None, "min", "max"):
                raise ValueError(
                    f"Contract.path_simpler must be 'min', 'max' or None, got {simpler!r}"
                )
        if not callable(self.tuning_ignores):
            raise TypeError("Contract.tuning_ignores must be a function of the parameters")
        bad = [c for c, v in self.row_values.items() if not isinstance(v, RowValue)]
        if bad:
            raise TypeError(f"Contract.row_values[{bad[0]!r}] must be a RowValue")
        object.__setattr__(self, "row_values", dict(self.row_values))  # a copy of its own

    @property
    def joint_path(self) -> bool:
        """Whether ``fit_path`` takes points (dicts) of a joint path rather than values."""
        return isinstance(self.path_parameter, tuple)

    @property
    def path_names(self) -> tuple[str, ...]:
        """The path parameters as a tuple (empty without one)."""
        if self.path_parameter is None:
            return ()
        if isinstance(self.path_parameter, tuple):
            return self.path_parameter
        return (self.path_parameter,)

    def simpler_end(self, name: str) -> str | None:
        """``path_simpler`` of the path parameter ``name`` (None: no direction declared)."""
        if isinstance(self.path_simpler, tuple):
            return self.path_simpler[self.path_names.index(name)]
        return self.path_simpler if name in self.path_names else None

    def missing_methods(self, cls) -> list[str]:
        """The methods this contract promises that ``cls`` does not have: ``fit_path`` for a
        path parameter, ``test_diagnostics`` when declared, ``partial_fit`` for a stream."""
        promised = [
            ("fit_path", self.path_parameter is not None),
            ("test_diagnostics", self.test_diagnostics),
            ("partial_fit", self.input == "stream"),
        ]
        return [
            name for name, needed in promised if needed and not callable(getattr(cls, name, None))
        ]


#: The contract of an estimator that declares none.
DEFAULT = Contract()


def contract_of(estimator_or_class) -> Contract:
    """The :class:`Contract` an estimator class (or an instance's class) declares.

    Read from the class attribute ``svmlab_contract``, without building anything; the
    default contract when the class declares none.

    Raises
    ------
    TypeError
        If the attribute is there but is not a :class:`Contract`.
    """
    cls = estimator_or_class if isinstance(estimator_or_class, type) else type(estimator_or_class)
    declared = getattr(cls, ATTRIBUTE, DEFAULT)  # a subclass inherits its base's contract
    if not isinstance(declared, Contract):
        raise TypeError(
            f"{cls.__name__}.{ATTRIBUTE} must be a svmlab.contract.Contract, "
            f"got {type(declared).__name__}"
        )
    return declared
