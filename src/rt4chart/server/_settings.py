"""Server settings: a frozen value object, filled from options and read from the environment once, at the edge."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Mapping, Optional, Union

from ..errors import ConfigError

TOKEN_ENV = "RT4CHART_API_TOKEN"


@dataclass(frozen=True)
class ServerSettings:
    """How the HTTP service audits and what it accepts.

    ``token``: when set, every ``/v1`` route needs ``Authorization: Bearer <token>``. ``max_body_bytes`` bounds a
    request body (413 above it); ``max_records`` bounds a batch (422 ``too_many_records`` above it); ``timeout_s``
    bounds one request's audit (504 after it). ``gate=False`` turns ``/v1/triage`` off (503). ``judge`` is a name
    from ``rt4chart.judges.registry``; the judge is built once at startup. ``tagger=False`` runs the local judge
    without its MiniLM tagger (trees only: a median of about 25 ms per answer instead of about 95). ``base_url``,
    ``model``, ``api_key`` and ``cache_path`` configure the LLM judge (``from_env`` reads them from
    ``RT4CHART_BASE_URL``, ``RT4CHART_MODEL``, ``OPENAI_API_KEY`` and ``RT4CHART_CACHE_DIR``); with a base URL or a
    model, ``judge="auto"`` is the LLM judge. ``max_tokens`` caps each LLM reply (None: the LLM settings' default;
    0: no cap). ``calibration``: a file written by ``rt4chart calibrate`` for this judge, applied to every result.
    """

    judge: str = "auto"
    token: Optional[str] = None
    max_body_bytes: int = 2_000_000
    max_records: int = 100
    concurrency: int = 8
    timeout_s: float = 300.0
    window: int = 25
    overlap: int = 10
    global_verification: bool = True
    gate: bool = True
    tagger: bool = True
    base_url: Optional[str] = None
    model: Optional[str] = None
    api_key: Optional[str] = field(default=None, repr=False)
    cache_path: Optional[Union[str, Path]] = None
    max_tokens: Optional[int] = None
    calibration: Optional[Union[str, Path]] = None

    def __post_init__(self) -> None:
        for name in ("max_body_bytes", "max_records", "concurrency"):
            if getattr(self, name) < 1:
                raise ConfigError(f"{name} must be >= 1, got {getattr(self, name)}")
        if self.timeout_s <= 0:
            raise ConfigError(f"timeout_s must be > 0, got {self.timeout_s}")
        if self.max_tokens is not None and self.max_tokens < 0:
            raise ConfigError(f"max_tokens must be >= 0 (0: no cap), got {self.max_tokens}")
        if self.token is not None and not self.token.strip():
            raise ConfigError(f"{TOKEN_ENV} is set but empty; unset it to disable authentication")

    @classmethod
    def from_env(cls, environ: Optional[Mapping[str, str]] = None, **options: Any) -> "ServerSettings":
        """Settings from keyword options (``None`` means default) plus what the environment sets: the token from
        ``RT4CHART_API_TOKEN`` and the LLM judge's settings (``rt4chart.judges.llm.llm_env``). This, with the CLI, is
        where the server reads the environment; the app and the judges take the values from here."""
        env = os.environ if environ is None else environ
        known = {f.name for f in fields(cls)}
        unknown = set(options) - known
        if unknown:
            raise ConfigError(f"unknown server settings: {', '.join(sorted(unknown))}")
        given = {k: v for k, v in options.items() if v is not None}
        if "token" not in given and env.get(TOKEN_ENV) is not None:
            given["token"] = env[TOKEN_ENV]
        from ..judges.llm import llm_env  # here, not at import: importing the settings stays light

        given = {**llm_env(env), **given}
        return replace(cls(), **given)
