"""``rt4chart triage eval``: run the RAGScope protocol on RAGTruth and write its tables.

    rt4chart triage eval --split test --json gate.json --markdown gate.md

The product gate's commands (``triage route``) live in :mod:`rt4chart.gate.cli`; this module adds ``eval``, the paper
reproduction, to them and is what ``rt4chart triage`` loads, so the gate never imports eval. Exit codes: 0 done,
2 usage error (data not found).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Optional

import click

from rt4chart.errors import Rt4chartError
from rt4chart.gate import cli as gate_cli

EXIT_USAGE = 2


@click.command("eval")
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
    from ..datasets import ENV_DATA_DIR
    from . import data, markdown, protocol

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


#: ``rt4chart triage``: the gate's commands and ``eval``.
triage_group = gate_cli.TriageGroup(
    name="triage",
    commands={**gate_cli.triage_group.commands, "eval": eval_command},
    help="RAGScope risk gate: score and route records (default), or evaluate the gate (``eval``).",
)
