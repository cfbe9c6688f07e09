"""How rt4chart reaches a model, and how the LLM judge uses it, as two explicit values: ``Endpoint`` (URL, model,
key, pacing, retries, cache, prices, sampling) and ``LLMJudgeOptions`` (granularity, prompt version, decomposition).
``llm_env`` maps the environment variables the CLI and the server read (at their edge) to ``Endpoint`` fields.
``rt4chart.judges.llm`` re-exports them and builds the judge and decomposer from them (``build_llm``); the hybrid
judge takes an ``Endpoint`` only (its prompts are its own)."""

from __future__ import annotations

from dataclasses import MISSING, asdict, dataclass, fields
from pathlib import Path
from typing import Any, Literal, Mapping, Optional, Union, get_args

from ..errors import ConfigError
from ..options import option, option_info
from .pricing import price_for
from .prompt_versions import DEFAULT_LLM, PROMPT_VERSIONS, lookup, names, resolve

Granularity = Literal["per-claim", "batched"]
Decomposition = Literal["sentence", "holistic"]
Structured = Literal["auto", "json_schema", "json_object", "text"]

DEFAULT_BASE_URL = "https://api.openai.com/v1"
#: the default completion cap: a per-claim verdict is a few hundred tokens and a batched reply for a long answer
#: (about 30 claims with their reasoning) stays under it; a reply that never closes its JSON stops here
DEFAULT_MAX_TOKENS = 4096


def llm_env(env: Mapping[str, str]) -> dict[str, Any]:
    """The ``Endpoint`` fields that environment variables set: ``RT4CHART_BASE_URL``, ``RT4CHART_MODEL``,
    ``OPENAI_API_KEY`` and ``RT4CHART_CACHE_DIR`` (the response cache becomes
    ``$RT4CHART_CACHE_DIR/llm-cache.sqlite3``).

    The library reads no environment itself: the CLI and the server pass ``os.environ`` here, at their edge, and
    give the result on as explicit options (flags given on the command line win).
    """
    values: dict[str, Any] = {}
    named = [(f.name, option_info(f).envvar) for f in fields(Endpoint) if option_info(f).envvar]
    for name, key in [*named, ("api_key", "OPENAI_API_KEY")]:
        if env.get(key):
            values[name] = env[key]
    if env.get("RT4CHART_CACHE_DIR"):
        values["cache_path"] = Path(env["RT4CHART_CACHE_DIR"]) / "llm-cache.sqlite3"
    return values


@dataclass(frozen=True)
class Endpoint:
    """How to reach, pace and pay for a model: explicit values (the CLI and the server fill them from flags and,
    through ``from_env``, from environment variables they read).

    ``concurrency`` bounds the requests in flight and ``rpm`` the requests a minute; ``timeout``, ``max_attempts``
    and ``backoff_*`` the retries of transient failures; ``cache``/``cache_path`` the response cache; ``price_in``/
    ``price_out`` (USD per million tokens) override the price table. ``max_tokens`` caps every reply
    (``DEFAULT_MAX_TOKENS``; 0 or None: no cap); ``structured`` is ``auto`` (a strict JSON schema, stepping down to
    ``json_object`` and then plain JSON instructions when the server refuses one), or one of ``json_schema``,
    ``json_object``, ``text`` to fix the mode."""

    base_url: str = option(MISSING, "OpenAI-compatible endpoint", envvar="RT4CHART_BASE_URL")
    model: str = option(MISSING, "the model's name at the endpoint", envvar="RT4CHART_MODEL")
    api_key: Optional[str] = option(None, "API key (default: $OPENAI_API_KEY)", verdict=False, repr=False)
    concurrency: int = option(8, "records/calls in flight", cli=False, verdict=False)
    rpm: Optional[float] = option(None, "requests-per-minute limit for the LLM", verdict=False)
    cache: bool = option(True, "use the LLM response cache", flag="--no-cache", verdict=False,
                         flag_help="do not use the LLM response cache")
    cache_path: Optional[Union[str, Path]] = option(None, flag=None, verdict=False)
    price_in: Optional[float] = option(None, "USD per million prompt tokens", verdict=False)
    price_out: Optional[float] = option(None, "USD per million completion tokens", verdict=False)
    timeout: float = option(60.0, "LLM request timeout in seconds", verdict=False)
    max_attempts: int = option(5, flag=None, verdict=False)
    temperature: float = option(0.0, flag=None)
    seed: Optional[int] = option(0, flag=None)
    max_tokens: Optional[int] = option(DEFAULT_MAX_TOKENS, "cap on the tokens of each LLM reply (default 4096; 0 = "
                                       "no cap)", low=0)
    structured: Structured = option("auto", flag=None)
    backoff_base: float = option(0.5, flag=None, verdict=False)
    backoff_max: float = option(30.0, flag=None, verdict=False)

    def __post_init__(self) -> None:
        if not self.base_url:
            raise ConfigError("an LLM base URL is required: --base-url or RT4CHART_BASE_URL (base_url=... from Python)")
        if not self.model:
            raise ConfigError("an LLM model name is required: --model or RT4CHART_MODEL (model=... from Python)")
        if isinstance(self.concurrency, bool) or not isinstance(self.concurrency, int) or self.concurrency < 1:
            raise ConfigError(f"concurrency must be a positive integer, got {self.concurrency!r}")
        if self.rpm is not None and self.rpm <= 0:
            raise ConfigError(f"rpm must be > 0, got {self.rpm!r}")
        if self.timeout <= 0:
            raise ConfigError(f"timeout must be > 0 seconds, got {self.timeout!r}")
        if self.max_attempts < 1:
            raise ConfigError(f"max_attempts must be >= 1, got {self.max_attempts!r}")
        if self.max_tokens is not None and (not isinstance(self.max_tokens, int) or isinstance(self.max_tokens, bool)
                                            or self.max_tokens < 0):
            raise ConfigError(f"max_tokens must be a whole number >= 0 (0: no cap), got {self.max_tokens!r}")
        check_choice("structured", self.structured, Structured)
        price_for(self.model, price_in=self.price_in, price_out=self.price_out)  # validates prices

    @classmethod
    def from_options(cls, **options: Any) -> "Endpoint":
        """An endpoint from explicit options, those that are None (flags the user did not give) left at their
        defaults; the base URL defaults to OpenAI's. No environment is read."""
        values: dict[str, Any] = {"base_url": DEFAULT_BASE_URL, "model": ""}
        values.update({k: v for k, v in options.items() if v is not None})
        return cls(**values)

    @classmethod
    def from_env(cls, env: Mapping[str, str], **overrides: Any) -> "Endpoint":
        """An endpoint from the environment mapping ``env`` (see ``llm_env``; pass ``os.environ`` explicitly), then
        ``overrides`` (``from_options``: those that are None do not replace values from ``env``)."""
        return cls.from_options(**{**llm_env(env), **{k: v for k, v in overrides.items() if v is not None}})

    def describe(self) -> dict[str, Any]:
        """The endpoint as a JSON-able dict without the API key (for result configs and logs)."""
        out = asdict(self)
        out.pop("api_key")
        out["cache_path"] = str(self.cache_path) if self.cache_path is not None else None
        return out


def check_choice(name: str, value: Any, choices: Any) -> None:
    """``ConfigError`` unless ``value`` is one of the ``Literal`` type ``choices``' values (``Granularity``,
    ``Decomposition``, ``Structured``): the one check of each such option, wherever it is given."""
    allowed = [repr(a) for a in get_args(choices)]
    if value not in get_args(choices):
        raise ConfigError(f"{name} must be {', '.join(allowed[:-1])} or {allowed[-1]}, got {value!r}")


def _prompt_version(text: str) -> tuple[str, bool]:
    """``--prompt-version``: the registry's name for ``text`` and whether ``text`` is an old spelling."""
    version, deprecated = lookup(text, judge="llm")
    return version.name, deprecated is not None


@dataclass(frozen=True)
class LLMJudgeOptions:
    """How the LLM judge uses its endpoint: ``granularity`` (``per-claim``, paper-exact, or ``batched``),
    ``prompt_version`` (``rt4chart.llm.prompt_versions``: ``llm@v2``, paper-exact, verbatim evidence quotes, or
    ``llm@v3``, numbered context sentences cited by number; the decomposers' prompts are the same in both; an old
    spelling, ``v2`` or ``v3``, is read as the new name with a ``DeprecationWarning``) and ``decomposition``
    (``sentence`` or ``holistic``)."""

    granularity: Granularity = option(
        "per-claim", "LLM judge: one call per claim (per-claim, paper-exact) or one per chunk or answer (batched)")
    prompt_version: str = option(
        DEFAULT_LLM, "LLM judge's prompts: " + "; ".join(
            f"{n}{' (default)' if n == DEFAULT_LLM else ''}: {PROMPT_VERSIONS[n].summary}" for n in names("llm"))
        + ". The old spellings v2 and v3 still work, with a deprecation note",
        parse=_prompt_version, metavar="[" + "|".join(names("llm")) + "]")
    #: the command's ``--decomposition`` (which also offers ``rule``, the offline decomposer for any judge) sets it
    decomposition: Decomposition = option("sentence", "claim decomposition (LLM: sentence or holistic)", cli=False)

    def __post_init__(self) -> None:
        check_choice("granularity", self.granularity, Granularity)
        try:
            version = resolve(self.prompt_version, judge="llm", stacklevel=3)  # the caller of LLMJudgeOptions(...)
        except ConfigError as e:
            raise ConfigError(f"prompt_version: {e}") from None
        object.__setattr__(self, "prompt_version", version.name)
        check_choice("decomposition", self.decomposition, Decomposition)

    @classmethod
    def from_options(cls, **options: Any) -> "LLMJudgeOptions":
        """Options from explicit values, those that are None left at their defaults."""
        return cls(**{k: v for k, v in options.items() if v is not None})
