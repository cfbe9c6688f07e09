"""``rt4chart report``: turn a results JSONL file into one self-contained HTML page."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import click

from ..errors import InputError
from ._options import EXIT_USAGE, write_output  # the results file cannot be read, or is not results


@click.command("report")
@click.argument("results", type=click.Path(dir_okay=False, path_type=Path))
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="HTML file to write [default: RESULTS with .html].")
@click.option("--title", default="rt4chart audit report", show_default=True, help="Page title.")
def report(results: Path, output: Optional[Path], title: str) -> None:
    """Write an HTML audit report for RESULTS (the JSONL written by `rt4chart audit`). Exit code 2 when RESULTS
    cannot be read or is not results (an input file, say: run `rt4chart audit` first).

    The page works offline: filter by label, task or hallucination, click a claim to see its label, reason,
    chunk labels and the context evidence behind it.
    """
    from .._console import counted, print_error, stderr_console
    from ..report import load_results, render_html, summarize, write_html

    try:
        entries = load_results(results)
    except InputError as exc:
        print_error(stderr_console(), exc.reason)
        sys.exit(EXIT_USAGE)
    if output is not None and str(output) == "-":  # "-o -": the page on stdout
        write_output("-", render_html(entries, title=title, source=results.name))
        return
    out = output or results.with_suffix(".html")
    write_html(entries, out, title=title, source=results.name)
    s = summarize(entries)
    click.echo(f"wrote {out}: {counted(s['records'], 'record')}, {s['hallucinated']} hallucinated, "
               f"{counted(s['errors'], 'error')}"
               + (f", {s['needs_review']} need review (unverified)" if s["needs_review"] else ""), err=True)
