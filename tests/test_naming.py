"""Names that explain themselves: config files named as their ``name:``, one meaning of
"solver", no estimator with both ``C`` and ``c``, one spelling of the evolutionary search
settings, one meaning of the kernel widths ``gamma`` and ``sigma`` (docs/decisions/naming.md),
MIL helpers only from the helper module."""

import ast
import importlib
from pathlib import Path

import numpy as np
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
CONF = ROOT / "conf"
GROUPS = ("dataset", "solver", "protocol", "runner", "experiment")


def _configs(group):
    return sorted((CONF / group).glob("*.yaml"))


@pytest.mark.parametrize("group", GROUPS)
def test_config_file_name_is_its_name(group):
    wrong = {}
    for path in _configs(group):
        name = (yaml.safe_load(path.read_text()) or {}).get("name")
        if name != path.stem:
            wrong[path.name] = name
    assert not wrong, f"conf/{group}: file names differ from their name: {wrong}"


def _solver_classes():
    seen = {}
    for path in _configs("solver"):
        target = yaml.safe_load(path.read_text())["_target_"]
        if target.startswith("svmlab."):
            module, _, cls = target.rpartition(".")
            seen[target] = getattr(importlib.import_module(module), cls)
    return seen


def test_estimator_parameters_say_what_they_are():
    for target, cls in _solver_classes().items():
        params = set(cls().get_params(deep=False))
        assert not {"C", "c"} <= params, f"{target} has both C and c"
        # "solver" is the config group; an estimator's inner QP solver is qp_solver
        assert "solver" not in params, f"{target}: call its QP-solver option qp_solver"


def test_mil_estimators_import_shared_code_from_the_helper_module_only():
    mil = ROOT / "svmlab" / "estimators" / "mil"
    for path in sorted(mil.glob("*.py")):
        if path.name in ("__init__.py", "_bags.py"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                "svmlab.estimators.mil."
            ):
                if node.module == "svmlab.estimators.mil._bags":
                    continue
                # an estimator may build on another estimator class, never on its helpers
                for alias in node.names:
                    assert alias.name[0].isupper() and not alias.name.startswith("_"), (
                        f"{path.name} imports {alias.name} from {node.module}; shared helpers "
                        "belong in svmlab/estimators/mil/_bags.py"
                    )


#: Spellings of the evolutionary search settings that svmlab no longer uses, and the one name
#: that replaced each (docs/decisions/naming.md, "Evolutionary searches").
RETIRED_SEARCH_NAMES = {
    "pop_size": "population_size",
    "max_gen": "max_generations",
    "generations": "max_generations",
    "p_cx": "crossover_rate",
    "p_crossover": "crossover_rate",
    "p_mutation": "mutation_rate or gene_mutation_rate",
    "locus_rate": "gene_mutation_rate",
    "width_convention": "gamma (or sigma)",
}


def test_search_settings_have_one_spelling():
    import inspect

    import svmlab.nsga2
    import svmlab.selection.mo_search

    for name, cls in _all_estimator_classes().items():
        params = set(inspect.signature(cls.__init__).parameters)
        old = sorted(params & set(RETIRED_SEARCH_NAMES))
        assert not old, f"{name}: {old[0]} is spelled {RETIRED_SEARCH_NAMES[old[0]]}"
    for fn in (svmlab.nsga2.run_nsga2, svmlab.selection.mo_search.search_masks):
        assert not set(inspect.signature(fn).parameters) & set(RETIRED_SEARCH_NAMES)


# -- kernel width: one meaning per name (docs/decisions/naming.md) ---------------------------------

#: The Gaussian helpers of svmlab.kernels that take the precision ``gamma``.
GAUSSIAN_HELPERS = ("rbf", "rbf_blocks", "rbf_expansion")
#: The helpers that take a kernel by name (``"rbf"`` with a ``gamma`` keyword).
NAMED_HELPERS = ("kernel_matrix", "kernel_blocks", "kernel_expansion", "kernel_diagonal")
GAMMA, SIGMA = 0.37, 1.3
#: Estimators whose Gaussian kernel does not go through svmlab.kernels, and how their
#: parameter is checked instead.
OWN_KERNEL = {
    # their numba kernel cache computes exp(-gamma d^2) itself: the scaling check below
    "MNSVMClassifier": "scaling",
    "NNISDAClassifier": "scaling",
    # Weka computes the kernel; its RBF is exp(-G d^2) and sigma must arrive as G = 1/(2 sigma^2)
    "WekaMIClassifier": "weka_options",
    # smo="weka" sums the Gaussian in Weka's order (estimators/weka/mi_kernels.py): its bag
    # kernel must equal smo="svmlab"'s, which goes through svmlab.kernels
    "SetKernelSVC": "svmlab_smo",
}


def _all_estimator_classes():
    """Every public, concrete estimator class defined in svmlab, by name."""
    import inspect
    import pkgutil

    from sklearn.base import BaseEstimator

    import svmlab

    found = {}
    for info in pkgutil.walk_packages(svmlab.__path__, "svmlab."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for name, cls in inspect.getmembers(module, inspect.isclass):
            if (
                issubclass(cls, BaseEstimator)
                and cls.__module__ == module.__name__
                and not name.startswith("_")
                and not inspect.isabstract(cls)
            ):
                found[name] = cls
    return found


def _width_classes():
    import inspect

    return {
        name: cls
        for name, cls in _all_estimator_classes().items()
        if {"gamma", "sigma"} & set(inspect.signature(cls.__init__).parameters)
    }


WIDTH_CLASSES = _width_classes()


def test_the_gaussian_helpers_have_the_stated_meaning():
    from svmlab.kernels import gamma_from_sigma, kernel_matrix, rbf

    rng = np.random.default_rng(0)
    A, B = rng.normal(size=(5, 3)), rng.normal(size=(4, 3))
    D = ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1)
    np.testing.assert_allclose(rbf(A, B, GAMMA), np.exp(-GAMMA * D), rtol=1e-12)
    np.testing.assert_allclose(kernel_matrix("rbf", A, B, gamma=GAMMA), np.exp(-GAMMA * D))
    K_sigma = rbf(A, B, gamma_from_sigma(SIGMA))
    np.testing.assert_allclose(K_sigma, np.exp(-D / (2 * SIGMA**2)), rtol=1e-12)


def test_every_width_parameter_is_found():
    """The discovery below sees the families that have a Gaussian width."""
    assert {"EvoSVMClassifier", "LSSVMClassifier", "MIRSVMClassifier", "OLLAWVClassifier"} <= set(
        WIDTH_CLASSES
    )
    assert len(WIDTH_CLASSES) >= 20


def _data(cls):
    from sklearn.datasets import make_blobs

    from svmlab.contract import contract_of

    contract = contract_of(cls)
    X, y = make_blobs(40, centers=2, cluster_std=2.0, random_state=0)
    if contract.input == "bags":
        rng = np.random.default_rng(0)
        bags = [rng.normal(size=(3, 2)) + 2.0 * (i % 2) for i in range(20)]
        return bags, np.arange(20) % 2, lambda bags, f: [b * f for b in bags]
    if contract.transductive:
        y = y.copy()
        y[::2] = -1
    from sklearn.base import is_regressor

    if is_regressor(cls()):
        y = X[:, 0] + 0.5 * X[:, 1]
    return X, y, lambda X, f: X * f


def _build(cls, **width):
    import inspect

    params = set(inspect.signature(cls.__init__).parameters)
    extra = {"kernel": "rbf"} if "kernel" in params else {}
    if "tune" in params:  # DS-OLLAWV: the given gamma, not its tuning grid
        extra["tune"] = False
    if "sigma" in params and "gamma" in params and "sigma" not in width:
        extra["sigma"] = 1.0  # ignored when gamma is given
    return cls(**extra, **width)


def _fit_predict(est, X, y):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X, y)
        out = est.decision_function(X) if hasattr(est, "decision_function") else None
        return np.asarray(est.predict(X)), out


def _recorded_precisions(monkeypatch, est, X, y) -> set:
    """The precisions ``est`` passes to svmlab.kernels' Gaussian helpers while it fits and
    predicts (every svmlab module's reference to a helper is wrapped)."""
    import inspect
    import sys

    import svmlab.kernels as kernels

    seen = []

    def wrap(name, fn):
        signature = inspect.signature(fn)

        def spy(*args, **kwargs):
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            a = bound.arguments
            if name in GAUSSIAN_HELPERS:
                seen.append(float(a["gamma"]))
            elif a["name"] == "rbf":
                seen.append(float(a["params"].get("gamma", 1.0)))
            return fn(*args, **kwargs)

        spy.__wrapped_helper__ = fn
        return spy

    originals = {n: kernels.__dict__[n] for n in GAUSSIAN_HELPERS + NAMED_HELPERS}
    originals = {n: getattr(fn, "__wrapped_helper__", fn) for n, fn in originals.items()}
    for module_name, module in list(sys.modules.items()):
        if module_name.startswith("svmlab"):
            for name, fn in originals.items():
                current = getattr(module, name, None)
                if getattr(current, "__wrapped_helper__", current) is fn:
                    monkeypatch.setattr(module, name, wrap(name, fn))
    _fit_predict(est, X, y)
    return set(seen)


@pytest.mark.parametrize("name", sorted(WIDTH_CLASSES))
def test_gamma_and_sigma_keep_their_one_meaning(name, monkeypatch):
    """``gamma``: K = exp(-gamma ||x - z||^2); ``sigma``: K = exp(-||x - z||^2 / (2 sigma^2)).

    Every estimator class of svmlab with a ``gamma`` or ``sigma`` parameter is fitted on small
    data of its input kind with a known value, and the precision that reaches svmlab.kernels'
    Gaussian helpers (whose meaning the test above fixes) must be ``gamma``, or
    ``1 / (2 sigma^2)``. An estimator with its own kernel code is listed in ``OWN_KERNEL`` and
    checked another way: scaling the inputs by 1/2 and ``gamma`` by 4 must give the identical
    model (the kernel depends on ``gamma ||x - z||^2`` only), or, for Weka, the option it
    passes."""
    import inspect

    cls = WIDTH_CLASSES[name]
    params = set(inspect.signature(cls.__init__).parameters)
    X, y, scale = _data(cls)
    how = OWN_KERNEL.get(name, "svmlab.kernels")
    if how == "weka_options":
        from svmlab.estimators.mil.weka import RBF_KERNELS

        est = cls(classname=sorted(RBF_KERNELS)[0], sigma=SIGMA)
        assert f"-G {1.0 / (2.0 * SIGMA**2)!r}" in " ".join(est._weka_args())
        return
    if how == "svmlab_smo":
        widths = [({"gamma": GAMMA}, GAMMA), ({"sigma": SIGMA, "gamma": None}, 0.5 / SIGMA**2)]
        for width, precision in widths:
            ours = _build(cls, **width).fit(X, y).bag_kernel(X)
            reference = _build(cls, **width, smo="svmlab")
            got = _recorded_precisions(monkeypatch, reference, X, y)
            assert got == {precision}, f"{name}({width}) computed the Gaussian with {got}"
            np.testing.assert_allclose(ours, reference.bag_kernel(X), rtol=1e-12)
        return
    if how == "scaling":
        pred, dec = _fit_predict(_build(cls, gamma=GAMMA), X, y)
        pred_s, dec_s = _fit_predict(_build(cls, gamma=4 * GAMMA), scale(X, 0.5), y)
        np.testing.assert_array_equal(pred, pred_s)
        if dec is not None:
            np.testing.assert_allclose(dec, dec_s, rtol=1e-9, atol=1e-12)
        return
    if "gamma" in params:
        got = _recorded_precisions(monkeypatch, _build(cls, gamma=GAMMA), X, y)
        assert got == {GAMMA}, f"{name}(gamma={GAMMA}) computed the Gaussian with {got}"
    if "sigma" in params:
        width = {"sigma": SIGMA, **({"gamma": None} if "gamma" in params else {})}
        got = _recorded_precisions(monkeypatch, _build(cls, **width), X, y)
        expected = 1.0 / (2.0 * SIGMA**2)
        assert got == {expected}, f"{name}(sigma={SIGMA}) computed the Gaussian with {got}"
