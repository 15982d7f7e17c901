"""The bad-input catalogue of ``svmlab report``, ``stats``, ``reproduce``, ``data``, ``list`` and
of ``svmlab`` itself (issue 34, item 3): every case is refused with one line (at most three)
naming the value and what is accepted, exit status 2, no traceback and nothing written.

``report`` and ``stats`` share their statistics options, so a value one refuses the other
refuses the same way (:func:`test_report_and_stats_refuse_the_same_statistics_options`).
"""

from __future__ import annotations

import shutil

import pytest
from test_bad_input import _fake_run, assert_refused, cases

LONG = "a" * 300  # over the 255 bytes a name may have on most file systems

#: Statistics options of both ``report`` and ``stats``: (words, words the error must hold).
STATS_OPTIONS = [
    ("--alpha 2", ["--alpha: 2 is not a significance level", "0 < level < 1"]),
    ("--alpha 1", ["--alpha: 1 is not"]),
    ("--alpha 0", ["--alpha: 0 is not"]),
    ("--alpha -0.05", ["--alpha: -0.05 is not"]),
    ("--alpha nan", ["--alpha: nan is not"]),
    ("--alpha inf", ["--alpha: inf is not"]),
    ("--alpha abc", ["--alpha: abc is not"]),
    ("--alpha", ["--alpha", "expected one argument"]),
    ("--bd-alpha 0", ["--bd-alpha: 0 is not a significance level"]),
    ("--bd-alpha 1.5", ["--bd-alpha: 1.5 is not"]),
    ("--bd-alpha abc", ["--bd-alpha: abc is not"]),
    ("--control nosuch", ["unknown method 'nosuch'", "Valid methods"]),
    ("--control", ["--control", "expected one argument"]),
    ("--omnibus nosuch", ["'nosuch'", "friedman"]),
    ("--pairwise nosuch", ["'nosuch'", "nemenyi"]),
    ("--pairwise holm nosuch", ["'nosuch'", "shaffer"]),
    ("--missing nosuch", ["'nosuch'", "'error', 'drop'"]),
    ("--wilcoxon nosuch", ["'nosuch'", "signed_rank"]),
    ("--zero-method nosuch", ["'nosuch'", "demsar"]),
    ("--figures nosuch", ["'nosuch'", "png"]),
    ("--figures png nosuch", ["'nosuch'", "svg"]),
    ("--format nosuch", ["'nosuch'", "markdown"]),
    ("-f nosuch", ["'nosuch'", "latex"]),
    ("--nosuch", ["--nosuch"]),
    ("-x", ["-x"]),
]

REPORT = [
    ("{run} --metric nosuch", ["metric 'nosuch'", "accuracy"]),
    ("{run} --metric accuracy nosuch", ["metric 'nosuch'"]),
    ("{run} --metric", ["--metric", "expected at least one argument"]),
    ("{run} -m", ["-m", "expected at least one argument"]),
    ("{run} --aggregate nosuch", ["'nosuch'", "'mean', 'pooled'"]),
    ("{run} --output {file}/out.md", ["--output {file}/out.md", "{file} is a file"]),
    ("{run} --output {tmp}", ["--output {tmp} is a directory"]),
    ("{run} -o {run}", ["--output {run} is a directory"]),
    ("{run} --figures-dir {file}", ["--figures-dir {file} is a file"]),
    ("{run} --figures-dir {file}/f", ["--figures-dir {file}/f", "{file} is a file"]),
    ("{tmp}/nosuch", ["{tmp}/nosuch does not exist"]),
    ("{file}", ["{file} is not a readable results Parquet file"]),
    ("{tmp}/empty", ["{tmp}/empty holds no svmlab run"]),
    ("", ["run_dir", "required"]),
    (f"{{tmp}}/{LONG}", ["argument run_dir", "300 bytes", "allows 255"]),
    (f"{{run}} --output {{tmp}}/{LONG}.md", ["argument --output/-o", "303 bytes"]),
    (f"{{run}} --figures-dir {{tmp}}/{LONG}", ["argument --figures-dir", "300 bytes"]),
] + [(f"{{run}} {words}", named) for words, named in STATS_OPTIONS]

STATS = [
    ("{tmp}/nosuch.csv", ["{tmp}/nosuch.csv does not exist"]),
    ("{tmp}/empty", ["{tmp}/empty", "cannot read as a table"]),
    ("{tmp}/tables/empty.csv", ["empty.csv", "cannot read as a table"]),
    ("{tmp}/tables/header.csv", ["a, b have no values"]),
    ("{tmp}/tables/text.csv", ["non-numeric value 'x'", "'d1'"]),
    ("{tmp}/tables/one.csv", ["at least 2 methods", "got 1"]),
    ("{tmp}/tables/holes.csv", ["d1/b", "--missing drop"]),
    ("{tmp}/tables/no_header.csv", ["no_header.csv", "header row"]),
    ("{tmp}/tables/fake.parquet", ["fake.parquet", "cannot read as a table"]),
    ("{tmp}/tables/twice.csv", ["method column(s) a appear more than once"]),
    ("{tmp}/tables/rows.csv", ["dataset(s) d1 appear in more than one row"]),
    ("{table} --metric-direction nosuch", ["'nosuch'", "'higher', 'lower'"]),
    ("{table} -d nosuch", ["'nosuch'", "'max', 'min'"]),
    ("{table} --output-dir {file}", ["--output-dir {file} is a file"]),
    ("{table} -o {file}/out", ["--output-dir {file}/out", "{file} is a file"]),
    ("{table} --name a/b", ["--name", "'a/b' cannot name files"]),
    ("{table} --name ../up", ["'../up' cannot name files"]),
    (["{table}", "--name", ""], ["'' cannot name files"]),
    ("{table} --name ..", ["'..' cannot name files"]),
    ("", ["table", "required"]),
    (f"{{tmp}}/{LONG}.csv", ["argument table", "304 bytes"]),
    (f"{{table}} --output-dir {{tmp}}/{LONG}", ["argument --output-dir/-o", "300 bytes"]),
    (f"{{table}} --name {LONG}", ["argument --name", "300 bytes", "at most 200"]),
] + [(f"{{table}} {words}", named) for words, named in STATS_OPTIONS]

REPRODUCE = [
    ("reproduce", ["needs a document", "melki2018"]),
    ("reproduce nosuch", ["unknown paper 'nosuch'", "Valid papers"]),
    ("reproduce melki", ["'melki'", "Did you mean melki2018"]),
    ("reproduce nosuch --list", ["unknown paper 'nosuch'"]),
    ("reproduce melki2018 --only nosuch --no-run", ["experiment 'nosuch'", "ollawv_bench"]),
    ("reproduce melki2018 --only ollawv_bench,nosuch --no-run", ["'nosuch'"]),
    ("reproduce melki2018 --only , --no-run", ["--only is empty", "mirsvm_bench"]),
    ("reproduce melki2018 --only quickstart --no-run", ["'quickstart'"]),
    ("reproduce melki2018 --only", ["--only", "expected one argument"]),
    ("reproduce melki2018 --no-run --out {file}", ["--out {file} is a file"]),
    ("reproduce melki2018 --no-run --out {file}/o", ["--out {file}/o", "{file} is a file"]),
    ("reproduce melki2018 --no-run --results-dir {file}", ["{file}/reproduce", "is a file"]),
    ("reproduce melki2018 --nosuch", ["--nosuch"]),
    (f"reproduce melki2018 --no-run --out {{tmp}}/{LONG}", ["argument --out", "300 bytes"]),
    (f"reproduce melki2018 --no-run --results-dir {{tmp}}/{LONG}", ["--results-dir", "300"]),
]

DATA_AND_LIST = [
    ("data", ["{list,info,verify,fetch}", "required"]),
    ("data nosuch", ["'nosuch'", "'list', 'info', 'verify', 'fetch'"]),
    ("data info", ["name", "required"]),
    ("data info nosuch", ["unknown dataset 'nosuch'", "Valid datasets"]),
    ("data info irs", ["'irs'", "Did you mean iris"]),
    (["data", "info", ""], ["unknown dataset ''"]),
    ("data verify nosuch", ["unknown dataset 'nosuch'"]),
    ("data verify iris nosuch", ["unknown dataset 'nosuch'"]),
    ("data fetch", ["takes one of NAME..., --experiment", "got nothing"]),
    ("data fetch iris --all", ["got NAME... and --all"]),
    ("data fetch --quick --experiment lssvm_bench", ["--quick", "--document PAPER"]),
    ("data fetch --experiment nosuch", ["unknown experiment 'nosuch'"]),
    ("data fetch --experiment ,", ["--experiment is empty"]),
    ("data fetch --document nosuch", ["unknown paper 'nosuch'"]),
    ("data fetch nosuch", ["nosuch", "not fetched"]),
    ("data fetch nosuch1 nosuch2", ["nosuch1", "nosuch2", "2 of 2 dataset(s) not fetched"]),
    ("data list extra", ["unrecognized arguments: extra"]),
    ("data --nosuch", ["{list,info,verify,fetch}", "required"]),
    ("list", ["what", "required"]),
    ("list nosuch", ["'nosuch'", "'datasets', 'solvers'"]),
    ("list dataset", ["'dataset'", "'datasets'"]),
    ("list DATASETS", ["'DATASETS'"]),
    ("list datasets extra", ["unrecognized arguments: extra"]),
    ("nosuch", ["'nosuch'", "'run', 'report', 'stats'"]),
    ("--nosuch", ["--nosuch"]),
    ("-x", ["-x"]),
]

TABLES = {
    "t.csv": "dataset,a,b,c\n"
    + "".join(f"d{i},0.{9 - i},0.{5 + i % 3},0.{4 + i}\n" for i in range(5)),
    "empty.csv": "",
    "header.csv": "dataset,a,b\n",
    "text.csv": "dataset,a,b\nd1,x,y\nd2,1,2\n",
    "one.csv": "dataset,a\nd1,1\nd2,2\n",
    "holes.csv": "dataset,a,b,c\nd1,1,,3\nd2,2,3,4\nd3,1,2,3\n",
    "no_header.csv": "d1,0.9,0.8,0.7\nd2,0.8,0.7,0.9\nd3,0.7,0.6,0.5\n",
    "fake.parquet": "PAR1 not a parquet file",
    "twice.csv": "dataset,a,a\nd1,1,2\nd2,2,3\n",
    "rows.csv": "dataset,a,b\nd1,1,2\nd1,2,3\n",
}


@pytest.fixture(scope="module")
def fake_run(tmp_path_factory):
    """A finished fake run, written once (the runner's writes are durable, so slow)."""
    run_dir = tmp_path_factory.mktemp("bad_input") / "run"
    _fake_run(run_dir)
    return run_dir


@pytest.fixture
def places(fake_run, tmp_path, monkeypatch):
    """A copy of the fake run, tables good and bad, a file and an empty directory in tmp_path
    (the working directory too, where ``stats`` would put its figures)."""
    monkeypatch.chdir(tmp_path)
    shutil.copytree(fake_run, tmp_path / "run")
    (tmp_path / "tables").mkdir()
    for name, text in TABLES.items():
        (tmp_path / "tables" / name).write_text(text)
    (tmp_path / "file").write_text("keep me")
    (tmp_path / "empty").mkdir()
    return {
        "tmp": str(tmp_path),
        "file": str(tmp_path / "file"),
        "run": str(tmp_path / "run"),
        "table": str(tmp_path / "tables" / "t.csv"),
    }


def _argv(words, places) -> list[str]:
    def placed(text):
        for name, value in places.items():
            text = text.replace(f"{{{name}}}", value)
        return text

    return [placed(w) for w in words] if isinstance(words, list) else placed(words).split()


@pytest.mark.parametrize(("words", "named"), cases(REPORT))
def test_report_refuses(words, named, places, tmp_path, capsys):
    named = [_argv([n], places)[0] for n in named]
    assert_refused(["report", *_argv(words, places)], named, tmp_path, capsys)


@pytest.mark.parametrize(("words", "named"), cases(STATS))
def test_stats_refuses(words, named, places, tmp_path, capsys):
    named = [_argv([n], places)[0] for n in named]
    assert_refused(["stats", *_argv(words, places)], named, tmp_path, capsys)


@pytest.mark.parametrize(("words", "named"), cases(REPRODUCE + DATA_AND_LIST))
def test_reproduce_data_and_list_refuse(words, named, places, tmp_path, capsys):
    named = [_argv([n], places)[0] for n in named]
    assert_refused(_argv(words, places), named, tmp_path, capsys)


@pytest.mark.parametrize(("words", "named"), cases(STATS_OPTIONS))
def test_report_and_stats_refuse_the_same_statistics_options(words, named, places, capsys):
    """Regression: `report --alpha 2`, `--bd-alpha 0`, `--control nosuch` printed a note and
    exited 0 where `stats` refused them; both now give the same line."""
    from test_bad_input import exit_status

    lines = []
    for command, target in (("report", places["run"]), ("stats", places["table"])):
        capsys.readouterr()
        assert exit_status([command, target, *words.split()]) == 2
        err = capsys.readouterr().err.strip()
        lines.append(err.replace(f"svmlab {command}", "svmlab COMMAND"))
    if "--control" not in words:  # the methods differ: knn, svc against a, b, c
        assert lines[0] == lines[1]
