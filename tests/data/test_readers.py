"""Every reader on small hand-written files, including the quirks of the benchmark files."""

from __future__ import annotations

import bz2
import gzip

import numpy as np
import pytest
import scipy.io

from svmlab.data.readers import (
    read_arff,
    read_csv,
    read_file,
    read_keel,
    read_libsvm,
    read_mat,
    read_mi_arff,
    read_mil_csv,
)
from svmlab.errors import DataFormatError, UnknownNameError


def write(tmp_path, name, text, *, crlf=False):
    path = tmp_path / name
    data = text.replace("\n", "\r\n") if crlf else text
    path.write_bytes(data.encode())
    return path


def gzipped(path, *, suffix=True):
    """A gzip copy of ``path`` (named ``*.gz``, or keeping the name when ``suffix`` is False)."""
    out = path.with_name(path.name + ".gz") if suffix else path.with_name("nosuffix_" + path.name)
    out.write_bytes(gzip.compress(path.read_bytes()))
    return out


def assert_same(a, b):
    np.testing.assert_array_equal(a.X, b.X)
    for attr in ("y", "Y", "bag_ids"):
        va, vb = getattr(a, attr), getattr(b, attr)
        assert (va is None) == (vb is None)
        if va is not None:
            np.testing.assert_array_equal(va, vb)
    assert a.task == b.task and a.feature_names == b.feature_names


# --------------------------------------------------------------------------- ARFF
WEATHER_ARFF = """% a comment
@relation weather
@attribute outlook {sunny, overcast, rainy}
@attribute temperature numeric
@attribute 'wind speed' real
@attribute play {no, yes}

@data
sunny,85,?,no
overcast,83,4.5,yes
?,70,3,yes
rainy,68,1,no
"""


def test_arff_classification_nominal_and_missing(tmp_path):
    ds = read_arff(write(tmp_path, "weather.arff", WEATHER_ARFF, crlf=True))
    assert ds.task == "binary" and ds.name == "weather"
    assert ds.feature_names == ("outlook", "temperature", "wind speed")
    np.testing.assert_array_equal(
        ds.X[:, 0], [0, 1, np.nan, 2]
    )  # codes in declaration order, ? -> NaN
    assert np.isnan(ds.X[0, 2])
    assert ds.y.tolist() == ["no", "yes", "yes", "no"]
    assert ds.meta["nominal_levels"] == {"outlook": ["sunny", "overcast", "rainy"]}


def test_arff_named_label_and_numeric_levels(tmp_path):
    text = (
        "@relation r\n@attribute Type {1,2,3,5}\n@attribute x numeric\n@data\n1,0.5\n5,0.25\n3,1\n"
    )
    ds = read_arff(write(tmp_path, "glass.arff", text), label="Type")
    assert ds.y.tolist() == [1, 5, 3] and ds.y.dtype == np.int64  # numeric levels become numbers
    assert ds.task == "multiclass" and ds.feature_names == ("x",)


MTR_ARFF = """@relation flare
@attribute zurich {A,B,C}
@attribute activity {1,2}
@attribute area numeric
@attribute c-class numeric
@attribute m-class numeric
@data
C, 2, 0.5, 1, 0
A, 1, 0.25, ?, 2
B, 1, 1.0, 0, 0
"""


def test_arff_multitarget_last_k_attributes(tmp_path):
    ds = read_arff(write(tmp_path, "sf.arff", MTR_ARFF), n_targets=2)
    assert ds.task == "multitarget" and ds.y is None
    assert ds.target_names == ("c-class", "m-class")
    np.testing.assert_array_equal(
        ds.X[:, :2], [[2, 1], [0, 0], [1, 0]]
    )  # letter and digit levels encoded
    assert np.isnan(ds.Y[1, 0]) and ds.Y[1, 1] == 2


def test_arff_stream_task_override(tmp_path):
    ds = read_arff(write(tmp_path, "w.arff", WEATHER_ARFF), task="stream")
    assert ds.task == "stream"


@pytest.mark.parametrize(
    "data_line, message",
    [("sunny,abc,1,no", "abc"), ("sunny,85,1,maybe", "maybe")],
)
def test_arff_bad_value_names_file_and_line(tmp_path, data_line, message):
    text = WEATHER_ARFF.replace("rainy,68,1,no", data_line)
    path = write(tmp_path, "bad.arff", text)
    with pytest.raises(DataFormatError) as err:
        read_arff(path)
    assert err.value.line == 12 and str(path) in str(err.value)


TORGO_ARFF = """@relation delta
@attribute RollRate real
@attribute 'Sex' {M,F}
@attribute Sa real

@data
-0.0020 M 0.015
% a comment row
0.0031	F   -0.0001
-0.0010 ? 0.0025
"""


def test_arff_space_separated_regression(tmp_path):
    path = write(tmp_path, "delta.arff", TORGO_ARFF)
    ds = read_arff(path, space_separated=True, task="regression")
    assert ds.task == "regression" and ds.feature_names == ("RollRate", "Sex")
    assert ds.y.dtype == np.float64 and ds.y.tolist() == [0.015, -0.0001, 0.0025]
    np.testing.assert_array_equal(ds.X[:2], [[-0.002, 0], [0.0031, 1]])
    assert np.isnan(ds.X[2, 1])
    with pytest.raises(DataFormatError):  # without the option the rows are one value each
        read_arff(path)


def test_arff_regression_missing_target(tmp_path):
    path = write(tmp_path, "m.arff", TORGO_ARFF.replace("0.0025", "?"))
    with pytest.raises(DataFormatError, match="missing target value for 'Sa'") as err:
        read_arff(path, space_separated=True, task="regression")
    assert err.value.line == 10


def test_arff_missing_class_value(tmp_path):
    path = write(
        tmp_path, "w.arff", WEATHER_ARFF.replace("overcast,83,4.5,yes", "overcast,83,4.5,?")
    )
    with pytest.raises(DataFormatError, match="missing class") as err:
        read_arff(path)
    assert err.value.line == 10


# --------------------------------------------------------------------------- MI-ARFF
MI_ARFF = """@relation toy
@attribute bag_id {b1,b2,b3}

@attribute bag relational
  @attribute f1 numeric
  @attribute f2 numeric
@end bag
@attribute class {0,1}

@data
b1,"1,2\\n3,4",1
b2,'5,6,\\n7,8,',0,{3}
b3,"9,?",1
"""


def test_mi_arff_quirks(tmp_path):
    ds = read_mi_arff(write(tmp_path, "toy.arff", MI_ARFF, crlf=True))
    assert ds.task == "multi_instance" and ds.n_bags == 3 and ds.n_instances == 5
    assert ds.feature_names == ("f1", "f2")
    np.testing.assert_array_equal(ds.bag_ids, [0, 0, 1, 1, 2])
    np.testing.assert_array_equal(
        ds.X[:4], [[1, 2], [3, 4], [5, 6], [7, 8]]
    )  # trailing commas dropped
    assert ds.X[4, 0] == 9 and np.isnan(ds.X[4, 1])  # single-instance bag with a missing value
    assert ds.y.tolist() == [1, 0, 1]
    assert ds.meta["bag_names"] == ["b1", "b2", "b3"]
    np.testing.assert_array_equal(ds.meta["bag_weights"], [1.0, 3.0, 1.0])


def test_mi_arff_without_weights_has_no_bag_weights(tmp_path):
    ds = read_mi_arff(write(tmp_path, "toy.arff", MI_ARFF.replace(",{3}", "")))
    assert "bag_weights" not in ds.meta


def test_mi_arff_nominal_instance_attribute(tmp_path):
    text = MI_ARFF.replace("@attribute f2 numeric", "@attribute f2 {x,y}").replace(
        "1,2\\n3,4", "1,y\\n3,x"
    )
    text = text.replace("5,6,\\n7,8,", "5,x,\\n7,y,").replace("9,?", "9,y")
    ds = read_mi_arff(write(tmp_path, "nom.arff", text))
    np.testing.assert_array_equal(ds.X[:, 1], [1, 0, 0, 1, 1])


@pytest.mark.parametrize(
    "bad_line, match",
    [
        ('b2,"5,6\\n7",0', "expected 2 values, found 1"),
        ('b2,"5,6\\n7,8,9",0', "expected 2 values, found 3"),
        ('b2,"5,6\\n7,x",0', "non-numeric value 'x'"),
        ('b2,"5,6\\n7,8,0', "unterminated quote"),
        ("b2,5,6,0", "must be quoted"),
        ('b2,"5,6",2', "class value '2'"),
    ],
)
def test_mi_arff_malformed_line(tmp_path, bad_line, match):
    path = write(tmp_path, "bad.arff", MI_ARFF.replace("b2,'5,6,\\n7,8,',0,{3}", bad_line))
    with pytest.raises(DataFormatError, match=match) as err:
        read_mi_arff(path)
    assert err.value.line == 12 and str(path) in str(err.value)


def test_mi_arff_header_errors(tmp_path):
    with pytest.raises(DataFormatError, match="three top-level attributes"):
        read_mi_arff(write(tmp_path, "a.arff", MI_ARFF.replace("@attribute class {0,1}\n", "")))
    with pytest.raises(DataFormatError, match="not closed"):
        read_mi_arff(write(tmp_path, "b.arff", MI_ARFF.replace("@end bag\n", "")))


# --------------------------------------------------------------------------- mil CSV
MIL_CSV = "1,7,0.5,1.5\n1,7,2.5,3.5\n0,3,4.5,5.5\n1,9,6.5,7.5\n0,3,8.5,9.5\n"


def test_mil_csv_layout(tmp_path):
    ds = read_mil_csv(write(tmp_path, "toy.csv", MIL_CSV, crlf=True))
    assert ds.n_bags == 3 and ds.n_instances == 5 and ds.n_features == 2
    np.testing.assert_array_equal(ds.bag_ids, [0, 0, 1, 2, 1])  # numbered by first appearance
    assert ds.y.tolist() == [1, 0, 1]
    assert ds.meta["bag_names"] == ["7", "3", "9"]
    np.testing.assert_array_equal(ds.bags[1], [[4.5, 5.5], [8.5, 9.5]])


def test_mil_csv_inconsistent_bag_label(tmp_path):
    path = write(tmp_path, "bad.csv", MIL_CSV.replace("0,3,8.5", "1,3,8.5"))
    with pytest.raises(DataFormatError, match="bag '3'") as err:
        read_mil_csv(path)
    assert err.value.line == 5


def test_mil_csv_wrong_field_count(tmp_path):
    path = write(tmp_path, "bad.csv", MIL_CSV.replace("1,9,6.5,7.5", "1,9,6.5"), crlf=True)
    with pytest.raises(DataFormatError, match="expected 4 comma-separated fields, found 3") as err:
        read_mil_csv(path)
    assert err.value.line == 4


# --------------------------------------------------------------------------- KEEL
KEEL = "5.1, 3.5, red, bus \n4.9, 3.0, blue, van \n6.2, 2.9, red, saab\n\n5.9, 3.0, green, van \n"


def test_keel_separator_nominal_and_label_padding(tmp_path):
    ds = read_keel(write(tmp_path, "vehicle.dat", KEEL))
    assert ds.n_instances == 4 and ds.feature_names == ("x0", "x1", "x2")
    assert ds.y.tolist() == ["bus", "van", "saab", "van"]  # padding stripped
    np.testing.assert_array_equal(ds.X[:, 2], [2, 0, 2, 1])  # sorted levels: blue, green, red
    assert ds.meta["nominal_levels"] == {"x2": ["blue", "green", "red"]}
    assert ds.task == "multiclass"


def test_keel_wrong_field_count_names_line(tmp_path):
    path = write(tmp_path, "bad.dat", KEEL.replace("5.9, 3.0, green, van", "5.9, 3.0, van"))
    with pytest.raises(DataFormatError) as err:
        read_keel(path)
    assert err.value.line == 5 and "found 3" in str(err.value)


def test_keel_non_numeric_value_in_numeric_column(tmp_path):
    text = "1.0, 2.0, a\n3.0, 4.0, b\n5.0, oops, a\n7.0, 8.0, b\n"
    with pytest.raises(DataFormatError, match="non-numeric value 'oops'") as err:
        read_keel(write(tmp_path, "bad.dat", text))
    assert err.value.line == 3


# --------------------------------------------------------------------------- CSV
CSV = "Id,a,b,class\n10,1.5,x,pos\n11,,y,neg\n12,2.5,?,pos\n"


def test_csv_header_label_last_and_missing(tmp_path):
    ds = read_csv(write(tmp_path, "t.csv", CSV), drop_columns=["Id"])
    assert ds.feature_names == ("a", "b") and ds.y.tolist() == ["pos", "neg", "pos"]
    assert np.isnan(ds.X[1, 0]) and np.isnan(ds.X[2, 1])
    assert ds.X[0, 1] == 0 and ds.X[1, 1] == 1


def test_csv_named_label_stream_and_regression(tmp_path):
    text = "target,f1,f2\n1,0.1,0.2\n0,0.3,0.4\n1,0.5,0.6\n"
    path = write(tmp_path, "s.csv", text)
    ds = read_csv(path, label="target", task="stream")
    assert ds.task == "stream" and ds.feature_names == ("f1", "f2") and ds.y.tolist() == [1, 0, 1]
    reg = read_csv(path, label="f2", task="regression")
    assert reg.task == "regression" and reg.y.dtype == np.float64


def test_csv_errors(tmp_path):
    with pytest.raises(DataFormatError, match="no column 'nope'"):
        read_csv(write(tmp_path, "a.csv", CSV), label="nope")
    with pytest.raises(DataFormatError) as err:
        read_csv(write(tmp_path, "b.csv", CSV + "13,1.0,x,pos,extra\n"))
    assert err.value.line == 5
    with pytest.raises(DataFormatError, match="non-numeric value 'abc'") as err:
        read_csv(write(tmp_path, "c.csv", "a,class\n1,x\n2,y\nabc,x\n"))
    assert err.value.line == 4
    with pytest.raises(DataFormatError, match="missing label") as err:
        read_csv(write(tmp_path, "d.csv", "a,class\n1,x\n2,\n"))
    assert err.value.line == 3


def test_csv_without_header_label_by_position(tmp_path):
    text = "2,30,?,1\n1,50,1.5,2\n2,78,0.5,1\n"  # hepatitis: the class is the first column
    ds = read_csv(write(tmp_path, "h.data", text), header=False, label="0")
    assert ds.feature_names == ("1", "2", "3") and ds.y.tolist() == [2, 1, 2]
    assert np.isnan(ds.X[0, 1]) and ds.X[1, 2] == 2
    last = read_csv(write(tmp_path, "w.csv", "7.4,0.7,5\n7.8,0.88,6\n"), header=False)
    assert last.y.tolist() == [5, 6] and last.n_features == 2 and last.n_instances == 2


def test_csv_r_row_names_are_dropped(tmp_path):
    text = '"","sp","sex","FL"\n"1","B","M",8.1\n"2","O","F",8.8\n"3","B","F",9.2\n'
    ds = read_csv(write(tmp_path, "crabs.csv", text), row_names=True, label="sp")
    assert ds.feature_names == ("sex", "FL") and ds.y.tolist() == ["B", "O", "B"]
    np.testing.assert_array_equal(ds.X, [[1, 8.1], [0, 8.8], [0, 9.2]])
    assert ds.meta["row_names_dropped"]
    reg = read_csv(
        write(tmp_path, "m.csv", '"","times","accel"\n"1",2.4,0\n"2",2.6,-1.3\n'),
        row_names=True,
        task="regression",
    )
    assert reg.feature_names == ("times",) and reg.y.tolist() == [0.0, -1.3]


def test_csv_quoted_fields(tmp_path):
    ds = read_csv(write(tmp_path, "q.csv", 'a,class\n1,"grey, soil"\n2,red soil\n'))
    assert ds.y.tolist() == ["grey, soil", "red soil"]


# --------------------------------------------------------------------------- LIBSVM
LIBSVM = "+1 1:0.5 3:1.5\n-1 2:2.0\n+1 1:1 2:1 5:-1 # comment\n"


def test_libsvm_features_and_labels(tmp_path):
    ds = read_libsvm(write(tmp_path, "toy", LIBSVM))
    assert ds.n_features == 5  # highest index present
    assert ds.y.tolist() == [1, -1, 1] and ds.y.dtype == np.int64
    np.testing.assert_array_equal(ds.X[0], [0.5, 0, 1.5, 0, 0])


def test_libsvm_zero_based_bzip2(tmp_path):
    """adult as tick re-packaged it: 0-based indices, bzip2-compressed."""
    path = tmp_path / "adult.trn.bz2"
    path.write_bytes(bz2.compress(b"-1 0:1 3:1\n1 2:1\n"))
    ds = read_libsvm(path, zero_based=True)
    assert ds.name == "adult" and ds.y.tolist() == [-1, 1]
    np.testing.assert_array_equal(ds.X, [[1, 0, 0, 1], [0, 0, 1, 0]])


def test_libsvm_malformed_line(tmp_path):
    path = write(tmp_path, "bad", LIBSVM.replace("-1 2:2.0", "-1 2:two"))
    with pytest.raises(DataFormatError, match="2:two") as err:
        read_libsvm(path)
    assert err.value.line == 2


# --------------------------------------------------------------------------- MAT
def test_mat_samples_as_columns_with_predefined_split(tmp_path):
    path = tmp_path / "digits.mat"
    train = np.arange(12, dtype=float).reshape(3, 4)  # 3 features x 4 samples
    test = np.arange(6, dtype=float).reshape(3, 2)
    scipy.io.savemat(
        path,
        {"traindata": train, "trainlabel": [[1, 2, 1, 2]], "testdata": test, "testlabel": [[2, 1]]},
    )
    ds = read_mat(path)
    assert ds.X.shape == (6, 3) and ds.y.tolist() == [1, 2, 1, 2, 2, 1]
    np.testing.assert_array_equal(ds.X[:4], train.T)
    split = ds.meta["predefined_split"]
    assert split["train"].tolist() == [0, 1, 2, 3] and split["test"].tolist() == [4, 5]


def test_mat_missing_variable(tmp_path):
    path = tmp_path / "x.mat"
    scipy.io.savemat(path, {"traindata": np.ones((2, 2))})
    with pytest.raises(DataFormatError, match="no variable 'trainlabel'"):
        read_mat(path)


# --------------------------------------------------------------------------- gzip variants
CASES = [
    ("weather.arff", WEATHER_ARFF, read_arff),
    ("toy_mi.arff", MI_ARFF, read_mi_arff),
    ("toy_mil.csv", MIL_CSV, read_mil_csv),
    ("keel.dat", KEEL, read_keel),
    ("t.csv", CSV, read_csv),
    ("toy_svm", LIBSVM, read_libsvm),
]


@pytest.mark.parametrize("name, text, reader", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("suffix", [True, False], ids=["gz-suffix", "gzip-magic"])
def test_gzip_variants_read_the_same(tmp_path, name, text, reader, suffix):
    plain = write(tmp_path, name, text)
    packed = gzipped(plain, suffix=suffix)
    assert_same(reader(plain), reader(packed))


def test_gzip_variant_of_mat(tmp_path):
    path = tmp_path / "d.mat"
    scipy.io.savemat(
        path,
        {
            "traindata": np.ones((2, 3)),
            "trainlabel": [[1, 2, 1]],
            "testdata": np.zeros((2, 1)),
            "testlabel": [[2]],
        },
    )
    assert_same(read_mat(path), read_mat(gzipped(path)))


@pytest.mark.parametrize("name, text, reader", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("suffix", [True, False], ids=["bz2-suffix", "bzip2-magic"])
def test_bzip2_variants_read_the_same(tmp_path, name, text, reader, suffix):
    plain = write(tmp_path, name, text)
    packed = plain.with_name(plain.name + ".bz2" if suffix else "nosuffix_" + plain.name)
    packed.write_bytes(bz2.compress(plain.read_bytes()))
    assert_same(reader(plain), reader(packed))


def test_bz2_suffix_without_bzip2_content_and_corrupt_bzip2(tmp_path):
    with pytest.raises(DataFormatError, match="not bzip2"):
        read_keel(write(tmp_path, "x.dat.bz2", KEEL))
    path = tmp_path / "k.dat.bz2"
    path.write_bytes(bz2.compress(KEEL.encode())[:30])
    with pytest.raises(DataFormatError, match="corrupt bzip2"):
        read_keel(path)


def test_gz_suffix_without_gzip_content(tmp_path):
    with pytest.raises(DataFormatError, match="not gzip"):
        read_keel(write(tmp_path, "x.dat.gz", KEEL))


def test_corrupt_gzip(tmp_path):
    path = gzipped(write(tmp_path, "k.dat", KEEL))
    path.write_bytes(path.read_bytes()[:20])
    with pytest.raises(DataFormatError, match="corrupt gzip"):
        read_keel(path)


def test_read_file_dispatch(tmp_path):
    path = write(tmp_path, "k.dat", KEEL)
    assert_same(read_file(path, "keel-dat"), read_keel(path))
    with pytest.raises(UnknownNameError, match="file format"):
        read_file(path, "xlsx")
