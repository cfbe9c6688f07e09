"""``rt4chart serve``: run the HTTP audit service with uvicorn."""

from __future__ import annotations

from typing import Optional

import click

from ..errors import ConfigError, MissingDependencyError
from ..judges.registry import JUDGES
from ..server._settings import ServerSettings


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to bind (loopback by default).")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535))
@click.option("--judge", type=click.Choice(JUDGES), default="auto", show_default=True,
              help="Judge built once at startup (llm and hybrid read RT4CHART_BASE_URL / RT4CHART_MODEL).")
@click.option("-W", "--window", type=int, default=None, help="Chunk size W in sentences [default: 25].")
@click.option("-O", "--overlap", type=int, default=None, help="Chunk overlap O [default: 10].")
@click.option("--no-global", "no_global", is_flag=True, help="Skip global verification.")
@click.option("--max-body-bytes", type=int, default=None, help="Largest request body [default: 2000000].")
@click.option("--max-records", type=int, default=None, help="Most records in one request [default: 100].")
@click.option("--concurrency", type=int, default=None, help="Records audited at once per batch [default: 8].")
@click.option("--timeout", "timeout_s", type=float, default=None, help="Seconds one audit may take [default: 300].")
@click.option("--max-tokens", type=click.IntRange(min=0), default=None,
              help="LLM judge: cap on the tokens of each reply [default: 4096; 0 = no cap].")
@click.option("--no-gate", "no_gate", is_flag=True, help="Do not load the RAGScope gate (/v1/triage answers 503).")
@click.option("--no-tagger", "no_tagger", is_flag=True,
              help="Local judge: skip its MiniLM tagger (trees only; about 4x faster, lower F1).")
@click.option("--calibration", type=click.Path(exists=True, dir_okay=False), default=None,
              help="A calibration of the judge for your data (rt4chart calibrate), applied to every result.")
@click.option("--log-level", type=click.Choice(["critical", "error", "warning", "info", "debug"]), default="info",
              show_default=True)
def serve(host: str, port: int, judge: str, window: Optional[int], overlap: Optional[int], no_global: bool,
          max_body_bytes: Optional[int], max_records: Optional[int], concurrency: Optional[int],
          timeout_s: Optional[float], max_tokens: Optional[int], no_gate: bool, no_tagger: bool,
          calibration: Optional[str], log_level: str) -> None:
    """Serve POST /v1/audit, POST /v1/triage, GET /v1/info, GET /healthz and a web page at /.

    Set RT4CHART_API_TOKEN to require `Authorization: Bearer <token>` on /v1 routes. Stops gracefully on Ctrl-C or
    SIGTERM: in-flight requests finish (up to 30 s), then the judge is closed.
    """
    try:
        import uvicorn

        from ..server._app import build_auditor, create_app
    except ImportError as exc:
        # a missing extra is a usage problem (exit 2, as docs/cli.md says), with the install hint for a checkout
        missing = click.ClickException(str(MissingDependencyError(
            getattr(exc, "name", None) or "fastapi", "server",
            hint="pip install 'rt4chart[server]' (from a clone of the repository: pip install -e '.[server]')")))
        missing.exit_code = 2
        raise missing from None
    try:
        settings = ServerSettings.from_env(
            judge=judge, window=window, overlap=overlap, global_verification=False if no_global else None,
            max_body_bytes=max_body_bytes, max_records=max_records, concurrency=concurrency, timeout_s=timeout_s,
            max_tokens=max_tokens, gate=False if no_gate else None, tagger=False if no_tagger else None,
            calibration=calibration)
        auditor = build_auditor(settings)  # fail here, with a usage error, rather than inside uvicorn's startup
    except (ConfigError, MissingDependencyError) as exc:
        raise click.UsageError(str(exc)) from exc
    app = create_app(settings, auditor=auditor, owns_auditor=True)
    uvicorn.run(app, host=host, port=port, log_level=log_level, timeout_graceful_shutdown=30,
                limit_concurrency=1000, server_header=False)
