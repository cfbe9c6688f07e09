"""``rt4chart report``: turn a results JSONL file into one self-contained HTML page."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import click

from ..errors import InputError


@click.command("report")
@click.argument("results", type=click.Path(dir_okay=False, path_type=Path))
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="HTML file to write [default: RESULTS with .html].")
@click.option("--title", default="rt4chart audit report", show_default=True, help="Page title.")
def report(results: Path, output: Optional[Path], title: str) -> None:
    """Write an HTML audit report for RESULTS (the JSONL written by `rt4chart audit`).

    The page works offline: filter by label, task or hallucination, click a claim to see its label, reason,
    chunk labels and the context evidence behind it.
    """
    from . import load_results, summarize, write_html

    try:
        entries = load_results(results)
    except InputError as exc:
        raise click.ClickException(exc.reason) from exc
    out = output or results.with_suffix(".html")
    write_html(entries, out, title=title, source=results.name)
    s = summarize(entries)
    click.echo(f"wrote {out}: {s['records']} records, {s['hallucinated']} hallucinated, {s['errors']} errors"
               + (f", {s['needs_review']} need review (unverified)" if s["needs_review"] else ""),
               err=True)
