"""The bad-input catalogue of ``svmlab run`` (issue 34, item 3): every case is refused with one
line (at most three) naming the value and what is accepted, exit status 2, no traceback and
nothing written - before Hydra starts, when Hydra composes, or when the run is planned.

The cases run in-process (``svmlab.cli.main``); :func:`test_bad_input.assert_refused` holds
the assertions shared with the other commands' catalogues.
"""

from __future__ import annotations

import pytest
from test_bad_input import assert_refused, cases

LONG = "a" * 300  # over the 255 bytes a name may have on most file systems
BIG = str(2**63 + 1)

#: (command-line words after `svmlab run`, words the error line must contain). {tmp} is the
#: test's directory, {file} a file in it, {conf} a --config-dir with broken experiment files.
GROUP_CHOICES = [
    ("dataset=", ["dataset= is empty", "abalone", "svmlab list datasets"]),
    ("solver=", ["solver= is empty", "svmlab list solvers"]),
    ("protocol=", ["protocol= is empty", "cv10"]),
    ("runner=", ["runner= is empty", "dask, local, ray, sequential"]),
    ("+experiment=", ["+experiment= is empty", "cclwmlm_bench", "svmlab list experiments"]),
    ("dataset=nosuch", ["'nosuch'", "Valid datasets"]),
    ("dataset=irs", ["'irs'", "Did you mean iris"]),
    ("solver=nosuch", ["'nosuch'", "Valid solvers"]),
    ("solver=svcc", ["'svcc'", "svc"]),
    ("protocol=nosuch", ["'nosuch'", "Valid protocols"]),
    ("runner=nosuch", ["'nosuch'", "Valid runners"]),
    ("+experiment=nosuch", ["'nosuch'", "Valid experiments"]),
    ("+experiment=quickstrt", ["'quickstrt'", "quickstart"]),
    ("-m dataset=iris,nosuch", ["'nosuch'", "Valid datasets"]),
    ("-m solver=svc,nosuch", ["'nosuch'", "Valid solvers"]),
    ("dataset=null", ["dataset=null", "svmlab list datasets"]),
    ("solver=null", ["solver=null", "svmlab list solvers"]),
    ("protocol=null", ["protocol=null"]),
    ("runner=null", ["runner=null"]),
    ("experiment=quickstart", ["experiment=quickstart", "+experiment=quickstart"]),
    ("+dataset@datasets.x=nosuch", ["'nosuch'", "Valid datasets"]),
    ("+dataset@datasets.x=", ["dataset@datasets.x= is empty"]),
    ("+solver@solvers.x=nosuch", ["'nosuch'", "Valid solvers"]),
    ("hydra/launcher=nosuch", ["hydra/launcher=nosuch", "installed: basic"]),
    ("hydra/sweeper=nosuch", ["hydra/sweeper=nosuch", "installed: basic"]),
    ("+experiment=quickstart datasets={}", ["datasets={}", "datasets.NAME=null"]),
    ("+experiment=quickstart solvers={}", ["solvers={}", "solvers.NAME=null"]),
    (
        "+experiment=quickstart datasets.iris=null datasets.wine=null datasets.moons=null "
        "datasets.breast_cancer=null",
        ["every entry of datasets is null"],
    ),
]

SYNTAX = [
    ("nosuch", ["'nosuch'", "key=value"]),
    ("=1", ["'=1'", "key=value"]),
    ("=", ["'='", "key=value"]),
    ("solver.C=[", ["'solver.C=['", "key=value"]),
    ("solver.C=]", ["'solver.C=]'"]),
    ("solver.C={", ["'solver.C={'"]),
    ("solver.C=(", ["'solver.C=('"]),
    ("a=b=c", ["'a=b=c'"]),
    ("++seed", ["'++seed'"]),
    ("~", ["'~'"]),
    ("seed=${", ["'seed=${'"]),
    ("solver.C=1,2", ["solver.C=1,2", "-m"]),
    ("seed=range(0,3)", ["seed=range(0,3)"]),
    ("--nosuch", ["--nosuch", "-m/--multirun"]),
    ("-x", ["-x", "--cfg job|hydra|all"]),
    ("--cfg nosuch", ["--cfg nosuch", "job, hydra, all"]),
    ("-c nosuch", ["-c nosuch", "job, hydra, all"]),
    ("--cfg", ["--cfg needs a value"]),
    ("--config-dir", ["--config-dir needs a value"]),
    ("-cd {tmp}/nosuch", ["{tmp}/nosuch is not a directory"]),
    ("--config-dir={tmp}/nosuch", ["{tmp}/nosuch is not a directory"]),
    ("--config-dir {file}", ["{file} is not a directory"]),
    ("-m --cfg job", ["--multirun and --cfg"]),
    ("--info nosuch", ["'nosuch'"]),
    ("-cn nosuch", ["'nosuch'"]),
    ("-cp {tmp}/nosuch", ["{tmp}/nosuch"]),
]

COMPOSITION = [
    ("nosuch.key=1", ["unknown setting nosuch.key", "+nosuch.key=1"]),
    ("nosuch=1", ["unknown setting nosuch", "+nosuch=1"]),
    ("solver.nosuch=1", ["unknown setting solver.nosuch", "+solver.nosuch=1"]),
    ("data.nosuch=true", ["unknown setting data.nosuch"]),
    ("~nosuch", ["'nosuch' does not exist"]),
    ("~solver.nosuch", ["solver.nosuch"]),
    ("+experiment=quickstart +experiment=quickstart", ["appears more than once"]),
    ("seed=${nosuch}", ["setting seed", "'nosuch' not found"]),
    ("solver.C=${nosuch}", ["solver.C", "'nosuch' not found"]),
    ("run_id=${oc.env:SVMLAB_NO_SUCH_VARIABLE}", ["SVMLAB_NO_SUCH_VARIABLE"]),
    ("hydra.job.chdir=maybe", ["hydra.job.chdir", "maybe"]),
    ("-m hydra.job.chdir=true,false", ["hydra.job.chdir=true,false"]),
    ("--config-dir {conf} +experiment=brace", ["brace.yaml, line 3", "not valid YAML"]),
    ("--config-dir {conf} +experiment=tab", ["tab.yaml, line 2", "not valid YAML"]),
    ("--config-dir {conf} +experiment=top_list", ["top_list.yaml", "is a list, not a mapping"]),
    ("--config-dir {conf} +experiment=top_text", ["top_text.yaml", "is a str, not a mapping"]),
    ("--config-dir {conf} +experiment=no_package", ["+experiment=no_package", "_global_"]),
    ("--config-dir {conf} +experiment=uses_broken", ["broken.yaml", "not valid YAML"]),
    ("--config-dir {conf} +experiment=uses_missing", ["nosuch_solver"]),
    ("--config-dir {conf} solver=broken", ["broken.yaml, line 3", "not valid YAML"]),
    ("--config-dir {conf} +experiment=big_seed", ["seed=4294967296", "0 to 4294967295"]),
    ("--config-dir {conf} +experiment=empty_name", ["name= is empty"]),
    ("--config-dir {conf} +experiment=bad_bool", ["data.allow_download='often'"]),
]

SEEDS = [
    ("seed=-1", ["seed=-1 is out of range", "0 to 4294967295"]),
    ("seed=4294967296", ["seed=4294967296 is out of range"]),
    (f"seed={BIG}", [f"seed={BIG} is out of range"]),
    ("seed=99999999999999999999", ["seed=99999999999999999999 is out of range"]),
    ("seed=abc", ["seed='abc' is not a seed", "an integer from 0"]),
    ("seed=true", ["seed=True is not a seed"]),
    ("seed=1.5", ["seed=1.5 is not a seed"]),
    ("seed=1e3", ["seed=1000.0 is not a seed"]),
    ("seed=null", ["seed=null is not a seed"]),
    ("seed=[1]", ["seed=[1] is not a seed"]),
    ("seed={a:1}", ["seed={'a': 1} is not a seed"]),
    ("seed=", ["seed='' is not a seed"]),
    ("-m seed=1,-1", ["seed=-1 is out of range"]),
    ("-m seed=0,4294967296", ["seed=4294967296 is out of range"]),
    ("-m seed=range(4294967290,4294967300)", ["seed=4294967299 is out of range"]),
    ("-m seed=choice(1,abc)", ["seed='abc' is not a seed"]),
    ("dataset=blobs dataset.params.random_state=-1", ["dataset.params.random_state=-1"]),
    (
        "dataset=blobs dataset.params.random_state=4294967296",
        ["dataset.params.random_state=4294967296", "null or an integer"],
    ),
    ("dataset=blobs dataset.params.random_state=abc", ["dataset.params.random_state='abc'"]),
    ("solver=mi_wrapper solver.random_state=-5", ["solver.random_state=-5"]),
    ("solver=mi_wrapper solver.random_state=1.5", ["solver.random_state=1.5"]),
    ("+solver.random_state=-1", ["solver.random_state=-1"]),
    ("+experiment=quickstart +solvers.knn.random_state=-1", ["solvers.knn.random_state=-1"]),
    ("solver=moevosvm solver.holdout_seed=-1", ["solver.holdout_seed=-1"]),
]

NAMES = [
    ("run_id=", ["run_id= is empty", "leave run_id out"]),
    (["run_id=' '"], ["run_id=  is empty"]),
    ("name=", ["name= is empty"]),
    ("run_id=null", ["run_id=null is not a name"]),
    ("name=null", ["name=null is not a name"]),
    ("run_id=true", ["run_id=True is not a name"]),
    ("run_id=1.5", ["run_id=1.5 is not a name"]),
    ("run_id=[a,b]", ["run_id=['a', 'b'] is not a name"]),
    ("run_id=..", ["run_id=.. leaves", "without . or .. parts"]),
    ("run_id=.", ["run_id=. leaves"]),
    ("run_id=a/../../b", ["run_id=a/../../b leaves"]),
    ("run_id=/tmp/elsewhere", ["run_id=/tmp/elsewhere leaves"]),
    ("name=..", ["name=.. leaves"]),
    ("name=/tmp/elsewhere", ["name=/tmp/elsewhere leaves"]),
    (f"run_id={LONG}", ["run_id=aaaa", "300 bytes", "255"]),
    (f"run_id=ok/{LONG}", ["run_id=ok/aaaa", "300 bytes"]),
    (f"name={LONG}", ["name=aaaa", "300 bytes"]),
    (f"run_id='{'é' * 128}'", ["256 bytes", "255"]),  # 128 characters, two bytes each
    ("run_id=é", ["'run_id=é'", "only a quoted value may hold"]),
    (f"--config-dir {{tmp}}/{LONG}", ["--config-dir {tmp}/aaaa", "is not a directory"]),
    (f"-m run_id=x,{LONG}", ["300 bytes"]),
    (f"results_dir={{tmp}}/res/{LONG}", ["the name aaaa", "300 bytes", "255"]),
    (f"-m solver.C=1,2 results_dir={{tmp}}/res/{LONG}", ["300 bytes"]),
    ("results_dir=", ["results_dir= names no directory"]),
    ("results_dir=null", ["results_dir=null names no directory"]),
    ("results_dir={file}/res", ["{file}", "not a writable directory"]),
    ("-m solver.C=1,2 results_dir={file}/res", ["{file}", "not a writable directory"]),
    ("results_dir={tmp}/res run_id=blocked", ["{tmp}/res/adhoc/blocked", "is a file"]),
]

BOOLEANS = [
    (f"{key}={value}", [f"{key}={shown} is not a boolean", "true or false"])
    for key in ("data.allow_download", "runner.progress", "+tuning.inner_always")
    for value, shown in (("maybe", "'maybe'"), ("1", "1"), ("yes", "'yes'"), ("null", "null"))
] + [
    ("data.allow_download=", ["data.allow_download= is not a boolean"]),
    ("runner.progress=[true]", ["runner.progress=[True] is not a boolean"]),
    ("protocol=holdout_thesis protocol.resample=maybe", ["resample", "'maybe'"]),
]
for _i, (_words, _named) in enumerate(BOOLEANS):  # the key as given, without the plus sign
    BOOLEANS[_i] = (_words, [n.replace("+tuning", "tuning") for n in _named])

SETTINGS = [
    ("report.aggregate=nosuch", ["report.aggregate='nosuch'", "mean, pooled"]),
    ("report.bd_alpha=2", ["report.bd_alpha=2", "0 < level < 1"]),
    ("report.bd_alpha=0", ["report.bd_alpha=0"]),
    ("report.bd_alpha=abc", ["report.bd_alpha='abc'"]),
    ("runner.n_jobs=0", ["runner.n_jobs", "0"]),
    ("runner.n_jobs=abc", ["runner.n_jobs", "'abc'"]),
    ("runner.backend=nosuch", ["runner.backend='nosuch'", "loky"]),
    ("runner.task_timeout=-1", ["runner.task_timeout", "-1"]),
    ("runner.task_timeout=abc", ["runner.task_timeout", "'abc'"]),
    ("+runner.nosuch=1", ["runner has no key 'nosuch'"]),
    ("tuning.mode=nosuch", ["tuning.mode='nosuch'", "nested"]),
    ("tuning.inner_folds=1", ["tuning.inner_folds", "1"]),
    ("tuning.inner_folds=abc", ["tuning.inner_folds", "'abc'"]),
    ("tuning.scoring=nosuch", ["'nosuch'"]),
    ("+tuning.nosuch=1", ["tuning has no key 'nosuch'"]),
    ("preprocessing.X=nosuch", ["nosuch"]),
    ("preprocessing.impute=nosuch", ["nosuch"]),
    ("protocol.n_splits=1", ["n_splits", "1"]),
    ("protocol.n_splits=abc", ["n_splits", "abc"]),
    ("protocol.n_repeats=0", ["n_repeats", "0"]),
    ("summary_metric=nosuch", ["'nosuch'"]),
    ("solver.C=abc", ["'C'", "abc"]),
    ("solver.C=-1", ["'C'", "-1"]),
    ("solver.kernel=nosuch", ["'kernel'", "nosuch"]),
    ("+solver.nosuch=1", ["'nosuch'", "valid parameters"]),
    ("solver.grid.nosuch=[1]", ["solver.grid.nosuch"]),
    ("solver=ollawv solver.use_bias=maybe", ["'use_bias'", "maybe"]),
    ("dataset.params.nosuch=1", ["unknown setting dataset.params.nosuch"]),
    ("protocol.kind=nosuch", ["unknown kind 'nosuch'", "stratified_kfold"]),
    ("protocol=holdout protocol.test_size=2", ["test_size", "got 2"]),
    ("solver._target_=nosuch.Cls", ["'nosuch.Cls'"]),
    ("reproduce=nosuch", ["unknown reproduction 'nosuch'"]),
    ("runner=dask runner.address=host:99999", ["runner.address='host:99999'"]),
]

#: Settings that hold settings, or name a thing, given something else.
SHAPES = [
    ("preprocessing=nosuch", ["preprocessing='nosuch' is not a mapping", "preprocessing.NAME"]),
    ("tuning=nosuch", ["tuning='nosuch' is not a mapping"]),
    ("data=nosuch", ["data='nosuch' is not a mapping"]),
    ("report=nosuch", ["report='nosuch' is not a mapping"]),
    ("datasets=nosuch", ["datasets='nosuch' is not a mapping"]),
    ("solvers=[a]", ["solvers=['a'] is not a mapping"]),
    ("tuning=[nested]", ["tuning=['nested'] is not a mapping"]),
    ("unavailable_datasets=nosuch", ["unavailable_datasets='nosuch' is not a list"]),
    ("solver=svc solver.grid=abc", ["solver.grid='abc' is not a mapping"]),
    ("+experiment=quickstart solvers.knn.grid=abc", ["solvers.knn.grid='abc' is not a mapping"]),
    ("dataset.params=abc", ["dataset.params='abc' is not a mapping"]),
    ("solver.tasks=abc", ["solver.tasks='abc' is not a list"]),
    ("+solvers.x=abc", ["solver 'abc' has no _target_"]),
    ("+datasets.x=[1]", ["every entry needs a name, got [1]"]),
    ("solver.name=", ["solver.name= is not a name"]),
    ("solver.name=null", ["solver.name=null is not a name"]),
    ("protocol.name=", ["protocol.name= is not a name"]),
    ("dataset.name=", ["dataset.name= is not a name"]),
    ("+experiment=quickstart solvers.knn.name=", ["solvers.knn.name= is not a name"]),
    ("hydra.run.dir=", ["hydra.run.dir= names no directory"]),
    ("-m solver.C=1,2 hydra.sweep.dir=", ["hydra.sweep.dir= names no directory"]),
    (f"hydra.run.dir={{tmp}}/res/{LONG}", ["run directory", "300 bytes"]),
    ("+experiment=quickstart +experiment=mtr_quick", ["Multiple values for experiment"]),
    ("hydra/launcher=", ["hydra/launcher/", "basic"]),
]


def _placed(text: str, places: dict[str, str]) -> str:
    for name, value in places.items():
        text = text.replace(f"{{{name}}}", value)
    return text


def _conf_dir(tmp_path):
    """A --config-dir holding experiment and solver files broken in the ways a user's are."""
    conf = tmp_path / "conf"
    files = {
        "experiment/brace.yaml": "# @package _global_\nname: {a\nseed: 1\n",
        "experiment/tab.yaml": "# @package _global_\n\tname: x\n",
        "experiment/top_list.yaml": "- a\n- b\n",
        "experiment/top_text.yaml": "just words\n",
        "experiment/no_package.yaml": "name: x\nseed: 1\n",
        "experiment/uses_broken.yaml": "# @package _global_\ndefaults:\n"
        "  - override /solver: broken\nname: x\n",
        "experiment/uses_missing.yaml": "# @package _global_\ndefaults:\n"
        "  - override /solver: nosuch_solver\nname: x\n",
        "experiment/big_seed.yaml": "# @package _global_\nname: big\nseed: 4294967296\n",
        "experiment/empty_name.yaml": "# @package _global_\nname: ''\n",
        "experiment/bad_bool.yaml": "# @package _global_\nname: b\ndata:\n  allow_download: "
        "often\n",
        "solver/broken.yaml": "name: broken\n_target_: [sklearn.svm.SVC\n",
    }
    for name, text in files.items():
        (conf / name).parent.mkdir(parents=True, exist_ok=True)
        (conf / name).write_text(text)
    return conf


@pytest.mark.parametrize(
    ("words", "named"),
    cases(GROUP_CHOICES + SYNTAX + COMPOSITION + SEEDS + NAMES + BOOLEANS + SETTINGS + SHAPES),
)
def test_run_refuses(words, named, tmp_path, capsys, monkeypatch):
    """``svmlab run WORDS`` (on iris with k-NN and a hold-out unless the words choose) is
    refused in one line naming the value; nothing is written in the results directory."""
    monkeypatch.chdir(tmp_path)
    blocker = tmp_path / "res" / "adhoc" / "blocked"
    if "run_id=blocked" in words:
        blocker.parent.mkdir(parents=True)
        blocker.write_text("keep me")
    places = {"tmp": str(tmp_path), "file": str(tmp_path / "file"), "conf": ""}
    (tmp_path / "file").write_text("keep me")
    if "{conf}" in words:
        places["conf"] = str(_conf_dir(tmp_path))
    base = ["dataset=iris", "solver=knn", "protocol=holdout", "runner=sequential"]
    given = words if isinstance(words, list) else _placed(words, places).split()
    chosen = [w for w in base if w.split("=")[0] not in str(words) and "experiment" not in words]
    argv = ["run", f"results_dir={tmp_path}/res", *chosen, *given]
    assert_refused(argv, [_placed(n, places) for n in named], tmp_path, capsys)
