"""Option fields: a dataclass field that says, beside its default, what the option means (``help``), how the command
line spells it (``flag``) and whether it changes verdicts (``verdict``). A judge's option dataclass is the one place
its options are defined: the command line's flags (``rt4chart.cli``), the server's schema, the refusal of another
judge's option and the fingerprint (``rt4chart.judges.registry``) are read from these fields.

``option_info`` reads a field's metadata back; a plain dataclass field (a third-party judge's) has a help of "" and
no flag, and changes verdicts.
"""

from __future__ import annotations

import dataclasses
from dataclasses import Field
from typing import Any, Callable, Optional

__all__ = ["OptionInfo", "option", "option_info"]

_KEY = "rt4chart.option"


@dataclasses.dataclass(frozen=True)
class OptionInfo:
    """What an option field says about itself.

    ``help``: the option in words (the command line's help and the server schema's description). ``flag``: its
    command-line flag (``--no-tagger``; None: no flag of its own, the field name names it in messages). ``cli``:
    whether the audit commands get the flag from the field (False: a command defines it, as for ``--decomposition``,
    an audit setting that the LLM judge also reads). ``verdict``: False for options that change how a model is
    reached, paced or paid for, not what is decided (not in the fingerprint). ``shared``: a resource every judge may
    be given (another judge ignores it instead of refusing it). ``envvar``: the environment variable the command line
    reads for it. ``path``: ``"file"`` or ``"dir"`` for an existing path. ``low``/``high``: the range of a number.
    ``parse``: turns the given text into ``(value, deprecated)`` (raising ``ConfigError``); a deprecated spelling is
    taken with a note.
    ``metavar``: the value's name in the help. ``flag_help``: the flag's help where it differs from the option's (a
    switch that turns the option off). ``short``: a one-letter flag beside ``flag`` (``-W``)."""

    help: str = ""
    flag: Optional[str] = None
    cli: bool = True
    verdict: bool = True
    shared: bool = False
    envvar: Optional[str] = None
    path: Optional[str] = None
    low: Optional[float] = None
    high: Optional[float] = None
    parse: Optional[Callable[[str], Any]] = None
    metavar: Optional[str] = None
    flag_help: Optional[str] = None
    short: Optional[str] = None

    def named(self, name: str) -> str:
        """The option as a user gave it: its flag, or the field name where it has none."""
        return self.flag or name


def option(default: Any = None, help: str = "", *, flag: Optional[str] = "", repr: bool = True, **info: Any) -> Any:
    """A dataclass field with default ``default`` (``dataclasses.MISSING``: none) and ``OptionInfo(help, flag,
    **info)``; ``flag`` "" (the default) spells the field name as a flag (``model_dir`` -> ``--model-dir``), None
    gives the option no flag. ``repr``: as ``dataclasses.field``'s (False for a secret)."""
    return dataclasses.field(default=default, repr=repr, metadata={_KEY: OptionInfo(help=help, flag=flag, **info)})


def option_info(f: "Field[Any]") -> OptionInfo:
    """The ``OptionInfo`` of a dataclass field (a field made without ``option``: no help, no flag)."""
    info = f.metadata.get(_KEY)
    if info is None:
        return OptionInfo()
    if info.flag == "":
        return dataclasses.replace(info, flag="--" + f.name.replace("_", "-"))
    return info
