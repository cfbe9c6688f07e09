"""Options shared by the commands: the input fields of those that read records (``audit``, ``triage route``), the
judge options of those that audit (``audit``, ``eval run``, ``eval ablate``) and the cost-estimate options (``audit``,
``eval ablate``)."""

from __future__ import annotations

import dataclasses
import functools
import os
from typing import Any, Callable, Literal, Optional, Union, get_args, get_origin, get_type_hints

import click

from .._console import print_error, stderr_console
from ..audit.config import AuditConfig
from ..errors import ConfigError
from ..io import FieldMap, format_names
from ..judges.registry import JUDGES, judge_help, judge_option_fields
from ..options import option_info

#: the commands' exit codes: 0 done; 1 some records failed (their error records are in the output); 2 usage or
#: input error
EXIT_OK, EXIT_RECORD_ERRORS, EXIT_USAGE = 0, 1, 2
#: a ``--fail-on`` rule tripped (``diff``; ``audit --citations``)
EXIT_RULE_TRIPPED = 3

_NAMES = ("id", "context", "question", "answer")


def write_output(output: "str | os.PathLike[str]", text: str) -> None:
    """Write a command's result ``text`` to ``output``; ``-`` is stdout (the commands' messages go to stderr)."""
    import sys
    from pathlib import Path

    if str(output) == "-":
        sys.stdout.buffer.write(text.encode("utf-8", "backslashreplace"))
        sys.stdout.flush()
        return
    Path(output).write_text(text, encoding="utf-8", errors="backslashreplace")


class _FormatChoice(click.Choice):
    """``--format``'s choices, read from the input formats' table (``rt4chart.io.FORMATS``) whenever the option is
    parsed or its help shown: a format added to the table is a choice of every command that reads records."""

    def __init__(self) -> None:
        super().__init__(format_names())

    @property  # type: ignore[override]
    def choices(self) -> tuple[str, ...]:
        return format_names()

    @choices.setter
    def choices(self, value: Any) -> None:  # click's __init__ sets it; the table decides
        pass


def format_option(command: Callable[..., Any]) -> Callable[..., Any]:
    """``--format``: the input format of a command that reads records (default: from the file's extension, then its
    first bytes; ``rt4chart.io.detect_format``)."""
    return click.option("--format", "fmt", type=_FormatChoice(), default=None,
                        help="input format (default: from the file's extension, then its content)")(command)


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


#: the options of ``judge_options`` that set the audit itself (W, O, global verification, prefilter, LLM granularity
#: and decomposition) and the calibration made for one setting: ``eval ablate`` varies them and leaves them out
AUDIT_SETTINGS = ("window", "overlap", "global_verification", "prefilter", "granularity", "decomposition",
                  "calibration")


def audit_setting_fields() -> "dict[str, tuple[dataclasses.Field[Any], Any]]":
    """The audit's settings (``rt4chart.audit.config.AuditConfig``) by name, with their types: their flags come
    from their fields as a judge option's do."""
    hints = get_type_hints(AuditConfig)
    return {f.name: (f, hints[f.name]) for f in dataclasses.fields(AuditConfig)}


def judge_options(f: Any, *, audit_settings: bool = True) -> Any:
    """Options that choose and configure a judge; shared by commands that audit: the audit's own settings (the
    fields of ``AuditConfig``: W, O, global verification, prefilter, records in flight), decomposition,
    calibration, ``--gguf``, and a flag for each judge option that has one (``rt4chart.options.OptionInfo``; the
    judges' option dataclasses in ``rt4chart.judges.registry.JUDGE_TABLE``, read when the command is made).
    ``auditor_options`` turns the values the command receives into the options of ``build_auditor``. Without
    ``audit_settings`` the options named in ``AUDIT_SETTINGS`` are left out."""
    opts = [
        *(option_flag(name, field, hint) for name, (field, hint) in audit_setting_fields().items()),
        click.option("--decomposition", type=click.Choice(["sentence", "holistic", "rule"]), default=None,
                     help="claim decomposition (LLM: sentence or holistic; rule = offline)"),
        *(option_flag(name, field, hint) for name, (field, hint) in judge_option_fields().items()
          if option_info(field).flag and option_info(field).cli),
        click.option("--gguf", envvar="RT4CHART_GGUF", type=click.Path(dir_okay=False), default=None,
                     help="a GGUF model file: rt4chart starts llama.cpp's llama-server for it (on PATH, or "
                     "$RT4CHART_LLAMA_SERVER) on a free loopback port for the run, and stops it after; implies "
                     "--judge hybrid unless --judge llm is chosen (rt4chart audit)"),
        click.option("--calibration", type=click.Path(exists=True, dir_okay=False), default=None,
                     help="a calibration of this judge for your data (rt4chart calibrate): re-decides each answer "
                     "at its threshold and gives its calibrated probability as risk"),
    ]
    if not audit_settings:
        opts = [opt for opt in opts if _option_name(opt) not in AUDIT_SETTINGS]
    opts.insert(0, click.option("--judge", "judge_name", type=click.Choice(JUDGES), default="auto",
                                show_default=True, help=judge_help(only={_option_name(opt) for opt in opts})))
    for opt in reversed(opts):
        f = opt(f)
    return f


def option_flag(name: str, field: Any, hint: Any) -> Any:
    """The ``click.option`` of a judge option: its flag, help, type (a switch that sets the field's opposite of its
    default, a choice of a ``Literal``, an existing path, a number in its range) and environment variable, all
    from the field (``rt4chart.options.option_info``); ``hint`` is the field's type. Unset, it is None (not given)."""
    info = option_info(field)
    base = _given_type(hint)
    kw: dict[str, Any] = {"default": None, "help": info.flag_help or info.help}
    if base is bool:
        kw.update(is_flag=True, flag_value=not field.default)
    elif get_origin(base) is Literal:
        kw["type"] = click.Choice(get_args(base))
    elif info.path:
        kw["type"] = click.Path(exists=True, dir_okay=info.path == "dir", file_okay=info.path == "file")
    elif base in (int, float):
        ranged = info.low is not None or info.high is not None
        kw["type"] = ({int: click.IntRange, float: click.FloatRange}[base](info.low, info.high) if ranged else base)
    if info.envvar:
        kw["envvar"] = info.envvar
    if info.metavar:
        kw["metavar"] = info.metavar
    if info.parse:
        kw["callback"] = functools.partial(_parsed, info.parse)
    return click.option(info.flag, *([info.short] if info.short else []), name, **kw)


def judge_option_flags(*names: str) -> Callable[[Any], Any]:
    """The flags of the judge options ``names`` (``option_flag``), as one decorator: for a command that offers some
    of them (``diagnose``: the endpoint's)."""
    fields = judge_option_fields()

    def apply(f: Any) -> Any:
        for name in reversed(names):
            f = option_flag(name, *fields[name])(f)
        return f

    return apply


def _given_type(hint: Any) -> Any:
    """The type a user gives for ``hint``: ``Optional[X]`` is X; a union of a string and a path is a string."""
    if get_origin(hint) is Union:
        args = [a for a in get_args(hint) if a is not type(None)]
        return args[0] if len(args) == 1 else str
    return hint


def _parsed(parse: Callable[[str], tuple[Any, bool]], ctx: click.Context, param: click.Parameter,
            value: Optional[str]) -> Any:
    """An option's value through its ``parse`` (``OptionInfo.parse``): an old spelling is taken with one
    deprecation note on stderr; a value it refuses is a usage error with its message."""
    if value is None:
        return None
    try:
        parsed, deprecated = parse(value)
    except ConfigError as e:
        raise click.BadParameter(str(e), ctx=ctx, param=param) from None
    if deprecated:
        flag = max(param.opts, key=len)
        print_error(stderr_console(), f"{flag} {value} is the old spelling of {parsed}; pass {flag} {parsed} "
                    "(the old spelling will be removed)", label="deprecated", style="yellow")
    return parsed


def _option_name(decorator: Any) -> str:
    """The parameter name of a ``click.option`` decorator (applied to a throwaway function)."""
    param = decorator(lambda: None).__click_params__[-1]
    return param.name


def auditor_options(judge_kw: dict[str, Any], env_options: dict[str, Any]) -> dict[str, Any]:
    """The ``build_auditor`` options for the values of ``judge_options`` (``judge_name``, the audit's settings and
    the judge's options by field name, as the command received them), over ``env_options``: the LLM settings the
    command's edge read from environment variables (``rt4chart.judges.llm.llm_env(os.environ)``). A flag given wins
    over the environment; flags left unset (None) are left out."""
    kw = dict(judge_kw)
    judge = kw.pop("judge_name", "auto")
    if kw.pop("gguf", None) is not None:
        raise click.UsageError("--gguf (or RT4CHART_GGUF) starts a model server for rt4chart audit and "
                               "calibrate --card only; for this command run llama-server yourself and pass --base-url")
    return {**env_options, "judge": judge, **{k: v for k, v in kw.items() if v is not None}}


def estimate_options(f: Any) -> Any:
    """``--estimate``, ``--tokenizer`` and ``--reasoning-tokens``: estimate the LLM judge's calls, tokens and cost
    without calling a model (``rt4chart.judges.estimate``, which holds the default assumptions)."""
    opts = [
        click.option("--estimate", is_flag=True,
                     help="estimate the LLM judge's calls, prompt and completion tokens and cost without calling any "
                     "model (needs --judge llm and --model; writes no audit results)"),
        click.option("--tokenizer", "tokenizer_file", type=click.Path(dir_okay=False), default=None,
                     help="--estimate: count tokens with this tokenizers file (a tokenizer.json; default: tiktoken "
                     "when installed, else characters / 4, as the estimate says)"),
        click.option("--reasoning-tokens", type=click.IntRange(min=0), default=None,
                     help="--estimate: tokens assumed for each verdict's reasoning (default: the estimate's "
                     "documented assumption, printed with it)"),
    ]
    for opt in reversed(opts):
        f = opt(f)
    return f


def data_dir() -> Optional[str]:
    """``$RT4CHART_DATA_DIR``: where the bundled datasets are looked for before ``shared/data``."""
    from ..eval.datasets import ENV_DATA_DIR

    return os.environ.get(ENV_DATA_DIR) or None


def load_records(dataset: str, split: str, task: Optional[str], data_path: Optional[str], limit: Optional[int]) -> list:
    """The records of an evaluation dataset (``rt4chart.eval.datasets.load_dataset``), the first ``limit`` of them."""
    from ..eval.datasets import load_dataset
    from ..eval.runner import limit_records

    return limit_records(load_dataset(dataset, split, task=task, path=data_path, data_dir=data_dir()), limit)
