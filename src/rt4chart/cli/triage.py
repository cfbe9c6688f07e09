"""``rt4chart triage``: score and route records with a RAGScope gate, and evaluate the gate.

    rt4chart triage INPUT --review 0.1 --accept 0.5 [-o routes.jsonl]   # same as: rt4chart triage route INPUT ...
    rt4chart triage eval --split test --json gate.json --markdown gate.md   # the RAGScope protocol on RAGTruth

Routing writes one JSON line per input record: ``{"id", "risk", "route"}`` with route ``review`` (the riskiest
``--review`` fraction), ``accept`` (the safest ``--accept`` fraction) or ``verify`` (everything else, for the
judge). A record that cannot be read gets ``"route": "verify"``, ``"risk": null`` and its ``error``: it is never
accepted unread. Exit codes: 0 all records scored, 1 some records invalid, 2 usage error (for ``eval``: data
not found).
"""

from __future__ import annotations

import json
import os
import sys
from collections import Counter
from pathlib import Path
from typing import Any, Optional

import click

from ..errors import Rt4chartError
from ._options import EXIT_OK, EXIT_RECORD_ERRORS, EXIT_USAGE, field_options, format_option


class TriageGroup(click.Group):
    """A group whose first argument, when it is not a subcommand, is the input of ``route``."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h"):
            args = ["route", *args]
        return super().parse_args(ctx, args)


@click.group("triage", cls=TriageGroup)
def triage_group() -> None:
    """RAGScope risk gate: score and route records (``route``, the default), or evaluate the gate (``eval``)."""


@triage_group.command("route")
@click.argument("input_path", metavar="INPUT", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--review", type=click.FloatRange(0.0, 1.0), default=0.0, show_default=True,
              help="fraction of highest-risk records routed to review")
@click.option("--accept", type=click.FloatRange(0.0, 1.0), default=0.0, show_default=True,
              help="fraction of lowest-risk records accepted without the judge. The gate reads words only: an "
              "answer that reuses the context's words and changes what they say (a negation, another number or "
              "name) scores as low as a faithful one; on short everyday answers it accepts contradictions more "
              "often than faithful answers (docs/results/gate.md)")
@click.option("--gate", "gate_spec", default="default", show_default=True,
              help="'default' (shipped RAGScope-E), 'z' (training-free uncovered-token) or a saved gate .npz")
@click.option("-o", "--output", type=click.Path(dir_okay=False, allow_dash=True), default="-", show_default=True,
              help="JSONL output file ('-' = stdout)")
@format_option
@field_options
def route_command(input_path: str, review: float, accept: float, gate_spec: str, output: str,
                  fmt: Optional[str], fields: Any) -> None:
    """Score INPUT records with the gate and write a risk and a route per record."""
    from ..io import read_rows, writes_over_input
    from ..gate.triage import load_gate_spec, triage_rows

    if writes_over_input(input_path, output):
        raise click.UsageError(f"-o/--output is the input file {input_path}: the results would overwrite it")
    try:
        gate = load_gate_spec(gate_spec)
        rows = list(read_rows(input_path, fmt))
    except Rt4chartError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(EXIT_USAGE)
    out = triage_rows(rows, gate, review=review, accept=accept, fields=fields)
    stream = sys.stdout if output == "-" else open(output, "w", encoding="utf-8")
    try:
        for item in out:
            stream.write(json.dumps(item, ensure_ascii=False) + "\n")
    finally:
        if stream is not sys.stdout:
            stream.close()
    counts = Counter(item["route"] for item in out)
    errors = sum("error" in item for item in out)
    click.echo(
        f"{len(out)} records: " + ", ".join(f"{k} {counts.get(k, 0)}" for k in ("accept", "verify", "review"))
        + (f" ({errors} invalid, sent to verify)" if errors else ""),
        err=True,
    )
    sys.exit(EXIT_RECORD_ERRORS if errors else EXIT_OK)


@triage_group.command("eval")
@click.option("--split", default="test", show_default=True, help="RAGTruth split to evaluate on")
@click.option("--data-root", default=None, help="folder holding ragtruth/ (default: RT4CHART_DATA_DIR or shared/data)")
@click.option("--n-boot", type=click.IntRange(10), default=1000, show_default=True, help="group-bootstrap resamples")
@click.option("--seed", type=int, default=13, show_default=True, help="fold and bootstrap seed")
@click.option("--seeds", "n_seeds", type=click.IntRange(2), default=10, show_default=True,
              help="repetitions of the target-only calibration curve")
@click.option("--transfer/--no-transfer", default=True, show_default=True, help="leave-one-task-out study")
@click.option("--calibration/--no-calibration", default=True, show_default=True,
              help="target-only calibration curve (k = 25/50/100/200 labels per task)")
@click.option("--json", "json_path", type=click.Path(dir_okay=False), default=None, help="write all results as JSON")
@click.option("--markdown", "md_path", type=click.Path(dir_okay=False), default=None, help="write the tables")
def eval_command(split: str, data_root: Optional[str], n_boot: int, seed: int, n_seeds: int, transfer: bool,
                 calibration: bool, json_path: Optional[str], md_path: Optional[str]) -> None:
    """Run the RAGScope protocol (grouped CV, intervals, operating points, transfer) on RAGTruth."""
    from ..eval.datasets import ENV_DATA_DIR
    from ..eval.studies.ragscope import data, markdown, protocol

    try:
        loaded = data.load_ragtruth_data(split, root=data_root, data_dir=os.environ.get(ENV_DATA_DIR) or None)
    except Rt4chartError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(EXIT_USAGE)
    result = protocol.run_protocol(loaded, n_boot=n_boot, seed=seed, transfer=transfer, calibration=calibration,
                                   n_seeds=n_seeds, log=lambda msg: click.echo(f"[triage eval] {msg}", err=True))
    result["split"] = split
    md = markdown.render_markdown(result)
    if json_path:
        Path(json_path).write_text(json.dumps(result, indent=1), encoding="utf-8")
    if md_path:
        Path(md_path).write_text(md, encoding="utf-8")
    click.echo(md)
