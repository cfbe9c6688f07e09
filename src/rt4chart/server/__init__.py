"""The HTTP audit service (``rt4chart serve``): FastAPI app with ``/v1/audit``, ``/v1/triage``, ``/v1/info``,
``/healthz`` and a web page at ``/``. Needs the ``server`` extra: ``pip install 'rt4chart[server]'``."""

from ._settings import TOKEN_ENV, ServerSettings

__all__ = ["ServerSettings", "TOKEN_ENV", "build_auditor", "create_app"]


def __getattr__(name: str):  # the app needs FastAPI; importing settings alone must not
    if name in ("create_app", "build_auditor"):
        from ..errors import MissingDependencyError

        try:
            from . import _app
        except ImportError as exc:
            if getattr(exc, "name", None) in ("fastapi", "starlette", "pydantic"):
                raise MissingDependencyError(exc.name, "server") from exc
            raise
        return getattr(_app, name)
    raise AttributeError(name)
