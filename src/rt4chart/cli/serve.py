"""``rt4chart serve``: run the HTTP audit service with uvicorn."""

from __future__ import annotations

from typing import Any, Optional

import click

from ..errors import ConfigError, MissingDependencyError
from ..server import ServerSettings
from ._options import auditor_options, judge_options


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to bind (loopback by default).")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535))
@click.option("--max-body-bytes", type=click.IntRange(min=1), default=None,
              help="Largest request body [default: 2000000].")
@click.option("--max-records", type=click.IntRange(min=1), default=None,
              help="Most records in one request [default: 100].")
@click.option("--audit-timeout", "audit_timeout_s", type=click.FloatRange(min=0, min_open=True), default=None,
              help="Seconds one record's audit may take before the request answers 504 [default: 300].")
@click.option("--no-gate", "no_gate", is_flag=True, help="Do not load the RAGScope gate (/v1/triage answers 503).")
@click.option("--log-level", type=click.Choice(["critical", "error", "warning", "info", "debug"]), default="info",
              show_default=True)
@judge_options
def serve(host: str, port: int, max_body_bytes: Optional[int], max_records: Optional[int],
          audit_timeout_s: Optional[float], no_gate: bool, log_level: str, **judge_kw: Any) -> None:
    """Serve POST /v1/audit, POST /v1/triage, GET /v1/info, GET /healthz and a web page at /.

    The judge is built once at startup from the same options as `rt4chart audit` (its flags, and the LLM endpoint's
    RT4CHART_BASE_URL / RT4CHART_MODEL / OPENAI_API_KEY). Set RT4CHART_API_TOKEN to require
    `Authorization: Bearer <token>` on /v1 routes. Stops gracefully on Ctrl-C or SIGTERM: in-flight requests finish
    (up to 30 s), then the judge is closed.
    """
    try:
        import uvicorn

        import fastapi  # noqa: F401  (the server extra)

        from ..server import build_auditor, create_app
    except ImportError as exc:
        # a missing extra is a usage problem (exit 2, as docs/cli.md says), with the install hint for a checkout
        missing = click.ClickException(str(MissingDependencyError(
            getattr(exc, "name", None) or "fastapi", "server",
            hint="pip install 'rt4chart[server]' (from a clone of the repository: pip install -e '.[server]')")))
        missing.exit_code = 2
        raise missing from None
    options = auditor_options(judge_kw, {})  # ServerSettings.from_env reads the LLM's environment itself
    try:
        settings = ServerSettings.from_env(
            max_body_bytes=max_body_bytes, max_records=max_records, audit_timeout_s=audit_timeout_s,
            gate=False if no_gate else None, **options)
        auditor = build_auditor(settings)  # fail here, with a usage error, rather than inside uvicorn's startup
    except (ConfigError, MissingDependencyError) as exc:
        raise click.UsageError(str(exc)) from exc
    app = create_app(settings, auditor=auditor, owns_auditor=True)
    uvicorn.run(app, host=host, port=port, log_level=log_level, timeout_graceful_shutdown=30,
                limit_concurrency=1000, server_header=False)
