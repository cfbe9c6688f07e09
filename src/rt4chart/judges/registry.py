"""The judges by name, each with the typed options it reads and its factory (``JUDGE_TABLE``), and the one factory
that builds an ``Auditor`` from options.

Library users inject judge objects directly; this table exists so that ``--judge NAME`` can be resolved, and the
command line's and the server's judge choices (``JUDGES``), the command line's flags and the server's schema of the
judges' options (each option a field of a judge's option dataclass: ``rt4chart.options.option``) and the refusal of
an option a judge does not read come from it. ``auto`` picks the best judge available offline: the trained local
judge when its model is installed, else the lexical judge — or the LLM judge when a model endpoint is configured
(``base_url`` or ``model`` given). ``hybrid`` (the local judge with one-token verdicts of an LLM on every claim,
``rt4chart.judges.hybrid``) is chosen by name only.
``build_auditor`` is what the CLI (``audit``, ``eval run``, ``diagnose``) and the server call. Nothing here reads
environment variables: the CLI and the server read them at their edge and pass them as options.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Container, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Callable, Optional, get_type_hints

from ..audit.auditor import Auditor, set_default_judge
from ..audit.config import AuditConfig, split_settings
from ..audit.decompose import Decomposer, RuleDecomposer
from ..audit.protocols import SlottedJudge
from ..errors import ConfigError
from ..llm.prompt_versions import lookup
from ..llm.settings import Endpoint, LLMJudgeOptions
from ..options import OptionInfo, option_info
from .base import Judge
from .judge_options import HybridOptions, LexicalOptions, LocalOptions

if TYPE_CHECKING:
    from ..llm.backend import ChatBackend, Limiter

Built = tuple[Judge, Optional[Decomposer]]

@dataclasses.dataclass(frozen=True)
class JudgeEntry:
    """One judge: the option dataclasses it reads (each filled from the options given by field name) and the
    factory that builds ``(judge, decomposer)`` from them (``decomposer`` None: the rule decomposer applies), from
    the audit's ``config`` (an ``AuditConfig``) and from ``backend``/``limiter`` (objects, not options: a chat
    backend to use instead of the endpoint's, a request pacer shared with other processes)."""

    options: tuple[type, ...]
    build: Callable[..., Built]
    #: reaches a model: takes ``backend`` and ``limiter``
    chats: bool = False
    #: what the judge does, in a few words: ``rt4chart audit --help`` and the server's OpenAPI schema show it
    help: str = ""
    #: how messages name it ("the LLM judge"; "": its name)
    title: str = ""

    @property
    def fields(self) -> frozenset[str]:
        return frozenset(f.name for cls in self.options for f in dataclasses.fields(cls))

    @property
    def own_fields(self) -> tuple[str, ...]:
        """The fields that configure this judge only, in declaration order: those of its option dataclasses but
        the ``Endpoint`` (shared by the judges that reach a model) and shared resources (``OptionInfo.shared``).
        Another judge given one of them refuses it."""
        return tuple(f.name for cls in self.options if cls is not Endpoint for f in dataclasses.fields(cls)
                     if not option_info(f).shared)


def _lexical(options: LexicalOptions, **_: Any) -> Built:
    from .lexical import LexicalJudge

    return LexicalJudge.from_options(options), None


def _local(options: LocalOptions, **_: Any) -> Built:
    return _local_judge(options), None


def _llm(endpoint: Endpoint, options: LLMJudgeOptions, *, backend: "Optional[ChatBackend]" = None,
         limiter: "Optional[Limiter]" = None, **_: Any) -> Built:
    from .llm import build_llm

    return build_llm(endpoint, options, backend=backend, limiter=limiter)


def _hybrid(endpoint: Endpoint, options: HybridOptions, *, config: AuditConfig,
            backend: "Optional[ChatBackend]" = None, limiter: "Optional[Limiter]" = None) -> Built:
    from .hybrid import HybridJudge
    from .llm import build_backend

    _require_local(options)
    served = None
    if backend is None:
        from ..llm.managed import fit_to_server

        endpoint, served = fit_to_server(endpoint)
    chat = backend if backend is not None else build_backend(endpoint, limiter=limiter)
    return HybridJudge.from_options(options, chat, config=config, served=served), None


#: the judges by name: the one table the CLI's and the server's choices and the refusal of foreign options come from
JUDGE_TABLE: dict[str, JudgeEntry] = {
    "lexical": JudgeEntry((LexicalOptions,), _lexical,
                          help="the share of a claim's content words a context chunk holds (offline, no model)"),
    "local": JudgeEntry((LocalOptions,), _local, help="the trained offline judge"),
    "llm": JudgeEntry((Endpoint, LLMJudgeOptions), _llm, chats=True, title="LLM",
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


def judge_help(*, flags: bool = True, only: Optional[Container[str]] = None) -> str:
    """The judges in words, from ``JUDGE_TABLE``: ``AUTO_HELP``, then each judge's ``help`` and its own options
    (``JudgeEntry.own_fields``), by their flags (``OptionInfo.flag``; the field name where there is none) or, without
    ``flags``, by their names (the server's JSON fields). ``only``: the options a command has (others left out)."""
    parts = [AUTO_HELP]
    for name, entry in JUDGE_TABLE.items():
        own = [option_info_of(key).named(key) if flags else key for key in entry.own_fields
               if only is None or key in only]
        text = f"{name} = {entry.help}" if entry.help else name
        parts.append(f"{text} [{', '.join(own)}]" if own else text)
    return "; ".join(parts) + "."


def _option_fields() -> "dict[str, dataclasses.Field[Any]]":
    """Every judge option's field by name, in ``JUDGE_TABLE`` order (the first judge that reads an option defines
    it)."""
    out: "dict[str, dataclasses.Field[Any]]" = {}
    for entry in JUDGE_TABLE.values():
        for cls in entry.options:
            for f in dataclasses.fields(cls):
                out.setdefault(f.name, f)
    return out


def option_info_of(name: str) -> OptionInfo:
    """The ``OptionInfo`` of the judge option ``name``."""
    return option_info(_option_fields()[name])


def judge_option_fields() -> "dict[str, tuple[dataclasses.Field[Any], Any]]":
    """Every judge option by name with its type, in ``JUDGE_TABLE`` order: what the command line makes its flags
    from. A type that cannot be resolved here (an annotation a third-party module imports for type checkers only)
    is read as text."""
    out: "dict[str, tuple[dataclasses.Field[Any], Any]]" = {}
    for entry in JUDGE_TABLE.values():
        for cls in entry.options:
            try:
                hints = get_type_hints(cls)
            except (NameError, TypeError):
                hints = {}
            for f in dataclasses.fields(cls):
                if f.name not in out:
                    out[f.name] = (f, hints.get(f.name, bool if isinstance(f.default, bool) else Optional[str]))
    return out


def _given(value: Any) -> bool:
    """Whether the user gave an option: set, and not a flag left off (a threshold of 0.0 is given)."""
    return value is not None and value is not False


def refuse_foreign_options(name: str, options: Mapping[str, Any]) -> None:
    """Raise ``ConfigError`` for an option no judge reads, and for options of another judge's own
    (``JudgeEntry.own_fields``) given to judge ``name``, which does not read them (by the first such judge's
    options, named by their flags: an option the chosen judge does not read is a mistake to report, not to
    ignore)."""
    known = _OBJECTS.union(*(entry.fields for entry in JUDGE_TABLE.values()))
    unknown = sorted(k for k, v in options.items() if k not in known and v is not None)
    if unknown:
        raise ConfigError(f"unknown judge option{'s' if len(unknown) > 1 else ''}: {', '.join(unknown)}")
    fields = JUDGE_TABLE[name].fields
    for owner, entry in JUDGE_TABLE.items():
        foreign = [key for key in entry.own_fields if key not in fields and _given(options.get(key))
                   and _owner(key) == owner]
        if not foreign:
            continue
        said = [_said(key, options[key]) for key in foreign]
        raise ConfigError(f"{' and '.join(said)} {'configures' if len(said) == 1 else 'configure'} the "
                          f"{entry.title or owner} judge, but the judge here is {name}")


def _said(key: str, value: Any) -> str:
    """An option as the user gave it: its flag, and its value where it is a choice (not a number, a switch or a
    path)."""
    info = option_info_of(key)
    return info.named(key) + (f" {value}" if isinstance(value, str) and info.path is None else "")


def _owner(key: str) -> str:
    """The first judge in ``JUDGE_TABLE`` whose own options hold ``key``."""
    return next(owner for owner, entry in JUDGE_TABLE.items() if key in entry.own_fields)


def local_judge_available() -> bool:
    """True when the trained offline judge and its model files are importable."""
    try:
        from . import local  # noqa: F401
    except ImportError:
        return False
    return bool(getattr(local, "is_available", lambda: False)())


@dataclasses.dataclass(frozen=True)
class JudgeChoice:
    """A judge by name with the options given to it, checked once (``choose``): ``auto`` resolved to a judge of
    ``JUDGE_TABLE``, an option no judge reads or another judge's own refused. ``options``: the given ones (None left
    out) by field name of the judge's option dataclasses; ``typed`` fills those dataclasses. ``build_auditor`` makes
    one from its keywords and ``make_judge`` builds the judge from it: past that edge the options travel as this
    object and as the judge's typed option objects."""

    name: str
    options: Mapping[str, Any] = dataclasses.field(default_factory=lambda: MappingProxyType({}))

    @classmethod
    def choose(cls, name: str = "auto", **options: Any) -> "JudgeChoice":
        """The judge ``name`` (``auto``: the LLM judge when ``base_url`` or ``model`` is given, else the trained
        local judge when installed or ``model_dir`` is given, else the lexical judge) with ``options`` (None: not
        given). Endpoint options given to a judge that calls no model are kept and ignored (they may come from the
        environment)."""
        if name != "auto" and name not in JUDGE_TABLE:
            raise ConfigError(f"unknown judge {name!r}; choose one of {', '.join(('auto', *JUDGE_TABLE))}")
        objects = sorted(_OBJECTS.intersection(options))
        if objects:
            raise TypeError(f"{' and '.join(objects)} are objects, not options: give them to make_judge")
        given = {k: v for k, v in options.items() if v is not None}
        if name == "auto":
            if given.get("base_url") or given.get("model"):
                name = "llm"
            elif given.get("model_dir") or local_judge_available():
                name = "local"
            else:
                name = "lexical"
        refuse_foreign_options(name, given)
        return cls(name, MappingProxyType(given))

    def with_options(self, **options: Any) -> "JudgeChoice":
        """This judge with ``options`` given too (None: not given), checked again."""
        return JudgeChoice.choose(self.name, **{**self.options, **options})

    @property
    def entry(self) -> JudgeEntry:
        return JUDGE_TABLE[self.name]

    def typed(self) -> tuple[Any, ...]:
        """The judge's option objects (``JudgeEntry.options``), filled from ``options`` (``Endpoint`` through
        ``Endpoint.from_options``)."""
        return tuple(cls.from_options(**_fields_of(cls, self.options)) if cls is Endpoint else
                     cls(**_fields_of(cls, self.options)) for cls in self.entry.options)


def make_judge(name: "str | JudgeChoice" = "auto", *, backend: "Optional[ChatBackend]" = None,
               limiter: "Optional[Limiter]" = None, config: Optional[AuditConfig] = None, **options: Any) -> Built:
    """Build ``(judge, decomposer)`` for a judge name or a ``JudgeChoice``; ``decomposer`` is None when the rule
    decomposer applies.

    ``options`` (with a name; ``JudgeChoice.choose``'s) fill the judge's option dataclasses in ``JUDGE_TABLE`` by
    field name (None: not given): for ``lexical`` ``LexicalOptions``; for ``local`` ``LocalOptions``; for ``llm`` an
    ``Endpoint`` (``base_url``, ``model``, ``api_key``, ``concurrency``, ``cache``, ...) and ``LLMJudgeOptions``
    (``granularity``, ``prompt_version``, ``decomposition``); for ``hybrid`` an ``Endpoint`` and ``HybridOptions``.
    An option no judge reads, or another judge's own (``JudgeEntry.own_fields``), is a ``ConfigError``. ``backend``:
    a ``ChatBackend`` to use instead of the one the endpoint describes (the cost estimate's, which calls no model);
    ``limiter``: a request pacer shared with other processes (``rt4chart.llm.backend.Limiter``; the Ray engine's).
    ``config``: the audit's settings, for a judge that cuts a context itself (the hybrid's chunks of a long
    document; default: the paper's).
    """
    if isinstance(name, JudgeChoice):
        if options:
            raise TypeError(f"make_judge takes a JudgeChoice's options from it, not as keywords: {sorted(options)}")
        choice = name
    else:
        choice = JudgeChoice.choose(name, **options)
    entry = choice.entry
    if backend is not None and not entry.chats:
        raise ConfigError(f"a chat backend is used by the LLM judge only, but the judge here is {choice.name}")
    try:
        typed = choice.typed()
    except ConfigError as exc:
        if choice.name == "hybrid" and backend is None and "is required" in str(exc):
            raise ConfigError(f"{exc}; the hybrid judge asks an LLM about every claim: give --gguf PATH (a local GGUF "
                              "model that rt4chart serves for the run; RT4CHART_GGUF) or --base-url and --model") \
                from exc
        raise
    if entry.chats:
        return entry.build(*typed, config=config or AuditConfig(), backend=backend, limiter=limiter)
    return entry.build(*typed, config=config or AuditConfig())


def default_judge() -> Judge:
    """The judge of an ``Auditor`` made without one: the offline default (``make_judge("auto")`` with no model
    configured: the trained local judge, or the lexical judge where it is not installed)."""
    judge, _ = make_judge("auto")
    return judge


set_default_judge(default_judge)


def _fields_of(cls: type, options: Mapping[str, Any]) -> dict[str, Any]:
    names = {f.name for f in dataclasses.fields(cls)}
    return {k: v for k, v in options.items() if k in names}


def _require_local(options: LocalOptions) -> None:
    """A clear error where the trained local judge is asked for but not installed."""
    if not options.model_dir and not local_judge_available():
        raise ConfigError("the trained local judge is not installed in this build; use --judge lexical or llm")


def _local_judge(options: LocalOptions) -> Judge:
    """The trained local judge for ``options``."""
    _require_local(options)
    from .local import LocalJudge  # type: ignore[attr-defined]

    return LocalJudge.from_options(options)


def build_auditor(
    judge: "str | JudgeChoice" = "auto",
    *,
    config: Optional[AuditConfig] = None,
    decomposition: Optional[str] = None,
    calibration: Any = None,
    citations: Optional[bool] = None,
    **options: Any,
) -> Auditor:
    """An ``Auditor`` for a judge name (or a ``JudgeChoice``) and options: the one factory of the CLI, the server,
    ``eval run`` and ``diagnose``, and the one place the options given as keywords are checked into typed objects (an
    ``AuditConfig`` and a ``JudgeChoice``).

    ``options`` are the audit's settings (the ``AuditConfig`` fields: ``window``/``overlap`` (W, O),
    ``global_verification``, ``prefilter``, ``concurrency``, over ``config``; None: not given) and the judge's options
    for ``make_judge`` (the fields of the judge's option dataclasses in ``JUDGE_TABLE``: local: ``threshold``,
    ``no_tagger``, ``model_dir``; LLM: the ``Endpoint`` fields ``base_url``, ``model``, ``api_key``, ``cache``, ...
    and the ``LLMJudgeOptions`` ones; and ``backend``: a ``ChatBackend`` in place of the endpoint's own).
    ``concurrency`` bounds the records in flight and, for the LLM judge, the requests in flight.
    ``decomposition``: ``"rule"`` uses the offline rule decomposer with any judge; ``"sentence"`` or
    ``"holistic"`` choose the LLM decomposer (LLM judge only); None is the judge's default.
    ``calibration``: a ``Calibration`` or the file ``rt4chart calibrate`` wrote, fitted on this judge's scores
    (``Auditor``'s argument). ``citations``: check each answer's citations against its passages (``Auditor``'s
    argument). Raises ``ConfigError`` for an unknown judge, an option the chosen judge does not read,
    bad W/O, or a calibration of another judge.
    """
    settings, judge_options = split_settings(options)
    config = (config or AuditConfig()).with_options(settings)
    objects = {k: judge_options.pop(k) for k in _OBJECTS if k in judge_options}
    asked = {"concurrency": config.concurrency, "decomposition": decomposition if decomposition != "rule" else None}
    if isinstance(judge, JudgeChoice):
        choice = judge.with_options(**judge_options, **asked)
    else:
        choice = JudgeChoice.choose(judge, **judge_options, **asked)
    made, decomposer = make_judge(choice, config=config, **objects)
    if isinstance(made, SlottedJudge) and made.records_in_flight:
        config = dataclasses.replace(config, concurrency=min(config.concurrency, made.records_in_flight))
    if decomposition == "rule":
        decomposer = RuleDecomposer()
    return Auditor(judge=made, decomposer=decomposer, config=config,
                   fingerprint=judge_fingerprint(made, decomposer or RuleDecomposer(), config, choice.options),
                   calibration=calibration, citations=citations)


def not_verdict_options() -> frozenset[str]:
    """The options that change how a judge is reached, paced or paid for, not what it decides
    (``OptionInfo.verdict`` False, and the objects ``backend`` and ``limiter``): not in the fingerprint."""
    return _OBJECTS | {name for name, f in _option_fields().items() if not option_info(f).verdict}


def judge_fingerprint(judge: Judge, decomposer: Decomposer, config: AuditConfig, options: Mapping[str, Any]) -> str:
    """A digest of what decides an auditor's verdicts: the judge's name and its ``version`` where it has one (the
    local judge's model cards, the LLM judge's prompt version), the decomposer, the ``AuditConfig`` (W, O, global
    verification, prefilter) and every judge option given but those of ``not_verdict_options`` (an LLM's base URL and
    model, a threshold, ``--no-tagger``, ``--model-dir``, ...; a prompt version by its stable id, ``v3`` for
    ``llm@v3``, so that a fingerprint from before the versions had names still matches). ``audit --baseline``
    reuses an earlier result only when its fingerprint is this one. A model folder counts by its path and card
    versions, not by its bytes."""
    skip = not_verdict_options()
    given = {k: options[k] for k in sorted(options) if k not in skip and options[k] is not None}
    if isinstance(given.get("prompt_version"), str):  # its stable id (``v3``): the same whichever spelling named it
        given["prompt_version"] = lookup(given["prompt_version"])[0].stable_id
    doc = {
        "judge": judge.name, "version": getattr(judge, "version", None), "decomposer": decomposer.name,
        "audit": config.verdict_settings(), "options": given,
    }
    return hashlib.sha256(json.dumps(doc, sort_keys=True, default=str).encode()).hexdigest()[:16]


def auditor_for(judge: "str | JudgeChoice | Judge" = "auto", **options: Any) -> Auditor:
    """An ``Auditor`` for a judge name or ``JudgeChoice`` (``build_auditor`` with ``options``) or for a Judge object
    (``Auditor`` with ``options``: ``decomposer``, ``window``, ``overlap``, ``global_verification``, ``prefilter``,
    ``concurrency``); what ``rt4chart.audit_frame`` and the Ray engine accept as ``judge``."""
    if isinstance(judge, (str, JudgeChoice)):
        return build_auditor(judge, **options)
    return Auditor(judge=judge, **options)
