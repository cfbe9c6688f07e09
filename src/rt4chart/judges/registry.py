"""The judges by name, each with the typed options it reads and its factory (``JUDGE_TABLE``), and the one factory
that builds an ``Auditor`` from options.

Library users inject judge objects directly; this table exists so that ``--judge NAME`` can be resolved, and the
command line's and the server's judge choices (``JUDGES``) and the refusal of an option a judge does not read
(``OWNED_OPTIONS``) come from it. ``auto`` picks the best judge available offline: the trained local judge when its
model is installed, else the lexical judge — or the LLM judge when a model endpoint is configured (``base_url`` or
``model`` given). ``hybrid`` (the local judge with one-token verdicts of an LLM on every claim,
``rt4chart.judges.hybrid``) is chosen by name only.
``build_auditor`` is what the CLI (``audit``, ``eval run``, ``diagnose``) and the server call. Nothing here reads
environment variables: the CLI and the server read them at their edge and pass them as options.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Optional, Union

from ..audit.auditor import AuditConfig, Auditor, set_default_judge
from ..audit.decompose import Decomposer, RuleDecomposer
from ..errors import ConfigError
from ..llm.prompt_versions import lookup
from ..llm.settings import Endpoint, LLMJudgeOptions
from .base import Judge

if TYPE_CHECKING:
    from ..llm.backend import ChatBackend, Limiter

#: the request timeout (seconds) of the hybrid judge on a llama.cpp server: one long document on a CPU takes minutes
HYBRID_LOCAL_TIMEOUT = 600.0

Built = tuple[Judge, Optional[Decomposer]]
#: the metadata key of an option dataclass field that a judge which does not read it ignores instead of refusing
SHARED = "rt4chart.shared"


@dataclasses.dataclass(frozen=True)
class LexicalOptions:
    """The lexical judge's options; None keeps ``LexicalJudge``'s default: ``support`` (the share of a claim's
    content words the evidence must hold) and ``match`` (the lowest score of a chunk that counts)."""

    support: Optional[float] = None
    match: Optional[float] = None


@dataclasses.dataclass(frozen=True)
class LocalOptions:
    """The trained local judge's options: ``threshold`` (None: its card's), ``no_tagger`` (the trees without the
    MiniLM tagger), ``model_dir`` (a models folder written by the training scripts' ``--out-dir``; None: the shipped
    one) and ``threads`` (the onnxruntime pool of its tagger; None: the CPU count, at most 4; the Ray engine gives each
    worker as many as it has CPUs)."""

    threshold: Optional[float] = None
    no_tagger: bool = False
    model_dir: Optional[Union[str, Path]] = None
    #: a resource, not a choice: the Ray engine sets it for every named judge, and another judge ignores it
    threads: Optional[int] = dataclasses.field(default=None, metadata={SHARED: True})


@dataclasses.dataclass(frozen=True)
class HybridOptions(LocalOptions):
    """The hybrid judge's options: its local judge's, ``floor`` (claims the local judge scores under it are not
    asked; None: the judge's default, every claim asked) and ``combination`` (a fitted card's path, e.g. one that
    ``rt4chart calibrate --judge hybrid --card`` refitted for your model; None: the shipped one). Its endpoint is
    an ``Endpoint``; its prompts are its own (one-token verdicts)."""

    floor: Optional[float] = None
    combination: Optional[Union[str, Path]] = None


@dataclasses.dataclass(frozen=True)
class JudgeEntry:
    """One judge: the option dataclasses it reads (each filled from the options given by field name) and the
    factory that builds ``(judge, decomposer)`` from them (``decomposer`` None: the rule decomposer applies) and from
    ``backend``/``limiter`` (objects, not options: a chat backend to use instead of the endpoint's, a request
    pacer shared with other processes)."""

    options: tuple[type, ...]
    build: Callable[..., Built]
    #: reaches a model: takes ``backend`` and ``limiter``
    chats: bool = False
    #: what the judge does, in a few words: ``rt4chart audit --help`` and the server's OpenAPI schema show it
    help: str = ""

    @property
    def fields(self) -> frozenset[str]:
        return frozenset(f.name for cls in self.options for f in dataclasses.fields(cls))

    @property
    def own_fields(self) -> tuple[str, ...]:
        """The fields that configure this judge only, in declaration order: those of its option dataclasses but
        the ``Endpoint`` (shared by the judges that reach a model) and fields marked ``SHARED``. Another judge
        given one of them refuses it."""
        return tuple(f.name for cls in self.options if cls is not Endpoint for f in dataclasses.fields(cls)
                     if not f.metadata.get(SHARED))


def _lexical(options: LexicalOptions, **_: Any) -> Built:
    from .lexical import LexicalJudge

    return LexicalJudge(**{k: v for k, v in dataclasses.asdict(options).items() if v is not None}), None


def _local(options: LocalOptions, **_: Any) -> Built:
    return _local_judge(options), None


def _llm(endpoint: Endpoint, options: LLMJudgeOptions, *, backend: "Optional[ChatBackend]" = None,
         limiter: "Optional[Limiter]" = None) -> Built:
    from .llm import build_llm

    return build_llm(endpoint, options, backend=backend, limiter=limiter)


def _hybrid(endpoint: Endpoint, options: HybridOptions, *, backend: "Optional[ChatBackend]" = None,
            limiter: "Optional[Limiter]" = None) -> Built:
    from .combine import Combination
    from .hybrid import HybridJudge
    from .llm import build_backend

    slots = model_file = None
    if backend is None:
        from ..llm.managed import served_model_file, server_props, server_slots

        # a llama.cpp server: as many requests in flight as it has slots (the rest wait here, not in its queue,
        # so no request times out waiting), and a timeout for a CPU evaluating a long document; the GGUF file it
        # loaded tells whether the combination card was fitted for this model (HybridJudge.model_warning)
        props = server_props(endpoint.base_url)
        slots, model_file = server_slots(endpoint.base_url, props=props), served_model_file(props)
        if slots is not None:
            endpoint = dataclasses.replace(endpoint, concurrency=min(endpoint.concurrency, slots),
                                           timeout=max(endpoint.timeout, HYBRID_LOCAL_TIMEOUT))
    chat = backend if backend is not None else build_backend(endpoint, limiter=limiter)
    kw: dict[str, Any] = {"floor": options.floor} if options.floor is not None else {}
    if options.combination:
        kw["combination"] = Combination.load(options.combination)
    made = HybridJudge(_local_judge(options), chat, **kw)
    made.records_in_flight = slots  # one answer per slot: its document stays cached while its claims are asked
    made.model_file = model_file
    return made, None


#: the judges by name: the one table the CLI's and the server's choices and the refusal of foreign options come from
JUDGE_TABLE: dict[str, JudgeEntry] = {
    "lexical": JudgeEntry((LexicalOptions,), _lexical,
                          help="the share of a claim's content words a context chunk holds (offline, no model)"),
    "local": JudgeEntry((LocalOptions,), _local, help="the trained offline judge"),
    "llm": JudgeEntry((Endpoint, LLMJudgeOptions), _llm, chats=True,
                      help="an LLM's verdict on each claim (an OpenAI-compatible --base-url/--model)"),
    "hybrid": JudgeEntry((Endpoint, HybridOptions), _hybrid, chats=True,
                         help="the offline judge and one-token verdicts of the LLM of --gguf or --base-url/--model "
                         "on every claim, combined (auto picks it with --gguf)"),
}
#: the judge names, the one list the command line (audit, eval, calibrate, serve, diagnose) and the server offer;
#: taken from ``JUDGE_TABLE`` at import (``make_judge`` reads the table itself, so a judge added later is built too)
JUDGES = ("auto", *JUDGE_TABLE)
#: what ``auto`` picks
AUTO_HELP = ("auto = LLM if --base-url/--model or RT4CHART_BASE_URL is set, else the trained offline judge if "
             "installed, else lexical")
#: options that are objects rather than values (``JudgeEntry``)
_OBJECTS = frozenset({"backend", "limiter"})


@dataclasses.dataclass(frozen=True)
class OwnedOptions:
    """Options that only some judges read (those whose option dataclasses in ``JUDGE_TABLE`` have them): given to
    another judge, they are refused with ``says`` (``{flags}`` the flags given, ``{verb}`` "configures" or
    "configure", ``{value}`` the first one's value, ``{name}`` the judge). ``given`` tells a value the user gave
    from one left unset."""

    options: tuple[tuple[str, str], ...]  # (option name, its command-line flag)
    says: str
    given: Callable[[Any], bool] = lambda value: value is not None

    @property
    def readers(self) -> tuple[str, ...]:
        """The judges that read these options."""
        return tuple(name for name, entry in JUDGE_TABLE.items()
                     if all(key in entry.fields for key, _ in self.options))


#: the judge-specific options another judge refuses (endpoint options are not among them: they may come from the
#: environment, which does not choose the judge)
OWNED_OPTIONS = (
    OwnedOptions((("threshold", "--threshold"), ("no_tagger", "--no-tagger"), ("model_dir", "--model-dir")),
                 "{flags} {verb} the local judge, but the judge here is {name}",
                 lambda value: value is not None and value is not False),  # a threshold of 0.0 is given
    OwnedOptions((("floor", "--floor"), ("combination", "--combination")),
                 "{flags} route the hybrid judge's claims, but the judge here is {name}"),
    OwnedOptions((("prompt_version", "--prompt-version"),),
                 "--prompt-version {value} chooses the LLM judge's prompts, but the judge here is {name}"),
    OwnedOptions((("decomposition", "--decomposition"),),
                 "--decomposition {value} needs the LLM judge; the {name} judge reads claims from the rule decomposer",
                 lambda value: value not in (None, "rule")),
    OwnedOptions((("granularity", "--granularity"),),
                 "--granularity {value} configures the LLM judge's calls, but the judge here is {name}"),
)


def judge_help(flags: Optional[Mapping[str, str]] = None) -> str:
    """The judges in words, from ``JUDGE_TABLE``: ``AUTO_HELP``, then each judge's ``help`` and its own options
    (``JudgeEntry.own_fields``) spelled as ``flags`` spells them (option name -> flag; options without a flag
    left out; None: the option names)."""
    parts = [AUTO_HELP]
    for name, entry in JUDGE_TABLE.items():
        own = [flags[key] if flags is not None else key for key in entry.own_fields
               if flags is None or key in flags]
        text = f"{name} = {entry.help}" if entry.help else name
        parts.append(f"{text} [{', '.join(own)}]" if own else text)
    return "; ".join(parts) + "."


def refuse_foreign_options(name: str, options: Mapping[str, Any]) -> None:
    """Raise ``ConfigError`` for an option no judge reads, for the first group of ``OWNED_OPTIONS`` given to judge
    ``name``, which does not read it, and for any other option of another judge's own (``JudgeEntry.own_fields``):
    an option the chosen judge does not read is a mistake to report, not to ignore."""
    known = _OBJECTS.union(*(entry.fields for entry in JUDGE_TABLE.values()))
    unknown = sorted(k for k, v in options.items() if k not in known and v is not None)
    if unknown:
        raise ConfigError(f"unknown judge option{'s' if len(unknown) > 1 else ''}: {', '.join(unknown)}")
    for owned in OWNED_OPTIONS:
        if name in owned.readers:
            continue
        given = [(flag, options[key]) for key, flag in owned.options if owned.given(options.get(key))]
        if given:
            raise ConfigError(owned.says.format(flags=" and ".join(flag for flag, _ in given), name=name,
                                                verb="configures" if len(given) == 1 else "configure",
                                                value=given[0][1]))
    fields = JUDGE_TABLE[name].fields
    for key, value in options.items():
        if key in fields or value is None or value is False:
            continue
        readers = [other for other, entry in JUDGE_TABLE.items() if key in entry.own_fields]
        if readers:
            raise ConfigError(f"{key} configures the {' and '.join(readers)} judge, but the judge here is {name}")


def local_judge_available() -> bool:
    """True when the trained offline judge and its model files are importable."""
    try:
        from . import local  # noqa: F401
    except ImportError:
        return False
    return bool(getattr(local, "is_available", lambda: False)())


def make_judge(name: str = "auto", *, backend: "Optional[ChatBackend]" = None,
               limiter: "Optional[Limiter]" = None, **options: Any) -> Built:
    """Build ``(judge, decomposer)`` for a judge name; ``decomposer`` is None when the rule decomposer applies.

    ``options`` fill the judge's option dataclasses in ``JUDGE_TABLE`` by field name (None: not given): for
    ``lexical`` ``LexicalOptions``; for ``local`` ``LocalOptions``; for ``llm`` an ``Endpoint`` (``base_url``,
    ``model``, ``api_key``, ``concurrency``, ``cache``, ...) and ``LLMJudgeOptions`` (``granularity``,
    ``prompt_version``, ``decomposition``); for ``hybrid`` an ``Endpoint`` and ``HybridOptions``. Endpoint options
    given to a judge that calls no model are ignored (they may come from the environment); an option no judge reads,
    or one of ``OWNED_OPTIONS`` the judge does not read, is a ``ConfigError``. ``backend``: a ``ChatBackend`` to use
    instead of the one the endpoint describes (the cost estimate's, which calls no model); ``limiter``: a request
    pacer shared with other processes (``rt4chart.llm.backend.Limiter``; the Ray engine's).
    """
    if name != "auto" and name not in JUDGE_TABLE:
        raise ConfigError(f"unknown judge {name!r}; choose one of {', '.join(('auto', *JUDGE_TABLE))}")
    given = {k: v for k, v in options.items() if v is not None}
    if name == "auto":
        if given.get("base_url") or given.get("model"):
            name = "llm"
        elif given.get("model_dir") or local_judge_available():
            name = "local"
        else:
            name = "lexical"
    entry = JUDGE_TABLE[name]
    if backend is not None and not entry.chats:
        raise ConfigError(f"a chat backend is used by the LLM judge only, but the judge here is {name}")
    refuse_foreign_options(name, given)
    try:
        typed = [cls.from_options(**_fields_of(cls, given)) if cls is Endpoint else cls(**_fields_of(cls, given))
                 for cls in entry.options]
    except ConfigError as exc:
        if name == "hybrid" and backend is None and "is required" in str(exc):
            raise ConfigError(f"{exc}; the hybrid judge asks an LLM about every claim: give --gguf PATH (a local GGUF "
                              "model that rt4chart serves for the run; RT4CHART_GGUF) or --base-url and --model") \
                from exc
        raise
    if entry.chats:
        return entry.build(*typed, backend=backend, limiter=limiter)
    return entry.build(*typed)


def default_judge() -> Judge:
    """The judge of an ``Auditor`` made without one: the offline default (``make_judge("auto")`` with no model
    configured: the trained local judge, or the lexical judge where it is not installed)."""
    judge, _ = make_judge("auto")
    return judge


set_default_judge(default_judge)


def _fields_of(cls: type, options: Mapping[str, Any]) -> dict[str, Any]:
    names = {f.name for f in dataclasses.fields(cls)}
    return {k: v for k, v in options.items() if k in names}


def _local_judge(options: LocalOptions) -> Judge:
    """The trained local judge for ``options``."""
    if not options.model_dir and not local_judge_available():
        raise ConfigError("the trained local judge is not installed in this build; use --judge lexical or llm")
    from .local import LocalJudge  # type: ignore[attr-defined]

    kw: dict[str, Any] = {"semantic": not options.no_tagger, "threads": options.threads}
    if options.threshold is not None:
        kw["threshold"] = options.threshold
    if options.model_dir:
        kw["directory"] = options.model_dir
    return LocalJudge(**kw)


def build_auditor(
    judge: str = "auto",
    *,
    window: int = 25,
    overlap: int = 10,
    global_verification: bool = True,
    prefilter: bool = False,
    concurrency: int = 8,
    decomposition: Optional[str] = None,
    calibration: Any = None,
    citations: bool = False,
    **judge_options: Any,
) -> Auditor:
    """An ``Auditor`` for a judge name and options: the one factory of the CLI, the server, ``eval run`` and
    ``diagnose``.

    ``window``/``overlap`` (W, O), ``global_verification`` and ``prefilter`` configure the audit; ``concurrency``
    bounds the records in flight and, for the LLM judge, the requests in flight.
    ``decomposition``: ``"rule"`` uses the offline rule decomposer with any judge; ``"sentence"`` or
    ``"holistic"`` choose the LLM decomposer (LLM judge only); None is the judge's default. ``judge_options`` go to
    ``make_judge`` (the fields of the judge's option dataclasses in ``JUDGE_TABLE``: local: ``threshold``,
    ``no_tagger``, ``model_dir``; LLM: the ``Endpoint`` fields ``base_url``, ``model``, ``api_key``, ``cache``, ...
    and the ``LLMJudgeOptions`` ones; and ``backend``: a ``ChatBackend`` in place of the endpoint's own).
    ``calibration``: a ``Calibration`` or the file ``rt4chart calibrate`` wrote, fitted on this judge's scores
    (``Auditor``'s argument). ``citations``: check each answer's citations against its passages (``Auditor``'s
    argument). Raises ``ConfigError`` for an unknown judge, an option the chosen judge does not read,
    bad W/O, or a calibration of another judge.
    """
    options = {**judge_options, "concurrency": concurrency}
    if decomposition is not None and decomposition != "rule":
        options["decomposition"] = decomposition
    made, decomposer = make_judge(judge, **options)
    concurrency = min(concurrency, getattr(made, "records_in_flight", None) or concurrency)
    if decomposition == "rule":
        decomposer = RuleDecomposer()
    config = AuditConfig(window, overlap, global_verification, prefilter)
    return Auditor(judge=made, decomposer=decomposer, window=window, overlap=overlap,
                   global_verification=global_verification, prefilter=prefilter, concurrency=concurrency,
                   fingerprint=judge_fingerprint(made, decomposer or RuleDecomposer(), config, options),
                   calibration=calibration, citations=citations)


#: options that change how a judge is reached, paced or paid for, not what it decides: not in the fingerprint
_NOT_VERDICT = frozenset({"concurrency", "api_key", "rpm", "cache", "cache_path", "price_in", "price_out", "timeout",
                          "max_attempts", "backoff_base", "backoff_max", "backend", "limiter",
                          "threads"})


def judge_fingerprint(judge: Judge, decomposer: Decomposer, config: AuditConfig, options: Mapping[str, Any]) -> str:
    """A digest of what decides an auditor's verdicts: the judge's name and its ``version`` where it has one (the
    local judge's model cards, the LLM judge's prompt version), the decomposer, the ``AuditConfig`` (W, O, global
    verification, prefilter) and every judge option given but those in ``_NOT_VERDICT`` (an LLM's base URL and
    model, a threshold, ``--no-tagger``, ``--model-dir``, ...; a prompt version by its stable id, ``v3`` for
    ``llm@v3``, so that a fingerprint from before the versions had names still matches). ``audit --baseline``
    reuses an earlier result only when its fingerprint is this one. A model folder counts by its path and card
    versions, not by its bytes."""
    given = {k: options[k] for k in sorted(options) if k not in _NOT_VERDICT and options[k] is not None}
    if isinstance(given.get("prompt_version"), str):  # its stable id (``v3``): the same whichever spelling named it
        given["prompt_version"] = lookup(given["prompt_version"])[0].stable_id
    doc = {
        "judge": judge.name, "version": getattr(judge, "version", None), "decomposer": decomposer.name,
        "audit": dataclasses.asdict(config), "options": given,
    }
    return hashlib.sha256(json.dumps(doc, sort_keys=True, default=str).encode()).hexdigest()[:16]


def auditor_for(judge: "str | Judge" = "auto", **options: Any) -> Auditor:
    """An ``Auditor`` for a judge name (``build_auditor`` with ``options``) or for a Judge object (``Auditor`` with
    ``options``: ``decomposer``, ``window``, ``overlap``, ``global_verification``, ``prefilter``, ``concurrency``);
    what ``rt4chart.audit_frame`` and the Ray engine accept as ``judge``."""
    if isinstance(judge, str):
        return build_auditor(judge, **options)
    return Auditor(judge=judge, **options)
