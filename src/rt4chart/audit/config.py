"""The audit's own settings, defined once: W and O of the local chunks, global verification, the prefilter and the
records in flight. Each is an option field (``rt4chart.options.option``): the command line's flags (``audit``,
``eval run``, ``calibrate``, ``serve``), ``Auditor``, ``rt4chart.audit``, the server, the Ray engine and the ablation
study read them here, with their defaults (the paper's W=25, O=10, global verification on)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from ..errors import ConfigError
from ..options import option, option_info
from ..text.segment import validate_window

__all__ = ["AuditConfig", "split_settings"]


@dataclasses.dataclass(frozen=True)
class AuditConfig:
    """Settings of the verification program (the paper's defaults: W=25, O=10, global verification on) and how
    many records are audited at once. ``verdict_settings`` are those that decide verdicts (the judge fingerprint's)."""

    window: int = option(25, "chunk size W in sentences (default 25)", short="-W", low=1)
    overlap: int = option(10, "chunk overlap O, < W (default 10)", short="-O", low=0)
    global_verification: bool = option(
        True, "global verification of every claim against the whole context", flag="--no-global",
        flag_help="skip global verification (local labels are final)")
    prefilter: bool = option(False, "skip chunks sharing no content word with a claim")
    concurrency: int = option(8, "records (and, for the LLM judge, calls) in flight (default 8)", low=1,
                              verdict=False)

    def __post_init__(self) -> None:
        validate_window(self.window, self.overlap)
        if isinstance(self.concurrency, bool) or not isinstance(self.concurrency, int) or self.concurrency < 1:
            raise ConfigError(f"concurrency must be >= 1, got {self.concurrency!r}")

    def verdict_settings(self) -> dict[str, Any]:
        """The settings that decide verdicts, by name (not ``concurrency``)."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if option_info(f).verdict}

    def with_options(self, settings: Mapping[str, Any]) -> "AuditConfig":
        """These settings with ``settings`` given by field name (None: not given); an unknown name is a
        ``ConfigError``."""
        unknown = sorted(set(settings) - {f.name for f in dataclasses.fields(self)})
        if unknown:
            raise ConfigError(f"unknown audit setting{'s' if len(unknown) > 1 else ''}: {', '.join(unknown)}")
        return dataclasses.replace(self, **{k: v for k, v in settings.items() if v is not None})


def split_settings(options: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """``options`` as ``(audit settings, the rest)``: those named by an ``AuditConfig`` field, and the others (a
    judge's options)."""
    names = {f.name for f in dataclasses.fields(AuditConfig)}
    return ({k: v for k, v in options.items() if k in names}, {k: v for k, v in options.items() if k not in names})
