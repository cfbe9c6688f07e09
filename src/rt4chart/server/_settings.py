"""Server settings: a frozen value object, filled from options and read from the environment once, at the edge."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any, Mapping, Optional, Union

from ..audit.config import AuditConfig, split_settings
from ..errors import ConfigError

TOKEN_ENV = "RT4CHART_API_TOKEN"


@dataclass(frozen=True)
class ServerSettings:
    """How the HTTP service audits and what it accepts.

    ``token``: when set, every ``/v1`` route needs ``Authorization: Bearer <token>``. ``max_body_bytes`` bounds a
    request body (413 above it); ``max_records`` bounds a batch (422 ``too_many_records`` above it);
    ``audit_timeout_s`` bounds one record's audit (504 after it). ``gate=False`` turns ``/v1/triage`` off (503).
    ``judge`` is a name from ``rt4chart.judges.registry``, built once at startup with ``options``: the judge's options
    by field name, as its option dataclasses define them (``threshold``, ``no_tagger``, ``model_dir``, ``base_url``,
    ``model``, ``max_tokens``, ...: the flags of ``rt4chart serve``, as ``rt4chart audit`` has them; ``from_env``
    adds the LLM endpoint's environment variables); with a base URL or a model, ``judge="auto"`` is the LLM judge.
    ``audit``: the audit's settings (W, O, global verification, prefilter, records audited at once in a batch).
    ``calibration``: a file written by ``rt4chart calibrate`` for this judge, applied to every result.
    """

    judge: str = "auto"
    token: Optional[str] = field(default=None, repr=False)
    max_body_bytes: int = 2_000_000
    max_records: int = 100
    audit_timeout_s: float = 300.0
    gate: bool = True
    audit: AuditConfig = AuditConfig()
    options: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}), repr=False)
    calibration: Optional[Union[str, Path]] = None

    def __post_init__(self) -> None:
        for name in ("max_body_bytes", "max_records"):
            if getattr(self, name) < 1:
                raise ConfigError(f"{name} must be >= 1, got {getattr(self, name)}")
        if self.audit_timeout_s <= 0:
            raise ConfigError(f"audit_timeout_s must be > 0, got {self.audit_timeout_s}")
        if self.token is not None and not self.token.strip():
            raise ConfigError(f"{TOKEN_ENV} is set but empty; unset it to disable authentication")
        object.__setattr__(self, "options", MappingProxyType({k: v for k, v in self.options.items()
                                                              if v is not None}))

    @classmethod
    def from_env(cls, environ: Optional[Mapping[str, str]] = None, **options: Any) -> "ServerSettings":
        """Settings from keyword options (``None`` means not given): the server's own (this class's fields), the
        audit's settings (``AuditConfig``'s fields) and the judge's options, plus what the environment sets: the
        token from ``RT4CHART_API_TOKEN`` and the LLM judge's endpoint (``rt4chart.judges.llm.llm_env``). This, with
        the CLI, is where the server reads the environment; the app and the judges take the values from here. An
        option no judge reads is refused when the judge is built (``build_auditor``)."""
        env = os.environ if environ is None else environ
        own = {f.name for f in fields(cls)} - {"audit", "options"}
        given = {k: v for k, v in options.items() if v is not None}
        server = {k: v for k, v in given.items() if k in own}
        settings, judge_options = split_settings({k: v for k, v in given.items() if k not in own})
        if "token" not in server and env.get(TOKEN_ENV) is not None:
            server["token"] = env[TOKEN_ENV]
        from ..judges.llm import llm_env  # here, not at import: importing the settings stays light

        return replace(cls(), **server, audit=AuditConfig().with_options(settings),
                       options={**llm_env(env), **judge_options})
