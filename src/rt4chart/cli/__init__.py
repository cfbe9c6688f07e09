"""The ``rt4chart`` command line: ``audit``, ``triage``, ``diagnose``, ``eval``, ``report``, ``diff``, ``serve``,
``calibrate``.

One module of this package a command (``audit``, ``eval``, ``triage``, ...) and the options they share
(``_options``); library packages import no click. Commands other than ``audit`` are imported only when used, so
``rt4chart audit`` starts fast and a missing optional extra only affects the command that needs it.

Exit codes: 0 every record audited; 1 some records failed (their error records are in the output) or some LLM
calls failed (their records' ``errors`` say so); 2 usage or input error (bad option, unreadable input file, an LLM
endpoint that rejects the request or cannot be reached); 3 a ``--fail-on`` rule tripped (``diff``; ``audit
--citations``, when no record failed).
"""

from __future__ import annotations

import importlib
from typing import Any, Optional

import click

from .._version import __version__
from ._options import EXIT_OK, EXIT_RECORD_ERRORS, EXIT_USAGE
from .audit import audit, build_auditor

__all__ = ["EXIT_OK", "EXIT_RECORD_ERRORS", "EXIT_USAGE", "build_auditor", "main"]

_LAZY = {
    "eval": ("rt4chart.cli.eval", "eval_group", "measure detectors on RAGTruth and other benchmarks"),
    "triage": ("rt4chart.cli.triage", "triage_group", "RAGScope risk gate: score, route and evaluate"),
    "diagnose": ("rt4chart.cli.diagnose", "diagnose", "facet-level diagnostics of why an answer failed"),
    "report": ("rt4chart.cli.report", "report", "write a self-contained HTML report of audit results"),
    "diff": ("rt4chart.cli.diff", "diff", "compare two runs of results; --fail-on gates CI (exit code 3)"),
    "serve": ("rt4chart.cli.serve", "serve", "run the HTTP audit service with a web page"),
    "calibrate": ("rt4chart.cli.calibrate", "calibrate", "fit a judge's calibration on your labelled answers"),
}


class _LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted([*super().list_commands(ctx), *_LAZY])

    def get_command(self, ctx: click.Context, name: str) -> Optional[click.Command]:
        if name in _LAZY:
            module, attr, help_text = _LAZY[name]
            try:
                return getattr(importlib.import_module(module), attr)
            except (ImportError, AttributeError) as exc:
                return _unavailable(name, help_text, exc)
        return super().get_command(ctx, name)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except BrokenPipeError:  # `rt4chart ... | head`: the reader of stdout took what it wanted
            from .._console import closed_pipe

            closed_pipe()


def _unavailable(name: str, help_text: str, exc: Exception) -> click.Command:
    @click.command(name=name, help=f"{help_text} (unavailable: {exc})",
                   context_settings={"ignore_unknown_options": True, "allow_extra_args": True})
    def _cmd() -> None:
        raise click.UsageError(f"`rt4chart {name}` is not available in this installation: {exc}")

    return _cmd


@click.group(cls=_LazyGroup)
@click.version_option(__version__, prog_name="rt4chart")
def main() -> None:
    """Claim-level, evidence-grounded hallucination auditing for RAG answers."""


main.add_command(audit)

