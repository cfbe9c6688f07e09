"""Server settings: a frozen value object, filled from options and read from the environment once, at the edge."""

from __future__ import annotations

import os
from dataclasses import dataclass, fields, replace
from typing import Any, Mapping, Optional

from ..errors import ConfigError

TOKEN_ENV = "RT4CHART_API_TOKEN"


@dataclass(frozen=True)
class ServerSettings:
    """How the HTTP service audits and what it accepts.

    ``token``: when set, every ``/v1`` route needs ``Authorization: Bearer <token>``. ``max_body_bytes`` bounds a
    request body (413 above it); ``max_records`` bounds a batch (422 ``too_many_records`` above it); ``timeout_s``
    bounds one request's audit (504 after it). ``gate=False`` turns ``/v1/triage`` off (503). ``judge`` is a name
    from ``rt4chart.judges.registry``; the judge is built once at startup. ``tagger=False`` runs the local judge
    without its MiniLM tagger (trees only: a median of about 25 ms per answer instead of about 95).
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

    def __post_init__(self) -> None:
        for name in ("max_body_bytes", "max_records", "concurrency"):
            if getattr(self, name) < 1:
                raise ConfigError(f"{name} must be >= 1, got {getattr(self, name)}")
        if self.timeout_s <= 0:
            raise ConfigError(f"timeout_s must be > 0, got {self.timeout_s}")
        if self.token is not None and not self.token.strip():
            raise ConfigError(f"{TOKEN_ENV} is set but empty; unset it to disable authentication")

    @classmethod
    def from_env(cls, environ: Optional[Mapping[str, str]] = None, **options: Any) -> "ServerSettings":
        """Settings from keyword options (``None`` means default) plus the token from ``RT4CHART_API_TOKEN``."""
        env = os.environ if environ is None else environ
        known = {f.name for f in fields(cls)}
        unknown = set(options) - known
        if unknown:
            raise ConfigError(f"unknown server settings: {', '.join(sorted(unknown))}")
        given = {k: v for k, v in options.items() if v is not None}
        if "token" not in given and env.get(TOKEN_ENV) is not None:
            given["token"] = env[TOKEN_ENV]
        return replace(cls(), **given)
