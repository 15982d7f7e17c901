"""Fixtures of the data tests: an isolated data environment, tiny registry entries and a
loopback HTTP server to fetch from."""

from __future__ import annotations

import functools
import http.server
import threading

import pytest
from datahelpers import shared_data_dir

from svmlab.data import registry


@pytest.fixture
def data_dir(request):
    """The shared benchmark folder, for tests marked ``@pytest.mark.data`` (the marker skips
    them when the folder is absent; see tests/conftest.py)."""
    assert request.node.get_closest_marker("data"), "a test using data_dir needs @pytest.mark.data"
    return shared_data_dir()


@pytest.fixture
def isolated(tmp_path, monkeypatch):
    """Empty data dir and cache under ``tmp_path``; registry caches cleared before and after."""
    data, cache = tmp_path / "data", tmp_path / "cache"
    data.mkdir()
    cache.mkdir()
    monkeypatch.setenv("SVMLAB_DATA_DIR", str(data))
    monkeypatch.setenv("SVMLAB_CACHE_DIR", str(cache))
    monkeypatch.delenv("SVMLAB_DATA_URL", raising=False)
    registry.clear_cache()
    yield data, cache
    registry.clear_cache()


@pytest.fixture
def add_entries(monkeypatch):
    """Add registry entries for the test's own tiny files: ``add_entries(entry, ...)``."""

    def add(*entries):
        table = dict(registry._registry())
        table.update({e["name"]: e for e in entries})
        registry.clear_cache()
        monkeypatch.setattr(registry, "_registry", functools.lru_cache(maxsize=1)(lambda: table))

    yield add
    monkeypatch.undo()
    registry.clear_cache()


class _Handler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep the test output clean
        pass

    def do_GET(self):
        self.server.requests.append(self.path)
        super().do_GET()


@pytest.fixture
def server(tmp_path, monkeypatch):
    """Serve ``tmp_path/served`` over HTTP on a free loopback port.

    Yields (root dir, base URL, request log)."""
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    root = tmp_path / "served"
    root.mkdir()
    httpd = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(_Handler, directory=str(root))
    )
    httpd.requests = []
    thread = threading.Thread(
        target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    )
    thread.start()
    yield root, f"http://127.0.0.1:{httpd.server_port}", httpd.requests
    httpd.shutdown()
    httpd.server_close()
    thread.join(timeout=5)
