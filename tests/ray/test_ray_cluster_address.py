"""The Ray engine joining a cluster by address: a head started with ``ray start --head`` on 127.0.0.1, the way a
multi-node cluster is joined (``rt4chart audit --engine ray --address HOST:PORT``)."""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from conftest import OBJECT_STORE, make_data_context, worker_env
from ray_helpers import local_lines, ragtruth_records, read_lines, write_jsonl

pytest.importorskip("ray.data", reason="the Ray engine needs pip install 'rt4chart[ray]'")
import ray  # noqa: E402

from rt4chart.llm.managed import free_port  # noqa: E402


@pytest.fixture
def ray_head(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A head node in its own process (``ray start --head --block``), stopped after the test by its process id
    (SIGINT: it stops the processes it started), never by name as ``ray stop`` does: other Ray clusters on the
    machine are left alone. The address file ``ray start`` writes (``ray_current_cluster``, where a plain
    ``ray.init()`` looks) is removed if it still names this head."""
    if ray.is_initialized():
        ray.shutdown()
    # Ray's token authentication: the head and the driver share this test's own token (a fresh machine has no
    # ~/.ray/auth_token, and ray start does not write one); a driver that joins by HOST:PORT sends it only when
    # RAY_AUTH_MODE says so (read when Ray starts in that process)
    monkeypatch.setenv("RAY_AUTH_MODE", "token")
    monkeypatch.setenv("RAY_AUTH_TOKEN", secrets.token_hex(32))
    port = free_port()
    log = open(tmp_path / "ray-start.log", "w")
    cmd = [sys.executable, "-m", "ray.scripts.scripts", "start", "--head", f"--port={port}",
           "--node-ip-address=127.0.0.1", "--num-cpus=2", "--include-dashboard=false",
           f"--object-store-memory={OBJECT_STORE}", "--disable-usage-stats", "--block"]
    head = subprocess.Popen(cmd, env={**os.environ, **worker_env()}, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 180
        while "Ray runtime started" not in (tmp_path / "ray-start.log").read_text():
            assert head.poll() is None and time.monotonic() < deadline, (tmp_path / "ray-start.log").read_text()
            time.sleep(1)
        make_data_context()
        yield f"127.0.0.1:{port}"
    finally:
        ray.shutdown()
        head.send_signal(signal.SIGINT)
        try:
            head.wait(timeout=60)
        except subprocess.TimeoutExpired:
            head.kill()
            head.wait()
        log.close()
        address_file = Path(tempfile.gettempdir()) / "ray" / "ray_current_cluster"
        if address_file.exists() and address_file.read_text().strip().endswith(f":{port}"):
            address_file.unlink()


def test_a_head_started_with_ray_start_and_joined_by_address(tmp_path, ray_head, ragtruth_available):
    # the command runs as a user runs it: its own driver process, joining the head by address (an explicit address
    # never falls back to starting a cluster of its own: the run fails if it cannot join)
    src = write_jsonl(tmp_path / "in.jsonl", ragtruth_records(30))
    out = tmp_path / "out.jsonl"
    run = subprocess.run([sys.executable, "-m", "rt4chart.cli", "audit", str(src), "-o", str(out), "--engine", "ray",
                          "--address", ray_head, "--workers", "2", "--judge", "lexical", "-q"],
                         env={**os.environ, **worker_env()}, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, (run.stderr[-3000:], (tmp_path / "ray-start.log").read_text()[-2000:])
    assert read_lines(out) == local_lines(src, tmp_path / "local.jsonl")
