"""``rt4chart diff``: compare two results files record by record, as a console table, JSON, an HTML page and a gate.

Exit codes: 0 no ``--fail-on`` rule tripped; 2 usage or input error (a missing file, a line that is not a result,
a bad rule); 3 a ``--fail-on`` rule tripped.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Optional

import click

from ..errors import ConfigError, InputError
from ._options import EXIT_OK, EXIT_RULE_TRIPPED, EXIT_USAGE, write_output

_SHOWN = 10  # newly hallucinated records listed on the console


def _parse_rules(ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> tuple[Any, ...]:
    from ..diff import parse_rule

    try:
        return tuple(parse_rule(v) for v in values)
    except ConfigError as exc:
        raise click.BadParameter(str(exc)) from None


@click.command("diff")
@click.argument("before", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.argument("after", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("-o", "--output", "html_out", type=click.Path(dir_okay=False, allow_dash=True), default=None,
              help="write the HTML page (the two runs side by side) here; - = stdout")
@click.option("--json", "json_out", type=click.Path(dir_okay=False, allow_dash=True), default=None,
              help="write the JSON document (counts, rate, claim flips, rules, one entry per id) here; - = stdout")
@click.option("--fail-on", "rules", multiple=True, callback=_parse_rules, metavar="RULE",
              help="exit with 3 when this holds (repeatable): new-hallucinations (a record newly hallucinated); "
              "rate:+X (the hallucination rate rose by more than X, e.g. rate:+0.02); flips:N (more than N claims "
              "changed label)")
@click.option("--title", default="rt4chart diff", show_default=True, help="title of the HTML page")
@click.option("--quiet", "-q", is_flag=True, help="no console summary")
def diff(before: Path, after: Path, html_out: Optional[str], json_out: Optional[str], rules: tuple[Any, ...],
         title: str, quiet: bool) -> None:
    """Compare two results files of `rt4chart audit` (BEFORE, then AFTER) record by record.

    Records are matched by id. Each gets a status (newly hallucinated, fixed, still hallucinated, needs review: no
    judge confirmed the later run's answer, not hallucinated, errored, only before, only after) and, when both runs
    have a result, a change (answer changed, label flip, claims changed, evidence changed, unchanged); claims are
    paired across the runs by text similarity.

    Exit codes: 0 no --fail-on rule tripped; 2 usage or input error (a missing file, a line that is not a result:
    the message names the file, the line and the field); 3 a --fail-on rule tripped.
    """
    from .._console import print_error, stderr_console
    from ..diff import diff_files
    from ..diff import render_diff_html
    from ..diff import check_rule

    console = stderr_console()
    try:
        result = diff_files(before, after)
    except InputError as exc:
        print_error(console, exc)
        sys.exit(EXIT_USAGE)
    checks = [check_rule(rule, result) for rule in rules]
    try:
        if json_out is not None:
            text = json.dumps(result.to_json(checks), ensure_ascii=False, indent=1) + "\n"
            if json_out == "-":
                click.echo(text, nl=False)
            else:
                Path(json_out).write_text(text, encoding="utf-8", errors="backslashreplace")
        if html_out is not None:
            write_output(html_out, render_diff_html(result, checks, title=title))
    except OSError as exc:
        print_error(console, f"cannot write the output: {exc}")
        sys.exit(EXIT_USAGE)
    if not quiet:
        _print_summary(result, checks, console)
    sys.exit(EXIT_RULE_TRIPPED if any(c.tripped for c in checks) else EXIT_OK)


def _print_summary(result: Any, checks: list, console: Any) -> None:
    from rich.markup import escape
    from rich.table import Table

    from .._console import counted, cut

    from ..diff import CHANGES, STATUSES

    table = Table(title="rt4chart diff", show_header=False)
    for name, run in (("before", result.before), ("after", result.after)):
        table.add_row(name, escape(f"{run.path}: {counted(run.results, 'result')}, {counted(run.errors, 'error line')}"
                                   + (f", judge {', '.join(run.judges)}" if run.judges else "")))
    rate = result.rate
    if rate["records"]:
        table.add_row("hallucination rate", f"{rate['before']:.1%} -> {rate['after']:.1%} "
                      f"({100 * rate['change']:+.1f} pts, {rate['records']} records in both)")
    else:
        table.add_row("hallucination rate", "no record has a result in both runs")
    counts = result.counts
    for name in STATUSES:
        table.add_row(name.replace("_", " "), str(counts[name]))
    for name in CHANGES:
        table.add_row(f"[dim]{name.replace('_', ' ')}[/dim]", str(counts[name]))
    claims = result.claims
    table.add_row("claims flipped", f"{claims['flipped']} ({claims['worse']} worse, {claims['better']} better); "
                  f"{claims['added']} added, {claims['removed']} removed")
    for check in checks:
        style = "red" if check.tripped else "green"
        table.add_row("rule", f"[{style}]{escape(check.describe())}[/{style}]")
    console.print(table)
    newly = [r for r in result.records if r.status == "newly_hallucinated"]
    for record in newly[:_SHOWN]:
        lines = [f"\n   [dim]{c.label.value}:[/dim] {escape(cut(c.text, 160))}"
                 for c in record.after.result.claims if c.label.hallucinated]
        console.print(f"[red]newly hallucinated[/red] {escape(str(record.id))}" + "".join(lines))
    if len(newly) > _SHOWN:
        console.print(f"... and {len(newly) - _SHOWN} more newly hallucinated records (see --json or -o)")
