"""Options shared by the commands: the input fields of those that read records (``audit``, ``triage route``), the
judge options of those that audit (``audit``, ``eval run``, ``eval ablate``) and the cost-estimate options (``audit``,
``eval ablate``)."""

from __future__ import annotations

import functools
import os
from typing import Any, Callable, Optional

import click

from .._console import print_error, stderr_console
from ..errors import ConfigError
from ..io import FieldMap
from ..judges.registry import JUDGES, judge_help
from ..llm.prompt_versions import DEFAULT_LLM, PROMPT_VERSIONS, lookup, names

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
AUDIT_SETTINGS = ("window", "overlap", "no_global", "prefilter", "granularity", "decomposition", "calibration")


def judge_options(f: Any, *, audit_settings: bool = True) -> Any:
    """Options that choose and configure a judge; shared by commands that audit. ``auditor_options`` turns the
    values the command receives into the options of ``rt4chart.judges.registry.build_auditor``. Without
    ``audit_settings`` the options named in ``AUDIT_SETTINGS`` are left out."""
    opts = [
        click.option("--window", "-W", type=int, default=25, show_default=True, help="chunk size W in sentences"),
        click.option("--overlap", "-O", type=int, default=10, show_default=True, help="chunk overlap O (< W)"),
        click.option("--no-global", is_flag=True, help="skip global verification (local labels are final)"),
        click.option("--prefilter", is_flag=True, help="skip chunks sharing no content word with a claim"),
        click.option("--concurrency", type=int, default=8, show_default=True, help="records/calls in flight"),
        click.option("--base-url", envvar="RT4CHART_BASE_URL", default=None, help="OpenAI-compatible endpoint"),
        click.option("--model", envvar="RT4CHART_MODEL", default=None, help="model name for --judge llm"),
        click.option("--api-key", default=None, help="API key (default: $OPENAI_API_KEY)"),
        click.option("--rpm", type=int, default=None, help="requests-per-minute limit for the LLM"),
        click.option("--granularity", type=click.Choice(["per-claim", "batched"]), default=None,
                     help="LLM calls per claim (paper-exact) or per chunk/answer (hybrid: per answer by default)"),
        click.option("--prompt-version", default=None, callback=_prompt_version,
                     metavar="[" + "|".join(names("llm")) + "]",
                     help="LLM judge's prompts: " + "; ".join(
                         f"{n}{' (default)' if n == DEFAULT_LLM else ''}: {PROMPT_VERSIONS[n].summary}"
                         for n in names("llm")) + ". The old spellings v2 and v3 still work, with a deprecation note"),
        click.option("--decomposition", type=click.Choice(["sentence", "holistic", "rule"]), default=None,
                     help="claim decomposition (LLM: sentence or holistic; rule = offline)"),
        click.option("--no-cache", is_flag=True, help="do not use the LLM response cache"),
        click.option("--price-in", type=float, default=None, help="USD per million prompt tokens"),
        click.option("--price-out", type=float, default=None, help="USD per million completion tokens"),
        click.option("--timeout", type=float, default=None, help="LLM request timeout in seconds"),
        click.option("--max-tokens", type=click.IntRange(min=0), default=None,
                     help="cap on the tokens of each LLM reply (default 4096; 0 = no cap)"),
        click.option("--threshold", type=float, default=None,
                     help="claim threshold of the local judge (default: calibrated, in its model card)"),
        click.option("--no-tagger", is_flag=True,
                     help="local judge: skip its MiniLM tagger (trees only; about 4x faster, lower F1)"),
        click.option("--gguf", envvar="RT4CHART_GGUF", type=click.Path(dir_okay=False), default=None,
                     help="a GGUF model file: rt4chart starts llama.cpp's llama-server for it (on PATH, or "
                     "$RT4CHART_LLAMA_SERVER) on a free loopback port for the run, and stops it after; implies "
                     "--judge hybrid unless --judge llm is chosen (rt4chart audit)"),
        click.option("--floor", type=click.FloatRange(0, 1), default=None,
                     help="hybrid judge: claims the local judge scores under this are not sent to the LLM (default "
                     "0: every claim is asked)"),
        click.option("--combination", type=click.Path(exists=True, dir_okay=False), default=None,
                     help="hybrid judge: a combination card refitted for your model (rt4chart calibrate LABELLED "
                     "--judge hybrid --card -o CARD; default: the shipped one, fitted for "
                     "Qwen2.5-Coder-1.5B-Instruct Q4_K_M)"),
        click.option("--model-dir", type=click.Path(exists=True, file_okay=False), default=None,
                     help="local judge: a models folder you trained (the training scripts' --out-dir; default: the "
                     "shipped one)"),
        click.option("--calibration", type=click.Path(exists=True, dir_okay=False), default=None,
                     help="a calibration of this judge for your data (rt4chart calibrate): re-decides each answer "
                     "at its threshold and gives its calibrated probability as risk"),
    ]
    if not audit_settings:
        opts = [opt for opt in opts if _option_name(opt) not in AUDIT_SETTINGS]
    # the judges and the flags of each one's own options, from the registry (rt4chart.judges.registry.JUDGE_TABLE)
    flags = dict(_option_flag(opt) for opt in opts)
    opts.insert(0, click.option("--judge", "judge_name", type=click.Choice(JUDGES), default="auto",
                                show_default=True, help=judge_help(flags)))
    for opt in reversed(opts):
        f = opt(f)
    return f


def _prompt_version(ctx: click.Context, param: click.Parameter, value: Optional[str]) -> Optional[str]:
    """``--prompt-version``: the registry's name for ``value`` (``rt4chart.llm.prompt_versions``). An old spelling
    (``v2``) is taken as its name with one deprecation note on stderr; a name the registry lacks, or another judge's,
    is a usage error listing the LLM judge's names."""
    if value is None:
        return None
    try:
        version, deprecated = lookup(value, judge="llm")
    except ConfigError as e:
        raise click.BadParameter(str(e), ctx=ctx, param=param) from None
    if deprecated:
        print_error(stderr_console(), f"--prompt-version {value} is the old spelling of {version.name}; pass "
                    f"--prompt-version {version.name} (the old spelling will be removed)", label="deprecated",
                    style="yellow")
    return version.name


def _option_name(decorator: Any) -> str:
    """The parameter name of a ``click.option`` decorator (applied to a throwaway function)."""
    return _option_flag(decorator)[0]


def _option_flag(decorator: Any) -> tuple[str, str]:
    """``(parameter name, long flag)`` of a ``click.option`` decorator (applied to a throwaway function)."""
    param = decorator(lambda: None).__click_params__[-1]
    return param.name, max(param.opts, key=len)


def auditor_options(judge_kw: dict[str, Any], env_options: dict[str, Any]) -> dict[str, Any]:
    """The ``build_auditor`` options for the values of ``judge_options`` (``judge_name``, ``no_global``,
    ``no_cache`` ... as the command received them), over ``env_options``: the LLM settings the command's edge read
    from environment variables (``rt4chart.judges.llm.llm_env(os.environ)``). A flag given wins over the
    environment; flags left unset (None, or False for ``--no-cache`` and ``--no-tagger``) are left out."""
    kw = dict(judge_kw)
    out: dict[str, Any] = {
        "judge": kw.pop("judge_name", "auto"),
        "window": kw.pop("window", 25),
        "overlap": kw.pop("overlap", 10),
        "global_verification": not kw.pop("no_global", False),
        "prefilter": kw.pop("prefilter", False),
        "concurrency": kw.pop("concurrency", 8),
    }
    if kw.pop("no_cache", False):
        out["cache"] = False
    if kw.pop("no_tagger", False):
        out["no_tagger"] = True
    if kw.pop("gguf", None) is not None:
        raise click.UsageError("--gguf (or RT4CHART_GGUF) starts a model server for rt4chart audit and "
                               "calibrate --card only; for this command run llama-server yourself and pass --base-url")
    return {**env_options, **out, **{k: v for k, v in kw.items() if v is not None}}


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
