"""Messages the commands print on the terminal (rich)."""

from __future__ import annotations

from typing import Any


def print_error(console: Any, message: object, *, label: str = "error", style: str = "red", **options: Any) -> None:
    """Print ``label: message`` with only the label styled. The message (an exception's text, a record's error, a
    path) is printed as written: rich never reads it as markup, so "[start, end]" stays in it."""
    from rich.text import Text

    console.print(Text.assemble((f"{label}:", style), " ", str(message)), highlight=False, **options)
