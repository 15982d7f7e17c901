"""`svmlab stats` input checks: missing markers, duplicates, levels and delimiters
(statistics issue, item 6)."""

import pytest

from svmlab.cli import main
from svmlab.errors import StatsInputError
from svmlab.stats.compare import clean_table, compare, read_table

ROWS = [("d1", 0.9, 0.8, 0.7), ("d2", 0.85, 0.8, 0.6), ("d3", 0.7, 0.75, 0.65)]


def _write(tmp_path, text, name="t.csv"):
    path = tmp_path / name
    path.write_text(text)
    return path


def _csv(sep=",", header=("dataset", "A", "B", "C"), rows=ROWS):
    lines = [sep.join(header)] + [sep.join(str(v) for v in row) for row in rows]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("sep", [",", ";", "\t", "|"])
def test_the_delimiter_is_sniffed(tmp_path, sep):
    table = read_table(_write(tmp_path, _csv(sep)))
    assert list(table.columns) == ["A", "B", "C"] and list(table.index) == ["d1", "d2", "d3"]
    assert float(table.at["d2", "C"]) == 0.6


def test_semicolon_csv_with_decimal_points_ranks_like_the_comma_one(tmp_path):
    a = compare(read_table(_write(tmp_path, _csv(";"), "a.csv")))
    b = compare(read_table(_write(tmp_path, _csv(","), "b.csv")))
    assert a.average_ranks.equals(b.average_ranks)


@pytest.mark.parametrize("marker", ["nan", "NaN", "NA", "?", "-", ""])
def test_missing_markers_are_missing_cells_honoured_by_drop(tmp_path, marker):
    rows = [*ROWS, ("d4", 0.5, marker, 0.4)]
    table = read_table(_write(tmp_path, _csv(rows=rows)))
    values, dropped = clean_table(table, missing="drop")
    assert dropped == ["d4"] and list(values.index) == ["d1", "d2", "d3"]
    with pytest.raises(StatsInputError, match="1 missing cell"):
        clean_table(table, missing="error")


def test_a_duplicated_method_column_is_an_error_not_renamed(tmp_path):
    path = _write(tmp_path, _csv(header=("dataset", "A", "B", "A")))
    with pytest.raises(StatsInputError, match=r"method column\(s\) A appear more than once"):
        read_table(path)


def test_a_duplicated_dataset_row_is_an_error(tmp_path):
    path = _write(tmp_path, _csv(rows=[*ROWS, ("d2", 0.1, 0.2, 0.3)]))
    with pytest.raises(StatsInputError, match=r"dataset\(s\) d2 appear in more than one row"):
        read_table(path)


def test_a_tidy_file_with_a_repeated_pair_is_one_line(tmp_path, capsys):
    text = "dataset,method,value\nd1,A,0.9\nd1,B,0.8\nd2,A,0.7\nd2,B,0.6\nd1,A,0.5\n"
    path = _write(tmp_path, text)
    assert main(["stats", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert "dataset 'd1', method 'A' has 2 rows" in err


@pytest.mark.parametrize("alpha", ["0", "1", "1.5", "-0.1"])
def test_alpha_outside_zero_one_is_an_error(tmp_path, capsys, alpha):
    path = _write(tmp_path, _csv())
    with pytest.raises(SystemExit) as exit_:  # refused by the parser, before the table is read
        main(["stats", str(path), "--alpha", alpha])
    assert exit_.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "is not a significance level" in err
