"""The rt4chart exception tree. Every error the package raises on purpose derives from ``Rt4chartError``::

    Rt4chartError
    ├── ConfigError            bad option values (e.g. overlap >= window), unknown judge names
    ├── InputError             a record or input file that cannot be audited (carries record id and field)
    ├── JudgeError             a judge could not produce a usable verdict
    │   └── BackendError       the LLM backend gave up (carries raw reply, attempts, usage)
    ├── RelationError          the retromorphic relation does not hold for a trace
    ├── HallucinationError     an answer was audited as hallucinated where the caller asked to stop on one
    ├── PhoenixError           a Phoenix server cannot be reached or refused a request (audit --from phoenix)
    ├── MlflowError            an MLflow tracking server or store cannot be read or refused a request (--from mlflow)
    └── MissingDependencyError an optional extra is not installed (message says which pip extra)

A record that cannot be audited is reported with the ``kind`` of what failed (``error_kind``): ``input`` (the
record), ``backend`` (the LLM endpoint gave up), ``judge`` (a judge or decomposer produced nothing usable), and
``internal`` only for an unexpected exception (a bug).
"""

from __future__ import annotations

from typing import Any, Optional


class Rt4chartError(Exception):
    """Root of every error raised by rt4chart."""


class ConfigError(Rt4chartError, ValueError):
    """An option has an invalid value."""


class InputError(Rt4chartError, ValueError):
    """A record cannot be audited. ``record`` names the record (id or position) and ``field`` the field."""

    def __init__(self, message: str, *, record: Any = None, field: Optional[str] = None) -> None:
        self.record = record
        self.field = field
        where = []
        if record is not None:
            where.append(f"record {record!r}")
        if field is not None:
            where.append(f"field {field!r}")
        super().__init__(f"{', '.join(where)}: {message}" if where else message)
        self.reason = message


class JudgeError(Rt4chartError):
    """A judge failed to produce a verdict."""


class BackendError(JudgeError):
    """The chat backend gave up after its retries."""

    def __init__(
        self,
        message: str,
        *,
        raw: Optional[str] = None,
        attempts: int = 0,
        usage: Any = None,
        status: Optional[int] = None,
    ) -> None:
        super().__init__(message)
        self.raw = raw
        self.attempts = attempts
        self.usage = usage
        self.status = status

    @property
    def is_config_error(self) -> bool:
        """True for a 4xx reply that no retry can fix (bad request, key, permission, model): not 408/409/425/429."""
        return self.status is not None and self.status < 500 and self.status not in (408, 409, 425, 429)


class RelationError(Rt4chartError):
    """A verification trace violates the retromorphic relation (evidence not in C, or baseless with evidence)."""


class HallucinationError(Rt4chartError):
    """An answer was audited as hallucinated where the caller asked to stop on one (the LangChain callback
    handler's ``raise_on_hallucination``). ``result`` is the ``AuditResult``; the message holds its claim table."""

    def __init__(self, message: str, *, result: Any) -> None:
        super().__init__(message)
        self.result = result


class PhoenixError(Rt4chartError):
    """A Phoenix server (``rt4chart.integrations.phoenix``) cannot be reached, is not Phoenix, or refused a
    request; the message names the server and what it answered."""


class MlflowError(Rt4chartError):
    """An MLflow tracking server or store (``rt4chart.integrations.mlflow``) cannot be reached, has no such
    experiment, or refused a request; the message names the server and what it answered."""


class MissingDependencyError(Rt4chartError, ImportError):
    """An optional dependency is missing; the message names the extra to install."""

    def __init__(self, package: str, extra: str, *, hint: Optional[str] = None) -> None:
        super().__init__(f"{package} is not installed; install it with: "
                         + (hint or f"pip install 'rt4chart[{extra}]'"))
        self.package = package
        self.extra = extra


def error_kind(exc: BaseException) -> str:
    """What failed, for a record's error: ``input``, ``backend``, ``judge``, else ``internal`` (an unexpected
    exception)."""
    if isinstance(exc, InputError):
        return "input"
    if isinstance(exc, BackendError):
        return "backend"
    if isinstance(exc, JudgeError):
        return "judge"
    return "internal"
