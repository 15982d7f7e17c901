"""The packed runs committed under ``docs/reproductions/runs``: each is a run of one of the
documents' studies that a report can read and a resume can trust, nothing of it set aside."""

import json
from pathlib import Path

import pytest

from svmlab.reproduce.papers import PAPERS
from svmlab.runner import row_index
from svmlab.runner.files import RUN_FILE, TASKS_DIR
from svmlab.runner.pack import PACKED_FILE

RUNS = Path(__file__).resolve().parents[2] / "docs" / "reproductions" / "runs"
PACKED = sorted(p.parent for p in RUNS.glob(f"*/*/{RUN_FILE}"))
STUDIES = {s.full for paper in PAPERS.values() for s in paper.studies}


def test_some_runs_are_kept():
    assert PACKED, f"no packed run under {RUNS}"


@pytest.mark.parametrize("run_dir", PACKED, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_kept_run_is_packed_whole_and_trusted(run_dir):
    identity = json.loads((run_dir / RUN_FILE).read_text())
    assert identity["experiment"] == run_dir.parent.name in STUDIES
    assert run_dir.name == "reproduce"  # the full studies, never a quick profile
    assert (run_dir / "config.yaml").is_file()
    rows = row_index.collect(run_dir, index=False)
    assert not rows.unreadable and not rows.untrusted
    files = sorted(p.name for p in (run_dir / TASKS_DIR).iterdir())
    # packed: one batch file per row schema, every task in exactly one of them, and no run
    # has written into the copy since (a resume belongs in a copy of it, packed again)
    assert len(files) == len(rows.groups) and all(f.startswith("batch-") for f in files)
    assert sorted(json.loads((run_dir / PACKED_FILE).read_text())["files"]) == files
    versions, several = row_index.chosen_versions(rows)
    assert not several and versions.num_rows > 0


@pytest.mark.data
@pytest.mark.parametrize("run_dir", PACKED, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_kept_run_has_the_identity_its_study_plans_today(run_dir, tmp_path):
    """`svmlab reproduce` resumes a kept run only while its study's configuration plans the
    same run (solvers and their order, datasets, protocol, seed): a change to the experiment
    would strand the kept tasks, so it fails here rather than at the next sitting's resume."""
    from svmlab.config import compose
    from svmlab.errors import DataUnavailableError
    from svmlab.runner.plan import build_plan

    stored = json.loads((run_dir / RUN_FILE).read_text())
    (study,) = [s for p in PAPERS.values() for s in p.studies if s.full == stored["experiment"]]
    _, where, rest = study.run_arguments(study.full, run_dir.name, tmp_path)
    container, _ = compose([*where, *rest])
    try:
        plan = build_plan(container, str(tmp_path), run_dir.name)
    except DataUnavailableError as exc:
        pytest.skip(f"{exc} (svmlab data fetch --experiment {study.full})")
    changed = sorted(k for k, v in plan.identity["parts"].items() if stored["parts"].get(k) != v)
    assert plan.identity["fingerprint"] == stored["fingerprint"], f"changed: {changed}"
