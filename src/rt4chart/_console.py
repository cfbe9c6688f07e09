"""Messages the commands print on the terminal (rich): one console factory, errors, cut text, counted nouns, and
a reader that closed the pipe."""

from __future__ import annotations

import os
import sys
from typing import Any, NoReturn

#: the width of a console that is not a terminal (piped, redirected, a test runner): wide enough that rich wraps no
#: line of ours, so every message stays one line for grep and the like
PIPED_WIDTH = 100_000


def stderr_console() -> Any:
    """The commands' console on stderr: the terminal's width on a terminal; piped or redirected, lines are not
    wrapped (``soft_wrap``, and tables as wide as their content)."""
    from rich.console import Console

    console = Console(stderr=True)
    if console.is_terminal:
        return console
    return Console(stderr=True, width=PIPED_WIDTH, soft_wrap=True)


def print_error(console: Any, message: object, *, label: str = "error", style: str = "red", **options: Any) -> None:
    """Print ``label: message`` with only the label styled. The message (an exception's text, a record's error, a
    path) is printed as written: rich never reads it as markup, so "[start, end]" stays in it."""
    from rich.text import Text

    console.print(Text.assemble((f"{label}:", style), " ", str(message)), highlight=False, **options)


def cut(text: str, width: int) -> str:
    """``text`` on one line (runs of white space as one space), cut to at most ``width`` characters with "…" where
    it was cut."""
    text = " ".join(text.split())
    return text if len(text) <= width else text[:max(width - 1, 0)].rstrip() + "…"


def counted(n: int, noun: str, plural: str = "") -> str:
    """``1 claim``, ``0 claims``, ``2 claims`` (``plural``: the plural when it is not ``noun + "s"``)."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


def closed_pipe() -> NoReturn:
    """End the command quietly (exit 0) because the reader of stdout closed it (``rt4chart ... | head``): what was
    written up to then was flushed line by line; stdout now points at the null device, so that the interpreter's
    last flush does not report the broken pipe either."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # a stdout without a file descriptor (a test runner's)
        pass
    sys.exit(0)


_STYLE = {"entailed": "green", "contradicted": "red", "baseless": "yellow", "unverified": "magenta"}
#: the longest claim, reason or evidence text shown on a console wider than this (a pipe's is unbounded)
_MOST = 240


def record_name(line: dict) -> str:
    """A results line's record as the console names it: its id, else its number in the input (``#1`` is the
    first record, as line numbers count from 1)."""
    rid = line.get("id")
    if rid is not None:
        return str(rid)
    index = line.get("index")
    return f"#{index + 1}" if isinstance(index, int) else "#?"


def print_records(lines: Any, console: Any) -> None:
    """A readable digest of a small run (its results lines, as dicts): each answer's label and its claims, with the
    reasons of non-entailed ones and the first evidence; long text is cut to the console's width with "…"."""
    from rich.markup import escape

    room = max(min(console.width, _MOST), 40)
    for rec in lines:
        name = escape(record_name(rec))
        if "error" in rec:
            console.print(f"[bold]{name}[/bold]  [red]error[/red] {escape(cut(rec['error']['message'], room))}")
            continue
        label = rec["label"]
        console.print(f"[bold]{name}[/bold]  [{_STYLE[label]}]{label}[/{_STYLE[label]}]"
                      f"  ({counted(len(rec['claims']), 'claim')})")
        checked = {c["claim"]: c for c in (rec.get("citation_check") or {}).get("claims", ())}
        for c in rec["claims"]:
            style = _STYLE[c["label"]]
            mark = "✓" if c["label"] == "entailed" else "✗"
            console.print(f"   [{style}]{mark} {c['label']:<12}[/{style}] {escape(cut(c['text'], room - 17))}")
            if c["label"] != "entailed" and c.get("reason"):
                console.print(f"     [dim]{escape(cut(c['reason'], room - 5))}[/dim]")
            for ev in c["evidence"][:1]:
                where = f"evidence (sentence {', '.join(map(str, ev['sentence_ids']))}):"
                console.print(f"     [dim]{where}[/dim] {escape(cut(ev['text'], room - 6 - len(where)))}")
            cite = checked.get(c["index"])
            if cite and cite["status"] not in ("supported", "not_needed"):
                cites = ", ".join(map(str, cite["passages"])) or "none"
                held = ", ".join(map(str, cite.get("evidence_passages", ())))
                where = f"cites passage {cites}; the evidence is in passage {held}" if held else \
                    f"cites passage {cites}"
                console.print(f"     [yellow]citation {cite['status']}[/yellow] [dim]({where}): "
                              f"{escape(cut(cite['reason'], room - 60))}[/dim]")
