"""A llama.cpp ``llama-server`` that rt4chart starts itself for a GGUF model file, and always stops; and what a
llama.cpp server says about itself (``fit_to_server``: its slots and the model file it loaded).

``ManagedServer(gguf)`` finds the binary (``binary``, else ``$RT4CHART_LLAMA_SERVER`` as the caller passes it,
else ``llama-server`` on PATH), starts it on a free loopback port with the machine's threads, waits for
``/health``, and gives its ``base_url``; leaving the ``with`` block stops it (terminate, then kill), also on
Ctrl-C and errors, and a Linux parent-death signal stops it if rt4chart itself is killed.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Iterator, Optional

import httpx

from ..errors import ConfigError
from .settings import Endpoint

__all__ = ["LLAMA_SERVER_TIMEOUT", "ManagedServer", "MODEL_ALIAS", "ServedModel", "find_llama_server", "fit_to_server",
           "managed_model", "served_model_file", "server_props", "server_slots"]

#: the model name the managed server answers to
MODEL_ALIAS = "judge"
#: seconds to wait for the model to load
START_TIMEOUT = 180.0
#: the context size, shared by the server's slots
CONTEXT = 16384
#: parallel slots: one answer's claims run in sequence on one slot (its document stays cached), two answers at once
SLOTS = 2


def find_llama_server(binary: Optional[str] = None) -> str:
    """The llama-server executable: ``binary`` (a path or a name on PATH), else ``llama-server`` on PATH."""
    name = binary or "llama-server"
    found = shutil.which(name) if os.sep not in name else (name if os.access(name, os.X_OK) else None)
    if not found:
        raise ConfigError(f"cannot find llama.cpp's server ({name}): install llama.cpp (its llama-server binary) and "
                          "put it on PATH, or set RT4CHART_LLAMA_SERVER to its path; or run a server yourself and "
                          "pass --base-url")
    return found


def free_port() -> int:
    """A TCP port free on loopback now (the OS picks it): where rt4chart starts a server, and the tests' servers."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _parent_death_signal() -> None:  # pragma: no cover - runs in the child between fork and exec
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


class ManagedServer:
    """``llama-server -m GGUF`` on a free loopback port for the duration of a ``with`` block (module docstring)."""

    def __init__(self, gguf: str, *, binary: Optional[str] = None, threads: Optional[int] = None,
                 context: int = CONTEXT, slots: int = SLOTS, start_timeout: float = START_TIMEOUT) -> None:
        path = Path(gguf).expanduser()
        if not path.is_file():
            raise ConfigError(f"--gguf {gguf}: no such model file (a GGUF file, e.g. a Q4_K_M quantisation of an "
                              "instruct model)")
        self.gguf = path
        self.binary = find_llama_server(binary)
        self.threads = threads or os.cpu_count() or 2
        self.context, self.slots, self.start_timeout = context, slots, start_timeout
        self.port = 0
        self.process: Optional[subprocess.Popen[bytes]] = None
        self._log: Optional[Path] = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> "ManagedServer":
        self.port = free_port()
        fd, log = tempfile.mkstemp(prefix="rt4chart-llama-", suffix=".log")
        self._log = Path(log)
        cmd = [self.binary, "-m", str(self.gguf), "--host", "127.0.0.1", "--port", str(self.port),
               "-t", str(self.threads), "-c", str(self.context), "-np", str(self.slots), "--alias", MODEL_ALIAS]
        with os.fdopen(fd, "wb") as out:
            self.process = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                            preexec_fn=_parent_death_signal if sys.platform == "linux" else None)
        atexit.register(self.stop)
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            code = self.process.poll()
            if code is not None:
                tail = self._tail()
                self.stop()
                raise ConfigError(f"llama-server exited with code {code} while loading {self.gguf}: {tail}")
            try:
                if httpx.get(f"http://127.0.0.1:{self.port}/health", timeout=2.0).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        self.stop()
        raise ConfigError(f"llama-server did not become ready within {self.start_timeout:g} s loading {self.gguf}")

    def _tail(self) -> str:
        try:
            lines = (self._log.read_text(errors="replace") if self._log else "").strip().splitlines()
        except OSError:
            return ""
        return " | ".join(lines[-3:])[-400:]

    def stop(self) -> None:
        """Stop the server (terminate, then kill after 10 s); safe to call twice."""
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)
        if self._log is not None:
            self._log.unlink(missing_ok=True)
            self._log = None
        atexit.unregister(self.stop)

    def __enter__(self) -> "ManagedServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


@contextlib.contextmanager
def managed_model(options: dict[str, Any], *, binary: Optional[str] = None) -> Iterator[Optional[ManagedServer]]:
    """While the block runs, the llama-server of ``options["gguf"]`` (popped), with ``options`` set to reach it
    (``base_url``, ``model``; ``judge_name`` ``auto`` becomes ``hybrid``); nothing when no model file is given.
    ``binary``: the server executable (the caller reads ``$RT4CHART_LLAMA_SERVER`` at its edge)."""
    gguf = options.pop("gguf", None)
    if gguf is None:
        yield None
        return
    if options.get("base_url"):
        raise ConfigError("--gguf starts a model server and --base-url names another one: give one of them")
    judge = options.get("judge_name") or "auto"
    if judge not in ("auto", "hybrid", "llm"):
        raise ConfigError(f"--gguf gives a model to the hybrid or llm judge, but the judge here is {judge}")
    with ManagedServer(gguf, binary=binary) as server:
        options.update(base_url=server.base_url, model=MODEL_ALIAS)
        if judge == "auto":
            options["judge_name"] = "hybrid"
        yield server


def server_props(base_url: str, *, timeout: float = 2.0) -> dict[str, Any]:
    """What a llama.cpp server reports at ``/props`` (``total_slots``, ``model_path``, ...); empty for a server that
    reports nothing there (an API, vLLM, Ollama) or cannot be asked."""
    root = base_url.rstrip("/")
    root = root[:-3] if root.endswith("/v1") else root
    try:
        response = httpx.get(f"{root}/props", timeout=timeout)
        props = response.json() if response.status_code == 200 else None
    except (httpx.HTTPError, ValueError):
        return {}
    return props if isinstance(props, dict) else {}


def server_slots(base_url: str, *, timeout: float = 2.0, props: Optional[dict[str, Any]] = None) -> Optional[int]:
    """The parallel slots a llama.cpp server reports (``/props``: ``total_slots``; ``props``: what ``server_props``
    read already), None for a server that reports none (an API, vLLM, Ollama) or cannot be asked."""
    slots = (props if props is not None else server_props(base_url, timeout=timeout)).get("total_slots")
    return int(slots) if isinstance(slots, int) and slots > 0 else None


def served_model_file(props: dict[str, Any]) -> Optional[str]:
    """The file name of the GGUF a llama.cpp server loaded (``/props``: ``model_path``), None when it says none."""
    path = props.get("model_path")
    return Path(str(path)).name if isinstance(path, str) and path.strip() else None


#: the request timeout (seconds) on a llama.cpp server: one long document on a CPU takes minutes
LLAMA_SERVER_TIMEOUT = 600.0


@dataclass(frozen=True)
class ServedModel:
    """What the llama.cpp server behind an endpoint says about itself: its parallel ``slots`` and the GGUF file it
    loaded (``model_file``); both None for a server that says nothing (an API, vLLM, Ollama)."""

    slots: Optional[int] = None
    model_file: Optional[str] = None


def fit_to_server(endpoint: Endpoint) -> tuple[Endpoint, ServedModel]:
    """Ask the server behind ``endpoint`` what it is (``/props``). A llama.cpp server gets as many requests in flight
    as it has slots (the rest wait here, not in its queue, so none times out waiting) and a timeout for a CPU
    evaluating a long document (``LLAMA_SERVER_TIMEOUT``); any other server keeps ``endpoint`` as it is."""
    props = server_props(endpoint.base_url)
    served = ServedModel(server_slots(endpoint.base_url, props=props), served_model_file(props))
    if served.slots is not None:
        endpoint = replace(endpoint, concurrency=min(endpoint.concurrency, served.slots),
                           timeout=max(endpoint.timeout, LLAMA_SERVER_TIMEOUT))
    return endpoint, served
