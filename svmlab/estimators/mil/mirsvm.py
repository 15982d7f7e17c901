"""MIRSVM: the Multi-Instance Representative SVM (Melki, Cano & Ventura 2018; dissertation Ch. 4).

Each bag is represented by exactly one of its instances. Starting from a random
representative per bag, MIRSVM alternates two steps:

1. solve the kernel SVM dual (Eq. 4.10) over the n representatives, labelled with their
   bags' labels, and compute the bias from its support vectors (Eq. 4.13);
2. re-select every bag's representative as its instance with the largest decision value
   under that hyperplane (Eq. 4.9): the most positive instance of a positive bag, the least
   negative instance of a negative bag.

A bag is predicted positive when its largest instance output is positive (the standard
multi-instance assumption, Eq. 4.12).

The paper says the loop runs "until the representatives stop changing"; the author's MATLAB
code (``DualTrain.m``) runs exactly as many iterations as there are bags and returns the
last one, and its convergence counter (the paper's Fig. 4.2) compares each representative
set with the one *two* iterations earlier, so a 2-cycle looks converged. svmlab's defaults
follow that code (docs/decisions/mil.md, "MIRSVM: the author's code as the default"):

* "Iterations and the returned model": ``max_iter=None`` (the number of training bags) and
  ``keep="last"``, the iterate of the last iteration. Once a representative set repeats, the
  rest of the sequence is periodic, so that iterate is read off the cycle instead of being
  computed (``detect_cycles=False`` runs every iteration). ``keep="best"`` (lowest
  multi-instance objective) and ``patience`` are svmlab's cycle-aware refinements;
  ``keep="author"`` pairs the last ``alpha`` with the representatives re-selected from it,
  as ``DualTrain.m`` returns them. ``stop="stall"`` ends a fit that has neither settled nor
  cycled after 10 iterations without a lower objective and returns the lowest iterate: as
  fast as MI-SVM on the five standard sets, but it also cuts fits that would have cycled
  later (docs/decisions/mil.md, "A stopping rule for the wandering fits").
* "Support vectors used for the bias": all support vectors ``0 < alpha <= C`` (the code,
  the journal); ``bias_sv="free"`` uses ``0 < alpha < C`` (the chapter's Alg. 4.1).
* "Box constraint": box ``[0, C]``; ``c_per_bag=True`` gives ``[0, C/n]`` (journal
  Eqs. 5-6).
* "Representative selection": argmax of ``f(x)`` in every bag (the code, Eqs. 4.3, 4.9);
  ``selection="max_margin"`` takes the argmax of ``Y_I f(x)`` (Alg. 4.1 line 14).
* "Bias formula": Eq. 4.13 in kernel form (the code); ``bias_form="gram"`` is Alg. 4.1
  line 12, ``Y_sv - G_sv (alpha_sv * Y_sv)``.

Cost: the kernel rows ``K(x_s, .)`` over all training instances of the instances that have
been representatives are kept (up to :data:`MAX_CACHED_KERNEL` entries; never the full
instance kernel), so a representative that returns costs nothing, the representatives' own
kernel is a gather and the instance outputs a weighted sum of rows. Each QP is warm-started
from the previous ``alpha``. With SMO an iteration runs as two numba calls
(:mod:`._mirsvm_qp`) that take the same steps as the Python-level one. Where the loop neither
settles nor cycles, the negative bags' representatives keep swapping (docs/decisions/mil.md,
"MIRSVM against MI-SVM: cost, and why the loop wanders").

References
----------
G. Melki, A. Cano, S. Ventura. MIRSVM: Multi-instance support vector machine with bag
representatives. Pattern Recognition 79 (2018) 228-241. doi:10.1016/j.patcog.2018.02.007
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils.extmath import row_norms

from svmlab._sklearn_compat import Interval, StrOptions, _fit_context
from svmlab.contract import Contract, RowValue
from svmlab.estimators.mil._bags import (
    MaxInstanceMixin,
    bag_argmax,
    bag_max,
    check_bag_labels,
    check_bags,
)
from svmlab.estimators.mil._mirsvm_qp import RepresentativeKernel
from svmlab.kernels import gamma_from_sigma, rbf_expansion
from svmlab.qp import DualSolution, solve_svm_dual

__all__ = ["MIRSVMClassifier", "MAX_CACHED_KERNEL", "AUTHOR_OUTPUT_FLOOR"]

#: Kernel values (float64 entries) MIRSVM keeps between iterations: rows ``K(x_s, .)`` over
#: all N training instances for up to ``MAX_CACHED_KERNEL / N`` representatives (2**24: 128
#: MiB). With fewer slots than bags the outputs are recomputed in blocks at every iteration.
MAX_CACHED_KERNEL = 2**24

#: The author's ``DualTrain.m`` re-selects each representative only among the instances whose
#: output is farther than this from zero (those within it are treated as missing; a bag with
#: nothing left keeps its first instance). ``output_floor="auto"`` uses it with
#: ``keep="author"`` (docs/decisions/mil.md, "MIRSVM: the author's output floor").
AUTHOR_OUTPUT_FLOOR = 1e-5


def _lowest_iterate(objectives: list[float], lowest: int) -> int:
    """1-based iteration of the lowest multi-instance objective so far (0: none yet). A new
    one must be lower by more than 1e-4 relative -- above the QP tolerance, so that the solvers
    agree on near-ties: the first of them is kept."""
    if lowest == 0 or objectives[-1] < objectives[lowest - 1] - 1e-4 * abs(objectives[lowest - 1]):
        return len(objectives)
    return lowest


@dataclass
class _Iterate:
    """One pass of the alternation: the QP over the representatives ``S`` and its model."""

    S: np.ndarray
    solution: DualSolution
    sv: np.ndarray
    b: float
    objective: float


@dataclass
class _Trace:
    """What the MIRSVM alternation records for ``fit_info_``."""

    kernel_seconds: float
    qp_iterations: int = 0
    qp_seconds: float = 0.0
    max_gap: float = 0.0
    mi_objective: list[float] = field(default_factory=list)
    unchanged: list[int] = field(default_factory=list)
    unchanged_two_step: list[int] = field(default_factory=list)
    stop: str = "max_iter"
    cycle_start: int = 0
    cycle_length: int = 0

    def add_qp(self, solution: DualSolution) -> None:
        self.qp_iterations += solution.n_iter
        self.qp_seconds += solution.seconds
        self.max_gap = max(self.max_gap, solution.gap)

    def fit_info(self, *, kept: int, solution: DualSolution, gamma: float, X, n, T) -> dict:
        """``fit_info_``, with ``kept`` the 1-based computed iteration of the returned model."""
        return {
            "iterations": len(self.unchanged),
            "max_iter": int(T),
            "converged": self.stop == "converged",
            "stop": self.stop,
            "cycle_start": int(self.cycle_start),
            "cycle_length": int(self.cycle_length),
            "kept_iteration": int(kept),
            "objective": float(-solution.objective),
            "mi_objective": float(self.mi_objective[kept - 1]),
            "mi_objective_per_iter": self.mi_objective,
            "qp_iterations": int(self.qp_iterations),
            "qp_seconds": float(self.qp_seconds),
            "kernel_seconds": float(self.kernel_seconds),
            "max_kkt_gap": float(self.max_gap),
            "qp_solver": solution.method,
            "gamma": float(gamma),
            "n_bags": int(n),
            "n_instances": int(X.shape[0]),
            "unchanged_per_iter": [int(u) for u in self.unchanged],
            "unchanged_two_step_per_iter": [int(u) for u in self.unchanged_two_step],
        }


class MIRSVMClassifier(MaxInstanceMixin, ClassifierMixin, BaseEstimator):
    """Multi-Instance Representative SVM: one representative instance per bag.

    Parameters
    ----------
    C : float, default=10.0
        Penalty of the hinge loss; > 0. The paper searches {0.1, 1, 10, 100, 1e3, 1e4}.
        The default is chosen on the five standard sets with z-scored features
        (docs/decisions/mil.md, "MIRSVM: the author's code as the default").
    sigma : float, default=5.0
        Width of the Gaussian kernel ``K(x, x') = exp(-||x - x'||^2 / (2 sigma^2))``
        (Eq. 4.11), as the paper parameterises it: ``gamma = 1 / (2 sigma^2)``. The paper
        searches {0.1, 0.5, 1, 2, 5, 10}.
    gamma : float or None, default=None
        The same kernel in the LIBSVM parameterisation ``exp(-gamma ||x - x'||^2)``. When
        set it is used and ``sigma`` is ignored.
    max_iter : int or None, default=None
        Number of iterations (QP + re-selection) whose last iterate is returned with
        ``keep="last"``. ``None``: the number of training bags, as the author's code. A fixed
        point or a repeated representative set found earlier ends the loop (see
        ``detect_cycles``).
    tol : float, default=1e-5
        Optimality tolerance of each QP: the maximal KKT violation (see :mod:`svmlab.qp`).
    qp_solver : {"smo", "osqp", "libsvm"}, default="smo"
        QP solver: svmlab's SMO (:func:`svmlab.qp.solve_svm_dual`, numba), OSQP (a general
        QP solver like the paper's MATLAB ``quadprog``, polished and finished by SMO), or
        LIBSVM through ``sklearn.svm.SVC(kernel="precomputed")``. All solve the same dual
        to ``tol``; SMO and OSQP are warm-started across iterations.
    warm_start : bool, default=True
        Start each QP from the previous iteration's ``alpha`` (always feasible: the bag
        labels and ``C`` do not change). ``False`` solves every QP from scratch.
    selection : {"max_output", "max_margin"}, default="max_output"
        Representative rule. ``"max_output"``: argmax over the bag's instances of the
        decision value ``f(x)`` for every bag (Eqs. 4.3, 4.9, the prose and the author's
        code). ``"max_margin"``: argmax of ``Y_I f(x)``, the literal Alg. 4.1 line 14, which
        makes negative bags choose their most negative instance (docs/decisions/mil.md,
        "Representative selection").
    bias_sv : {"all", "free"}, default="all"
        Support vectors averaged in the bias: all ``0 < alpha <= C`` (the author's code, the
        journal and the chapter's figure text) or the free ones ``0 < alpha < C`` (chapter
        Alg. 4.1; all ``alpha > 0`` when none is free). With a small ``C`` nearly every
        ``alpha`` is at ``C`` and the few free ones alone set a poor bias.
    bias_form : {"kernel", "gram"}, default="kernel"
        ``"kernel"``: Eq. 4.13, ``b = mean_{I in sv} (Y_I - sum_K alpha_K Y_K K(x_I, x_K))``
        with the sum over every support vector. ``"gram"``: the literal Alg. 4.1 line 12,
        ``mean(Y_sv - G_sv (alpha_sv * Y_sv))`` with ``G = (Y Y^T) * K`` and the sum
        restricted to the same SV set (docs/decisions/mil.md, "Bias formula").
    keep : {"last", "best", "author"}, default="last"
        The iterate returned. ``"last"``: the one of iteration ``max_iter`` (at a fixed point,
        the fixed point), with the representatives it was fitted on. ``"best"``: among the
        iterates up to ``max_iter``, the one with the smallest multi-instance objective
        ``1/2 ||w||^2 + C sum_I max(0, 1 - Y_I max_{i in I} f(x_i))`` (a lower one must
        improve by more than 1e-4 relative; at a fixed point, the fixed point).
        ``"author"``: as ``DualTrain.m`` returns it, the ``alpha`` and bias of iteration
        ``max_iter`` on the representatives re-selected from them (with ``output_floor``
        "auto", also by the author's re-selection rule).
    output_floor : "auto" or float, default="auto"
        Instances whose output satisfies ``|f(x)| <= output_floor`` take no part in the
        re-selection of their bag's representative; a bag whose instances all do keeps its
        first one. ``0`` leaves none out. ``"auto"``: :data:`AUTHOR_OUTPUT_FLOOR` (1e-5, the
        author's ``DualTrain.m``) with ``keep="author"``, else 0 (docs/decisions/mil.md,
        "MIRSVM: the author's output floor").
    detect_cycles : bool, default=True
        Stop once the representative set repeats an earlier one: the iterations up to
        ``max_iter`` would repeat that cycle, so their last iterate (and the best) is known
        exactly (``stop="cycle"``). ``False`` computes every iteration up to ``max_iter``
        (slower; the same model up to the QP tolerance).
    patience : int or None, default=None
        With ``stop="author"``: stop after this many consecutive iterations without a lower
        multi-instance objective (``stop="patience"``, checked before a cycle); ``keep`` then
        chooses among the iterates computed. With ``stop="stall"``: that rule's window
        (``None``: 10).
    stop : {"author", "stall"}, default="author"
        Stopping rule besides a fixed point, a cycle and ``max_iter``. ``"author"``: the loop
        runs up to ``max_iter`` as the author's code does (or ``patience``). ``"stall"``: a fit
        whose representatives have neither settled nor repeated ends after ``patience`` (10)
        consecutive iterations without a lower multi-instance objective
        (``fit_info_["stop"] == "stall"``) and returns the lowest iterate, whatever ``keep``
        says. A fixed point or a cycle found first ends the fit as with ``"author"``, with
        the same model; a cycle that would have been found later is cut
        (docs/decisions/mil.md, "A stopping rule for the wandering fits").
    c_per_bag : bool, default=False
        Use the box ``[0, C / n]`` of the journal's Eqs. 5-6 instead of ``[0, C]``
        (docs/decisions/mil.md, "Box constraint").
    random_state : int, RandomState instance or None, default=None
        Seeds the random initial representatives.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        Bag labels; ``classes_[1]`` is the positive class (a bag with a positive instance).
    representatives_ : ndarray of shape (n_bags,)
        Index, within its bag, of each training bag's representative in the final model.
    support_ : ndarray of shape (n_SV,)
        Indices of the training bags whose representative is a support vector.
    support_vectors_ : ndarray of shape (n_SV, n_features)
        Those representatives.
    dual_coef_ : ndarray of shape (n_SV,)
        ``alpha_I * Y_I`` of the support vectors.
    intercept_ : float
        Bias ``b`` (Eq. 4.13).
    n_support_ : ndarray of shape (2,)
        Support vectors per class (negative, positive); at most one per bag.
    n_iter_ : int
        QPs solved (iterations computed).
    unchanged_per_iter_ : ndarray of shape (n_iter_,)
        After each QP, how many bags kept their representative (svmlab's convergence count;
        the number of bags at a fixed point).
    unchanged_two_step_per_iter_ : ndarray of shape (n_iter_,)
        After each QP, how many bags have the representative they had two iterations
        earlier (0 after the first): what the author's code counts and the paper's Fig. 4.2
        plots; the number of bags on a 2-cycle too.
    fit_info_ : dict
        ``iterations``, ``max_iter`` (the number of iterations stood for), ``converged``,
        ``stop`` ("converged", "cycle", "patience", "stall" or ``"max_iter"``), ``cycle_start``
        (1-based first iteration of the repeating cycle; 0 without one), ``cycle_length``,
        ``kept_iteration`` (1-based computed iterate returned), ``objective`` (its dual
        objective, maximised form), ``mi_objective`` (its multi-instance objective, see
        ``keep``; one value per iteration in ``mi_objective_per_iter``), ``qp_iterations``,
        ``qp_seconds``, ``kernel_seconds``, ``max_kkt_gap``, ``gamma``, ``n_bags``,
        ``n_instances``, ``unchanged_per_iter``, ``unchanged_two_step_per_iter``, and
        ``counts_to_max_iter`` (``{"one_step": [...], "two_step": [...]}``: both counts over
        all ``max_iter`` iterations, those after a cycle read off it).

    Notes
    -----
    Iterate ``k`` beyond a cycle found at iterations ``s .. t`` (1-based, period
    ``p = t - s + 1``) is iterate ``s + (k - s) mod p``. Reaching ``max_iter`` without a
    fixed point or a cycle raises a ``ConvergenceWarning``. ``sign(0)`` is read as negative.
    """

    svmlab_contract = Contract(
        input="bags", row_values={"dual_objective": RowValue("objective", "max")}
    )

    _parameter_constraints: dict = {
        "C": [Interval(Real, 0.0, None, closed="neither")],
        "sigma": [Interval(Real, 0.0, None, closed="neither")],
        "gamma": [Interval(Real, 0.0, None, closed="neither"), None],
        "max_iter": [Interval(Integral, 1, None, closed="left"), None],
        "tol": [Interval(Real, 0.0, None, closed="neither")],
        "qp_solver": [StrOptions({"smo", "osqp", "libsvm"})],
        "warm_start": ["boolean"],
        "selection": [StrOptions({"max_output", "max_margin"})],
        "bias_sv": [StrOptions({"free", "all"})],
        "bias_form": [StrOptions({"kernel", "gram"})],
        "keep": [StrOptions({"last", "best", "author"})],
        "output_floor": [StrOptions({"auto"}), Interval(Real, 0.0, None, closed="left")],
        "detect_cycles": ["boolean"],
        "patience": [Interval(Integral, 1, None, closed="left"), None],
        "stop": [StrOptions({"author", "stall"})],
        "c_per_bag": ["boolean"],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        C: float = 10.0,
        sigma: float = 5.0,
        gamma: float | None = None,
        max_iter: int | None = None,
        tol: float = 1e-5,
        qp_solver: str = "smo",
        warm_start: bool = True,
        selection: str = "max_output",
        bias_sv: str = "all",
        bias_form: str = "kernel",
        keep: str = "last",
        output_floor: str | float = "auto",
        detect_cycles: bool = True,
        patience: int | None = None,
        stop: str = "author",
        c_per_bag: bool = False,
        random_state=None,
    ):
        self.C = C
        self.sigma = sigma
        self.gamma = gamma
        self.max_iter = max_iter
        self.tol = tol
        self.qp_solver = qp_solver
        self.warm_start = warm_start
        self.selection = selection
        self.bias_sv = bias_sv
        self.bias_form = bias_form
        self.keep = keep
        self.output_floor = output_floor
        self.detect_cycles = detect_cycles
        self.patience = patience
        self.stop = stop
        self.c_per_bag = c_per_bag
        self.random_state = random_state

    # -- fitting ---------------------------------------------------------------------------

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, bags, y):
        """Fit MIRSVM (Alg. 4.1).

        Parameters
        ----------
        bags : sequence of array-like of shape (n_instances_I, n_features)
            Training bags.
        y : array-like of shape (n_bags,)
            Bag labels, exactly two classes; the larger (``classes_[1]``) is positive.

        Returns
        -------
        self : object
        """
        X, starts, sizes = check_bags(bags)
        n = len(sizes)
        self.classes_, y_idx = check_bag_labels(y, n, "MIRSVM")
        Y = np.where(y_idx == 1, 1.0, -1.0)
        self.n_features_in_ = X.shape[1]
        gamma = float(self.gamma) if self.gamma is not None else gamma_from_sigma(self.sigma)
        box = self.C / n if self.c_per_bag else float(self.C)
        T = n if self.max_iter is None else int(self.max_iter)
        floor = self._output_floor()
        sq = row_norms(X, squared=True)

        # random initial representative in every bag (Alg. 4.1 lines 1-3)
        rng = check_random_state(self.random_state)
        S = starts + np.minimum((rng.random_sample(n) * sizes).astype(np.intp), sizes - 1)

        t0 = time.perf_counter()
        kernel = RepresentativeKernel(
            X, S, gamma, sq, max_cached=MAX_CACHED_KERNEL, gather=self.qp_solver != "smo"
        )
        trace = _Trace(kernel_seconds=time.perf_counter() - t0)
        seen = {S.tobytes(): 0}  # representative set -> 0-based iteration fitted on it
        iterates: list[_Iterate] = []
        previous, S_before, lowest = None, None, 0
        for t in range(T):
            it, S_new = self._iterate(kernel, Y, box, previous, S, (starts, sizes, floor), trace)
            previous = it.solution
            iterates.append(it)
            lowest = _lowest_iterate(trace.mi_objective, lowest)
            t0 = time.perf_counter()
            changed = np.flatnonzero(S_new != S)
            trace.unchanged.append(int(n - len(changed)))
            trace.unchanged_two_step.append(
                0 if S_before is None else int(np.count_nonzero(S_new == S_before))
            )
            if self._stops(trace, t, changed, lowest, seen.get(S_new.tobytes()), T):
                break
            seen[S_new.tobytes()] = t + 1
            S_before, S = S, S_new
            kernel.set(S, changed)
            trace.kernel_seconds += time.perf_counter() - t0

        if trace.stop == "max_iter":
            warnings.warn(  # noqa: B028 (about this fit, not the caller's line)
                f"MIRSVM: the representatives neither settled nor cycled within "
                f"max_iter={T} iterations",
                ConvergenceWarning,
            )
        kept = self._kept(trace, lowest, T, len(iterates))
        model = iterates[kept]
        S_model = model.S
        if self.keep == "author":  # the representatives re-selected from the kept iterate
            S_model = iterates[kept + 1].S if kept + 1 < len(iterates) else S_new
        self._store_model(X, starts, Y, gamma, S_model, model)
        self.n_iter_ = len(trace.unchanged)
        self.unchanged_per_iter_ = np.asarray(trace.unchanged, dtype=np.intp)
        self.unchanged_two_step_per_iter_ = np.asarray(trace.unchanged_two_step, dtype=np.intp)
        self.fit_info_ = trace.fit_info(
            kept=kept + 1, solution=model.solution, gamma=gamma, X=X, n=n, T=T
        )
        self.fit_info_["counts_to_max_iter"] = self._counts_to_max_iter(trace, iterates, S_new, T)
        self.fit_info_["output_floor"] = floor
        return self

    def _output_floor(self) -> float:
        """The ``output_floor`` in effect ("auto": the author's with ``keep="author"``)."""
        if self.output_floor == "auto":
            return AUTHOR_OUTPUT_FLOOR if self.keep == "author" else 0.0
        return float(self.output_floor)

    @staticmethod
    def _counts_to_max_iter(trace: _Trace, iterates, S_last, T: int) -> dict:
        """Both per-iteration counts over all ``T`` iterations, those after a cycle read off it
        (what running every iteration, as the author's code does, would record)."""
        one, two = list(trace.unchanged), list(trace.unchanged_two_step)
        m = len(one)
        if trace.stop in ("converged", "cycle") and T > m:
            sets = np.stack([it.S for it in iterates] + [S_last])
            s, p = trace.cycle_start - 1, trace.cycle_length
            k = np.arange(m - 1, T + 1)  # representatives fitted on at (0-based) iteration k
            rep = sets[np.where(k < m, k, s + (k - s) % p)]
            one += np.count_nonzero(rep[2:] == rep[1:-1], axis=1).tolist()
            two += np.count_nonzero(rep[2:] == rep[:-2], axis=1).tolist()
        return {"one_step": one, "two_step": two}

    def _stops(self, trace: _Trace, t: int, changed, lowest: int, repeat, T: int) -> bool:
        """Whether the alternation ends after the 0-based iteration ``t`` (``trace.stop`` says
        why): the representatives did not change, ``patience`` iterations without a lower
        objective, an earlier representative set (first fitted at iteration ``repeat``) is
        back, the objective stalled (``stop="stall"``: ``patience``, by default 10, iterations
        without a lower one, checked after the cycle), or ``max_iter``."""
        if len(changed) == 0:
            trace.stop, trace.cycle_start, trace.cycle_length = "converged", t + 1, 1
            return True
        stalled = len(trace.mi_objective) - lowest
        if self.stop == "author" and self.patience is not None and stalled >= self.patience:
            trace.stop = "patience"
            return True
        if repeat is not None and self.detect_cycles:
            trace.stop, trace.cycle_start, trace.cycle_length = "cycle", repeat + 1, t + 1 - repeat
            return True
        if self.stop == "stall" and stalled >= (self.patience or 10):
            trace.stop = "stall"
            return True
        if t + 1 == T:
            trace.stop = "max_iter" if repeat is None else "cycle"
            return True
        return False

    def _kept(self, trace: _Trace, lowest: int, T: int, computed: int) -> int:
        """0-based computed iterate returned: the one iteration ``T`` stands for (beyond a
        cycle ``s .. t``, iterate ``s + (T - s) mod p``), or the lowest objective (also of a
        stalled fit)."""
        if trace.stop == "stall" or (self.keep == "best" and trace.stop != "converged"):
            return lowest - 1
        if trace.stop in ("converged", "cycle") and T > computed:
            s, p = trace.cycle_start - 1, trace.cycle_length
            return s + (T - 1 - s) % p
        return computed - 1

    def _iterate(self, kernel: RepresentativeKernel, Y, box, previous, S, bags, trace):
        """One pass of Alg. 4.1 over the representatives ``S``: the QP and its bias, the outputs
        of every training instance (Eqs. 4.9 / 4.12), the iterate's multi-instance objective
        ``1/2 ||w||^2 + C sum_I hinge(Y_I max f)`` and the re-selected representatives (``bags``:
        ``(starts, sizes, output floor)``). Returns ``(iterate, new representatives)``. SMO on
        cached rows runs compiled (:mod:`._mirsvm_qp`); the other solvers and the uncached
        kernel run here."""
        starts, sizes, floor = bags
        if self.qp_solver == "smo" and kernel.cached:
            return self._iterate_compiled(kernel, Y, box, previous, S, bags, trace)
        K = kernel.K
        sol = self._solve_qp(K, Y, box, previous if self.warm_start else None)
        trace.add_qp(sol)
        alpha = sol.alpha
        sv = alpha > 1e-8 * box
        b = self._bias(K, Y, alpha, sv, box)
        t0 = time.perf_counter()
        v = (alpha * Y)[sv]
        out = kernel.outputs(S, sv, v, b)
        hinge = np.maximum(0.0, 1.0 - Y * bag_max(out, starts))
        objective = float(0.5 * v @ K[np.ix_(sv, sv)] @ v + box * hinge.sum())
        trace.mi_objective.append(objective)
        scores = out * np.repeat(Y, sizes) if self.selection == "max_margin" else out
        if floor > 0.0:  # the author's rule: outputs this close to zero take no part
            scores = np.where(np.abs(out) <= floor, -np.inf, scores)
        S_new = bag_argmax(scores, starts, sizes)
        trace.kernel_seconds += time.perf_counter() - t0
        return _Iterate(S.copy(), sol, sv, b, objective), S_new

    def _iterate_compiled(self, kernel, Y, box, previous, S, bags, trace):
        """:meth:`_iterate` as two numba calls on the cached kernel rows: the QP (SMO from the
        previous ``alpha``) and the bias, outputs and re-selection."""
        starts, sizes, floor = bags
        t0 = time.perf_counter()
        n = len(S)
        warm = previous is not None and self.warm_start
        alpha = previous.alpha.copy() if warm else np.zeros(n)
        n_smo, gap, dual = kernel.solve_qp(S, Y, box, alpha, self.tol, max(10**7, 100 * n))
        t1 = time.perf_counter()
        # the intercept field holds MIRSVM's own bias (Eq. 4.13), not LIBSVM's
        sol = DualSolution(alpha, np.nan, dual, gap, n_smo, gap <= self.tol, "smo", t1 - t0)
        trace.add_qp(sol)
        sv, b, _, S_new, objective = kernel.reselect(
            Y, alpha, box, starts, sizes, free_only=self.bias_sv == "free",
            gram=self.bias_form == "gram", by_margin=self.selection == "max_margin", floor=floor,
        )  # fmt: skip
        sol.intercept = b
        trace.mi_objective.append(objective)
        trace.kernel_seconds += time.perf_counter() - t1
        return _Iterate(S.copy(), sol, sv, b, objective), S_new

    def _store_model(self, X, starts, Y, gamma, S, it: _Iterate) -> None:
        """The fitted attributes from the kept iterate, its support vectors taken at ``S``."""
        alpha, sv = it.solution.alpha, it.sv
        self._gamma = gamma
        self.representatives_ = (S - starts).astype(np.intp)
        self.support_ = np.flatnonzero(sv)
        self.support_vectors_ = X[S[sv]]
        self.dual_coef_ = (alpha * Y)[sv]
        self.intercept_ = float(it.b)
        self.n_support_ = np.array([np.sum(sv & (Y < 0)), np.sum(sv & (Y > 0))], dtype=np.int32)

    def _solve_qp(self, K, Y, box, previous: DualSolution | None) -> DualSolution:
        """The kernelised dual over the representatives (Eq. 4.10)."""
        if self.qp_solver != "libsvm":
            return solve_svm_dual(
                K, Y, box, warm_start=previous, tol=self.tol, method=self.qp_solver
            )
        from sklearn.svm import SVC

        t0 = time.perf_counter()
        svc = SVC(kernel="precomputed", C=box, tol=self.tol, shrinking=True).fit(K, Y)
        alpha = np.zeros(len(Y))
        alpha[svc.support_] = np.abs(svc.dual_coef_[0])
        np.minimum(alpha, box, out=alpha)
        v = alpha * Y
        obj = float(0.5 * v @ (K @ v) - alpha.sum())
        return DualSolution(
            alpha,
            float(svc.intercept_[0]),
            obj,
            0.0,
            int(svc.n_iter_[0]),
            True,
            "libsvm",
            time.perf_counter() - t0,
        )

    def _bias(self, K, Y, alpha, sv, box) -> float:
        """Eq. 4.13 (or Alg. 4.1 line 12 with ``bias_form="gram"``)."""
        use = sv
        if self.bias_sv == "free":
            free = sv & (alpha < box - 1e-8 * box)
            if free.any():
                use = free
        if not use.any():
            return 0.0
        if self.bias_form == "kernel":
            f = K[np.ix_(use, sv)] @ (alpha * Y)[sv]
        else:  # G_sv (alpha_sv * Y_sv) = Y_sv * (K_sv alpha_sv), over the bias set only
            f = Y[use] * (K[np.ix_(use, use)] @ alpha[use])
        return float(np.mean(Y[use] - f))

    def _instance_scores(self, X):
        """``f(x) = sum_I alpha_I Y_I K(x_{s_I}, x) + b`` (Eq. 4.12) of stacked instances."""
        return rbf_expansion(
            X, self.support_vectors_, self.dual_coef_, self.intercept_, self._gamma
        )
