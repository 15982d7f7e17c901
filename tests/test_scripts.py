"""The figure and benchmark scripts run (smoke tests on small inputs)."""

import json
import runpy
import shutil
import signal
import subprocess
import sys
import time

import matplotlib.image as mpimg
import pandas as pd
import pytest

from svmlab.paths import REPO_ROOT

pytestmark = pytest.mark.slow


def test_ollawv_boundary_figure(tmp_path):
    subprocess.run(
        [
            sys.executable,
            str(REPO_ROOT / "scripts" / "ollawv_figures.py"),
            "boundary",
            "--out",
            str(tmp_path),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    img = mpimg.imread(tmp_path / "ollawv_fig_5_4_boundaries.png")
    assert img.ndim == 3 and img.shape[1] > 1000


def test_scaling_benchmark_prints_every_backend():
    out = subprocess.run(
        [
            sys.executable,
            str(REPO_ROOT / "scripts" / "bench" / "scaling.py"),
            *("--tasks", "10", "--busy-tasks", "2", "--busy-iterations", "100000"),
        ],
        check=True,
        capture_output=True,
        text=True,
        timeout=300,
    ).stdout
    rows = {line.split()[0]: line.split() for line in out.splitlines() if line[:1].isalpha()}
    backends = ("sequential", "loky", "dask", "ray")
    for backend in backends:
        assert backend in rows, out
    assert rows["loky"][1] == "2" and rows["dask"][2] == rows["ray"][2] == "2"  # workers
    assert all(float(rows[b][-1]) > 0 for b in backends), out  # RSS per worker


def _bench_output(script: str, *args: str) -> str:
    """What ``scripts/bench/<script>`` prints with ``args``."""
    return subprocess.run(
        [sys.executable, str(REPO_ROOT / "scripts" / "bench" / script), *args],
        check=True,
        capture_output=True,
        text=True,
        timeout=600,
    ).stdout


def test_runner_overhead_benchmark_prints_ratios():
    out = _bench_output(
        "runner_overhead.py", "--tasks", "20", "--busy-tasks", "2", "--busy-iterations", "100000"
    )
    assert "overhead" in out and "speed-up" in out and "ratio runner/plain loop" in out


def test_overhead_benchmark_prints_svmlab_against_the_plain_loop():
    out = _bench_output("overhead.py", "--tasks", "30", "--workers", "1", "--runs", "1")
    lines = [line.split() for line in out.splitlines()]
    plain = next(r for r in lines if r[1:3] == ["plain", "loop"])
    ours = next(r for r in lines if r[1:2] == ["svmlab,"])
    ratio = next(w for w in ours if w.endswith("x"))
    assert plain[0] == ours[0] == "30" and float(plain[3]) > 0 and float(ratio[:-1]) > 0
    assert ours[ours.index(ratio) + 1] in ("PASS", "FAIL") and "(target <= 1.5)" in out


def test_startup_benchmark_prints_every_command_with_its_target():
    """One run of each command; which pass is the machine's business, not the test's."""
    out = subprocess.run(
        [sys.executable, str(REPO_ROOT / "scripts" / "bench" / "startup.py"), "--runs", "1"],
        check=True,
        capture_output=True,
        text=True,
        timeout=600,
    ).stdout
    rows = {line[:40].strip(): line[40:].split() for line in out.splitlines()[1:]}
    assert rows["svmlab stats acc.csv --figures none"][1:2] == ["1.50"]
    for what in ("--help", "list datasets", "list metrics", "data list"):
        assert rows[f"svmlab {what}"][1:2] == ["0.50"], out
    assert all(r[2] in ("PASS", "FAIL") for label, r in rows.items() if "floor" not in label)
    assert all(float(r[0]) >= 0 for r in rows.values())


def test_evosvm_tsvm_figure(tmp_path):
    subprocess.run(
        [
            sys.executable,
            str(REPO_ROOT / "scripts" / "evosvm_figures.py"),
            "tsvm",
            "--out",
            str(tmp_path),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    assert mpimg.imread(tmp_path / "tsvm.png").ndim == 3


def test_moevosvm_fronts_figure_from_a_real_run(tmp_path):
    run = [
        sys.executable,
        "-m",
        "svmlab.cli",
        "run",
        "dataset=moons",
        "solver=moevosvm",
        "protocol=holdout",
        "solver.population_size=12",
        "solver.max_generations=30",
        "preprocessing.X=none",
        "tuning.mode=none",
        f"results_dir={tmp_path}",
        "run_id=r",
        "runner=sequential",
    ]
    subprocess.run(run, check=True, capture_output=True, timeout=300, cwd=tmp_path)
    run_dir = next(tmp_path.glob("*/r"))
    out = subprocess.run(
        [
            sys.executable,
            str(REPO_ROOT / "scripts" / "evosvm_figures.py"),
            "fronts",
            str(run_dir),
            "--out",
            str(tmp_path / "fig"),
        ],
        check=True,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.stdout.strip().endswith("moevosvm_fronts.png")
    assert mpimg.imread(tmp_path / "fig" / "moevosvm_fronts.png").ndim == 3


def test_evosvm_speed_benchmark_prints_ratios():
    out = subprocess.run(
        [
            sys.executable,
            str(REPO_ROOT / "scripts" / "bench" / "evosvm_speed.py"),
            "--sizes",
            "60",
            "--datasets",
            "spiral",
            "--max-gen",
            "30",
        ],
        check=True,
        capture_output=True,
        text=True,
        timeout=300,
    ).stdout
    assert "gen/s" in out and out.count("spiral") == 3  # gaussian, hybrid, pso rows


@pytest.mark.data
def test_mtr_speed_benchmark_prints_ratios():
    out = subprocess.run(
        [
            sys.executable,
            str(REPO_ROOT / "scripts" / "bench" / "mtr_speed.py"),
            "--datasets",
            "slump",
            "--max-samples",
            "60",
        ],
        check=True,
        capture_output=True,
        text=True,
        timeout=300,
    ).stdout
    assert "SVRCC / SVR =" in out and "slump" in out


@pytest.mark.parametrize("protocol", ["grid", "point"])
def test_mirsvm_speed_benchmark_prints_ratios(protocol):
    out = subprocess.run(
        [
            sys.executable,
            str(REPO_ROOT / "scripts" / "bench" / "mirsvm_speed.py"),
            "--protocol",
            protocol,
            "--datasets",
            "mi_bags",
            "--n-bags",
            "20",
            "--folds",
            "2",
            "--no-weka",
        ],
        check=True,
        capture_output=True,
        text=True,
        timeout=300,
    ).stdout
    last = out.splitlines()[-1]
    assert "mi_bags" in last and "x" in last
    if protocol == "grid":  # the MI-SVM / MIRSVM ratio and how MIRSVM's fits ended
        assert "MI/MIR" in out and "settled / cycled / patience / max_iter" in out
    else:
        assert "MI-SVM/MIR" in out


@pytest.mark.data
def test_mlm_speed_benchmark_prints_ratios():
    out = subprocess.run(
        [
            sys.executable,
            str(REPO_ROOT / "scripts" / "bench" / "mlm_speed.py"),
            "--datasets",
            "wine_quality_red",
            "--classification",
            "pima",
            "--max-train",
            "150",
            "--kappas",
            "0.2",
            "1.0",
            "--repeats",
            "1",
        ],
        check=True,
        capture_output=True,
        text=True,
        timeout=300,
    ).stdout
    assert "speed-up" in out and "wine_quality_red" in out and "CCLW-MLM" in out


def _oliveira_figures():
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "oliveira_figures", REPO_ROOT / "scripts" / "oliveira_figures.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.data
def test_oliveira_figures_quick(tmp_path):
    """Three subcommands of scripts/oliveira_figures.py with --quick, in this process (the
    imports dominate a subprocess run)."""
    import csv

    script = _oliveira_figures()
    script.main(["sets", "--quick", "--datasets", "two_moons", "ripley", "--out", str(tmp_path)])
    assert mpimg.imread(tmp_path / "fig08_ccis_set_sizes.png").ndim == 3
    # the LS-SVMs tuned and built through their one width name, gamma
    script.main(["sensitivity", "--quick", "--out", str(tmp_path)])
    assert mpimg.imread(tmp_path / "fig13_cclssvm_sensitivity_ripley.png").ndim == 3
    script.main(
        [
            "rp-sweep",
            "--quick",
            "--datasets",
            "auto_mpg_complete",
            "--variants",
            "normal",
            "ks_otsu",
            "--runs",
            "1",
            "--out",
            str(tmp_path),
            "--format",
            "png",
            "svg",
        ]
    )
    assert mpimg.imread(tmp_path / "fig20_lwmlm_rp_sweep.png").ndim == 3
    assert (tmp_path / "fig20_lwmlm_rp_sweep.svg").stat().st_size > 0
    with open(tmp_path / "fig20_lwmlm_rp_sweep.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert list(rows[0]) == [
        "dataset",
        "variant",
        "run",
        "n_train",
        "n_rp",
        "rp_percent",
        "rmse",
    ]
    assert {r["variant"] for r in rows} == {"LW-MLM-1", "LW-MLM-3"}
    n_rp = sorted({int(r["n_rp"]) for r in rows})
    assert n_rp[0] == 2 and n_rp[-1] == int(rows[0]["n_train"])
    assert all(float(r["rmse"]) > 0 for r in rows)


def test_relieff_mi_benchmark_prints_the_ratio_and_the_cache_hit_rate(capsys):
    module = runpy.run_path(str(REPO_ROOT / "scripts" / "bench" / "relieff_mi_speed.py"))
    args = ["--datasets", "mi_bags", "--repeats", "1", "--ga-dataset", "mi_bags"]
    module["main"]([*args, "--ga-population", "4", "--ga-generations", "1"])
    out = capsys.readouterr().out
    assert "per-formula s" in out and "x " in out and "hit rate" in out


def test_hydrmi_figures_draw_from_a_run(tmp_path):
    info = {"ga_best_by_generation": [0.2, 0.4, 0.5], "n_features": 40, "n_filter_features": 83}
    rows = [
        {
            "status": "ok",
            "solver": f"hydrmi_{clf}",
            "dataset": "musk1",
            "fold": f,
            "variant": "",
            "tuning_mode": "none",
            "fit_info": json.dumps(info),
        }
        for clf in ("miwrapper_nb", "citation_knn")
        for f in range(3)
    ]
    (tmp_path / "run" / "tasks").mkdir(parents=True)
    pd.DataFrame(rows).to_parquet(tmp_path / "run" / "tasks" / "t.parquet")
    module = runpy.run_path(str(REPO_ROOT / "scripts" / "hydrmi_figures.py"))
    for figure in ("convergence", "subsets"):
        path = module[figure](tmp_path / "run", "musk1", tmp_path)
        assert mpimg.imread(path).ndim == 3


def test_svmperf_benchmarks_print_their_ratios(capsys):
    speed = runpy.run_path(str(REPO_ROOT / "scripts" / "bench" / "svmperf_speed.py"))
    speed["main"](["--dataset", "wdbc", "--n", "569", "--C", "1"])
    out = capsys.readouterr().out
    assert "OSQP/1-slack" in out and "stop converged" in out and "loss=mcc" in out
    oracles = runpy.run_path(str(REPO_ROOT / "scripts" / "bench" / "svmperf_oracles.py"))
    oracles["main"](["--sizes", "1000", "2000", "--budget", "0.01"])
    out = capsys.readouterr().out
    assert "argsort (peer)" in out and "slope" in out


def test_svmperf_vs_svmperf_skips_in_one_line_without_the_peer(tmp_path, capsys):
    module = runpy.run_path(str(REPO_ROOT / "scripts" / "bench" / "svmperf_vs_svmperf.py"))
    assert module["main"]([str(tmp_path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 1 and out[0].endswith("benchmark skipped"), out


@pytest.mark.data
def test_mo_feature_selection_benchmark_prints_rates_and_identical_fronts(capsys):
    module = runpy.run_path(str(REPO_ROOT / "scripts" / "bench" / "mo_feature_selection_speed.py"))
    args = ["--dataset", "wdbc", "--generations", "2", "--population", "8", "--cv", "2"]
    ratios = module["main"]([*args, "--estimator", "gaussian_nb", "--n-jobs", "1"])
    out = capsys.readouterr().out
    assert "evals/s" in out and "hit rate" in out and ratios["identical"]


@pytest.mark.data
def test_ollawv_vs_libsvm_benchmark_prints_ratios_and_the_cost_limit():
    out = subprocess.run(
        [
            sys.executable,
            str(REPO_ROOT / "scripts" / "bench" / "ollawv_vs_libsvm.py"),
            *("--datasets", "twonorm", "--max-samples", "800", "--C", "1", "10"),
        ],
        check=True,
        capture_output=True,
        text=True,
        timeout=300,
    ).stdout
    assert "m in [0.03, 0.01, 0.003, 0.001]" in out  # the solver's default grid
    assert "GEMV limit" in out and "% of the limit reached" in out
    assert "selected (best)" in out and "selected (one_se)" in out  # both rules by default
    summary = out.split("## summary")[1].splitlines()
    row = next(line.split() for line in summary if line.startswith("twonorm"))
    assert row[3].endswith("x") and float(row[3][:-1]) > 0 and row[-1].endswith("%")


def test_ollawv_regression_benchmark_runs_the_epsilon_paths():
    out = subprocess.run(
        [
            sys.executable,
            str(REPO_ROOT / "scripts" / "bench" / "ollawv_regression.py"),
            *("--datasets", "diabetes", "--max-samples", "200", "--C", "1"),
            *("--gamma", "0.1", "--epsilon", "0.01", "0.3"),
        ],
        check=True,
        capture_output=True,
        text=True,
        timeout=300,
    ).stdout
    assert "geometric mean" in out and "diabetes" in out.split("## summary")[1]


@pytest.mark.weka
@pytest.mark.data
def test_mismo_parity_benchmark_prints_the_natives_beside_weka(tmp_path):
    cache = tmp_path / "weka.json"
    args = ["--datasets", "east_west", "--kernels", "linear", "--folds", "2", "--cache"]
    out = _bench_output("mismo_weka_parity.py", *args, str(cache))
    header, row = out.splitlines()
    columns = ["dataset", "bags/size(max)/d/pos", "kernel", "Weka", "native", "differ"]
    assert header.split()[:6] == columns
    cells = row.split()
    assert cells[0] == "east_west" and cells[2] == "linear"
    assert cells[5] == "0"  # the default native predicts every bag as Weka does
    assert "east_west/linear/2" in cache.read_text()  # Weka's predictions kept for a rerun


FAKE_SVMLAB = """\
import json, sys, time
from pathlib import Path
from svmlab.cli import main
from svmlab.runner import store
args = sys.argv[1:]
if args[0] == "reproduce":  # a study that writes one task, then would run for a minute
    run = Path(args[args.index("--results-dir") + 1]) / args[args.index("--only") + 1] / "reproduce"
    (run / "tasks").mkdir(parents=True, exist_ok=True)
    (run / "run.json").write_text(json.dumps({"experiment": args[3], "fingerprint": "f"}))
    store.write_task_rows(run, "k1", [{"key": "k1", "status": "ok", "accuracy": 0.5}])
    print("reproduce", " ".join(args), flush=True)
    time.sleep(60)
else:
    sys.exit(main(args))
"""


def test_reproduce_boxes_stops_each_box_on_time_and_keeps_its_run(tmp_path):
    fake = tmp_path / "svmlab"
    fake.write_text(f"#!{sys.executable}\n{FAKE_SVMLAB}")
    fake.chmod(0o755)
    queue = tmp_path / "queue.txt"
    queue.write_text("# paper experiment minutes order\nmelki2018 ollawv_bench 0.02 solvers\n")
    script = str(REPO_ROOT / "scripts" / "reproduce_boxes.py")
    run = [sys.executable, script, str(queue), "--svmlab", str(fake),
           "--results-dir", str(tmp_path / "runs"), "--keep", str(tmp_path / "kept"),
           "--reports", str(tmp_path / "reports")]  # fmt: skip
    out = subprocess.run(run, check=True, capture_output=True, text=True, timeout=50).stdout
    assert "start melki2018 ollawv_bench 0.02 solvers" in out
    assert "(box ran out, pack exit 0)" in out
    log = (tmp_path / "reports" / "ollawv_bench.log").read_text()
    assert "--order solvers" in log and "--only ollawv_bench" in log
    kept = tmp_path / "kept" / "ollawv_bench" / "reproduce"
    assert json.loads((kept / "packed.json").read_text())["tasks"] == 1
    assert (tmp_path / "queue.txt.done").read_text() == "melki2018 ollawv_bench 0.02 solvers\n"
    again = subprocess.run(run, check=True, capture_output=True, text=True, timeout=50).stdout
    assert again == ""  # nothing left to do
    # a fresh clone: no run under RUNS, so the study starts from its kept run
    shutil.rmtree(tmp_path / "runs")
    queue.write_text("melki2018 ollawv_bench 0.03 solvers\n")
    out = subprocess.run(run, check=True, capture_output=True, text=True, timeout=50).stdout
    assert f"resuming ollawv_bench from {kept}" in out
    assert (tmp_path / "runs" / "ollawv_bench" / "reproduce" / "packed.json").exists()
    # a stop signal to the script stops the box, packs its run and leaves the line to do
    queue.write_text("melki2018 ollawv_bench 5 solvers\n")
    proc = subprocess.Popen(run, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert "start melki2018 ollawv_bench 5" in proc.stdout.readline()
    time.sleep(1.5)  # the box has started its (one-minute) study
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=50) == 143
    assert "pack exit 0" in proc.stdout.read() and "not marked done" in proc.stderr.read()
    assert "5 solvers" not in (tmp_path / "queue.txt.done").read_text()
    queue.write_text("melki2018 ollawv_bench soon\n")
    bad = subprocess.run(run, capture_output=True, text=True, timeout=50)
    assert bad.returncode == 1 and bad.stderr.strip().startswith(f"{queue}:1: expected")
