"""The input field options of the commands that read records (``audit``, ``triage route``)."""

from __future__ import annotations

import functools
from typing import Any, Callable

import click

from .io import FieldMap

_NAMES = ("id", "context", "question", "answer")


def field_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Add ``--id-field``, ``--context-field``, ``--question-field`` and ``--answer-field``; the command receives
    them as one ``fields`` argument (a ``FieldMap``)."""

    @functools.wraps(command)
    def with_fields(*args: Any, **kw: Any) -> Any:
        return command(*args, fields=FieldMap(**{name: kw.pop(f"{name}_field") for name in _NAMES}), **kw)

    for name in reversed(_NAMES):
        with_fields = click.option(f"--{name}-field", f"{name}_field", default=name, show_default=True,
                                   help=f"input field holding the {name}")(with_fields)
    return with_fields
