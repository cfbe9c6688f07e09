"""SQLite response cache: the same prompt to the same model with the same parameters is answered from disk.

The key is a SHA-256 over (prompt version, model, sampling parameters, response schema, messages); the value is
the reply text and the usage it cost the first time. With temperature 0 and a fixed seed a rerun of the same audit
makes zero model calls. Only successful HTTP replies are stored (failed calls are retried on the next run); an
unusable reply is stored too, so that the re-ask that followed it is replayed from the cache as well, but not one
cut off at the token cap (``CachedBackend``).

The default file lives in the user cache directory (``platformdirs``), never inside the installed package.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
import weakref
from pathlib import Path
from typing import Any, Optional, Sequence

from ..types import Usage


def default_cache_path() -> Path:
    """``<user cache dir>/rt4chart/llm-cache.sqlite3``."""
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("rt4chart", appauthor=False)) / "llm-cache.sqlite3"


def cache_key(
    *, prompt_version: Optional[str], model: str, params: dict[str, Any], messages: Sequence[dict[str, str]]
) -> str:
    """Stable hex key; dict order does not matter."""
    blob = json.dumps(
        {"prompt": prompt_version, "model": model, "params": params, "messages": list(messages)},
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class ResponseCache:
    """A thread-safe key → (reply text, usage) store in one SQLite file (WAL mode, safe across processes)."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path is not None else default_cache_path()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(self.path), check_same_thread=False, timeout=30.0, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS replies (key TEXT PRIMARY KEY, text TEXT NOT NULL, usage TEXT NOT NULL,"
            " prompt_version TEXT, model TEXT, created REAL NOT NULL)"
        )
        weakref.finalize(self, self._db.close)

    def get(self, key: str) -> Optional[tuple[str, Usage]]:
        with self._lock:
            row = self._db.execute("SELECT text, usage FROM replies WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        return row[0], Usage.model_validate_json(row[1])

    def put(self, key: str, text: str, usage: Usage, *, prompt_version: Optional[str], model: str) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO replies VALUES (?, ?, ?, ?, ?, ?)",
                (key, text, usage.model_dump_json(), prompt_version, model, time.time()),
            )

    def __len__(self) -> int:
        with self._lock:
            return self._db.execute("SELECT COUNT(*) FROM replies").fetchone()[0]

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> "ResponseCache":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
