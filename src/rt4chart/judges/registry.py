"""Name -> judge factory table, and the one factory that builds an ``Auditor`` from options.

Library users inject judge objects directly; this table exists so that ``--judge NAME`` can be resolved.
``auto`` picks the best judge available offline: the trained local judge when its model is installed, else
the lexical judge — or the LLM judge when a model endpoint is configured (``base_url`` or ``model`` given).
``hybrid`` (the local judge with one-token verdicts of an LLM on every claim, ``rt4chart.judges.hybrid``) is chosen
by name only.
``build_auditor`` is what the CLI (``audit``, ``eval run``, ``diagnose``) and the server call. Nothing here reads
environment variables: the CLI and the server read them at their edge and pass them as options.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Callable, Optional

from ..audit.auditor import AuditConfig, Auditor
from ..audit.decompose import Decomposer, RuleDecomposer
from ..errors import ConfigError
from .base import Judge

if TYPE_CHECKING:
    from ..llm.backend import ChatBackend

#: the judge names, the one list the command line (audit, eval, calibrate, serve, diagnose) and the server offer
JUDGES = ("auto", "lexical", "local", "llm", "hybrid")
#: the request timeout (seconds) of the hybrid judge on a llama.cpp server: one long document on a CPU takes minutes
HYBRID_LOCAL_TIMEOUT = 600.0


@dataclasses.dataclass(frozen=True)
class OwnedOptions:
    """Options that only some judges read: given to another judge, they are refused with ``says`` (``{flags}`` the
    flags given, ``{verb}`` "configures" or "configure", ``{value}`` the first one's value, ``{name}`` the judge).
    ``given`` tells a value the user gave from one left unset."""

    options: tuple[tuple[str, str], ...]  # (option name, its command-line flag)
    readers: tuple[str, ...]
    says: str
    given: Callable[[Any], bool] = lambda value: value is not None


#: which judge reads which of the judge-specific options: the one table ``make_judge`` refuses foreign options from
OWNED_OPTIONS = (
    OwnedOptions((("threshold", "--threshold"), ("no_tagger", "--no-tagger"), ("model_dir", "--model-dir")),
                 ("local", "hybrid"), "{flags} {verb} the local judge, but the judge here is {name}",
                 lambda value: value is not None and value is not False),  # a threshold of 0.0 is given
    OwnedOptions((("floor", "--floor"), ("combination", "--combination")), ("hybrid",),
                 "{flags} route the hybrid judge's claims, but the judge here is {name}"),
    OwnedOptions((("prompt_version", "--prompt-version"),), ("llm",),
                 "--prompt-version {value} chooses the LLM judge's prompts, but the judge here is {name}"),
    OwnedOptions((("decomposition", "--decomposition"),), ("llm",),
                 "--decomposition {value} needs the LLM judge; the {name} judge reads claims from the rule decomposer",
                 lambda value: value not in (None, "rule")),
)


def refuse_foreign_options(name: str, options: Mapping[str, Any]) -> None:
    """Raise ``ConfigError`` for the first group of ``OWNED_OPTIONS`` given to judge ``name``, which does not read
    it: an option the chosen judge does not read is a mistake to report, not to ignore."""
    for owned in OWNED_OPTIONS:
        if name in owned.readers:
            continue
        given = [(flag, options[key]) for key, flag in owned.options if owned.given(options.get(key))]
        if given:
            raise ConfigError(owned.says.format(flags=" and ".join(flag for flag, _ in given), name=name,
                                                verb="configures" if len(given) == 1 else "configure",
                                                value=given[0][1]))


def local_judge_available() -> bool:
    """True when the trained offline judge and its model files are importable."""
    try:
        from . import local  # noqa: F401
    except ImportError:
        return False
    return bool(getattr(local, "is_available", lambda: False)())


def make_judge(name: str = "auto", *, backend: "Optional[ChatBackend]" = None,
               **options: Any) -> tuple[Judge, Optional[Decomposer]]:
    """Build ``(judge, decomposer)`` for a judge name; ``decomposer`` is None when the rule decomposer applies.

    Options: for ``lexical``: ``support``, ``match``; for ``local``: ``threshold``, ``no_tagger``, ``model_dir`` (a
    models folder written by the training scripts' ``--out-dir``; default: the shipped one); for ``llm``: the
    fields of ``rt4chart.judges.llm.LLMSettings`` (``base_url``, ``model``, ``prompt_version``, ...);
    for ``hybrid``: the local judge's and the LLM's endpoint options (its prompts are its own: one-token verdicts),
    ``floor`` (claims the local judge scores under it are not asked) and ``combination`` (a card path); ``backend``, a
    ``ChatBackend`` to use instead of the one the settings describe (the cost estimate's, which calls no model); and
    ``limiter`` (a request pacer shared with other processes, ``rt4chart.llm.backend.Limiter``; the Ray engine's).
    ``threads`` sizes the onnxruntime pool of the local judge's tagger (default: the CPU
    count, at most 4; the Ray engine gives each worker as many as it has CPUs).
    """
    if name not in JUDGES:
        raise ConfigError(f"unknown judge {name!r}; choose one of {', '.join(JUDGES)}")
    llm_options = {k: v for k, v in options.items() if v is not None}
    if name == "auto":
        if llm_options.get("base_url") or llm_options.get("model"):
            name = "llm"
        elif options.get("model_dir") or local_judge_available():
            name = "local"
        else:
            name = "lexical"
    if backend is not None and name not in ("llm", "hybrid"):
        raise ConfigError(f"a chat backend is used by the LLM judge only, but the judge here is {name}")
    refuse_foreign_options(name, options)
    if name == "lexical":
        from .lexical import LexicalJudge

        kw = {k: options[k] for k in ("support", "match") if options.get(k) is not None}
        return LexicalJudge(**kw), None
    if name == "local":
        return _local_judge(options), None
    from .llm import LLMSettings, build_backend, build_llm

    known = {f.name for f in dataclasses.fields(LLMSettings)}
    settings = LLMSettings.from_options(**{k: v for k, v in llm_options.items() if k in known})
    if name == "hybrid":
        from .hybrid import HybridJudge

        slots = None
        if backend is None and settings.base_url:
            from ..llm.managed import server_slots

            # a llama.cpp server: as many requests in flight as it has slots (the rest wait here, not in its queue,
            # so no request times out waiting), and a timeout for a CPU evaluating a long document
            slots = server_slots(settings.base_url)
            if slots is not None:
                settings = dataclasses.replace(settings, concurrency=min(settings.concurrency, slots),
                                               timeout=max(settings.timeout, HYBRID_LOCAL_TIMEOUT))
        chat = backend if backend is not None else build_backend(settings, limiter=options.get("limiter"))
        from .combine import Combination

        if options.get("granularity") not in (None, "per-claim"):
            raise ConfigError(f"--granularity {options['granularity']} configures the LLM judge; the hybrid judge "
                              "asks one one-token question per claim")
        kw: dict[str, Any] = {"floor": options["floor"]} if options.get("floor") is not None else {}
        if options.get("combination"):
            kw["combination"] = Combination.load(options["combination"])
        made = HybridJudge(_local_judge(options), chat, **kw)
        made.records_in_flight = slots  # one answer per slot: its document stays cached while its claims are asked
        return made, None
    return build_llm(settings, backend=backend, limiter=options.get("limiter"))


def _local_judge(options: Mapping[str, Any]) -> Judge:
    """The trained local judge for the local options (``threshold``, ``no_tagger``, ``model_dir``, ``threads``)."""
    if not options.get("model_dir") and not local_judge_available():
        raise ConfigError("the trained local judge is not installed in this build; use --judge lexical or llm")
    from .local import LocalJudge  # type: ignore[attr-defined]

    kw: dict[str, Any] = {"semantic": not options.get("no_tagger"), "threads": options.get("threads")}
    if options.get("threshold") is not None:
        kw["threshold"] = options["threshold"]
    if options.get("model_dir"):
        kw["directory"] = options["model_dir"]
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
    **judge_options: Any,
) -> Auditor:
    """An ``Auditor`` for a judge name and options: the one factory of the CLI, the server, ``eval run`` and
    ``diagnose``.

    ``window``/``overlap`` (W, O), ``global_verification`` and ``prefilter`` configure the audit; ``concurrency``
    bounds the records in flight and, for the LLM judge, the requests in flight.
    ``decomposition``: ``"rule"`` uses the offline rule decomposer with any judge; ``"sentence"`` or
    ``"holistic"`` choose the LLM decomposer (LLM judge only); None is the judge's default. ``judge_options`` go to
    ``make_judge`` (local: ``threshold``, ``no_tagger``, ``model_dir``; LLM: ``base_url``,
    ``model``, ``api_key``, ``cache``, ``cache_path`` and the other ``LLMSettings`` fields, and ``backend``: a
    ``ChatBackend`` in place of the settings' own). ``calibration``: a ``Calibration`` or the file ``rt4chart
    calibrate`` wrote, fitted on this judge's scores (``Auditor``'s argument). Raises ``ConfigError``
    for an unknown judge, an option the chosen judge does not read, bad W/O, or a calibration of another judge.
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
                   calibration=calibration)


#: options that change how a judge is reached, paced or paid for, not what it decides: not in the fingerprint
_NOT_VERDICT = frozenset({"concurrency", "api_key", "rpm", "cache", "cache_path", "price_in", "price_out", "timeout",
                          "max_attempts", "backoff_base", "backoff_max", "backend", "limiter",
                          "threads"})


def judge_fingerprint(judge: Judge, decomposer: Decomposer, config: AuditConfig, options: Mapping[str, Any]) -> str:
    """A digest of what decides an auditor's verdicts: the judge's name and its ``version`` where it has one (the
    local judge's model cards, the LLM judge's prompt version), the decomposer, the ``AuditConfig`` (W, O, global
    verification, prefilter) and every judge option given but those in ``_NOT_VERDICT`` (an LLM's base URL and
    model, a threshold, ``--no-tagger``, ``--model-dir``, ...). ``audit --baseline`` reuses an earlier result only
    when its fingerprint is this one. A model folder counts by its path and card versions, not by its bytes."""
    doc = {
        "judge": judge.name, "version": getattr(judge, "version", None), "decomposer": decomposer.name,
        "audit": dataclasses.asdict(config),
        "options": {k: options[k] for k in sorted(options) if k not in _NOT_VERDICT and options[k] is not None},
    }
    return hashlib.sha256(json.dumps(doc, sort_keys=True, default=str).encode()).hexdigest()[:16]


def auditor_for(judge: "str | Judge" = "auto", **options: Any) -> Auditor:
    """An ``Auditor`` for a judge name (``build_auditor`` with ``options``) or for a Judge object (``Auditor`` with
    ``options``: ``decomposer``, ``window``, ``overlap``, ``global_verification``, ``prefilter``, ``concurrency``);
    what ``rt4chart.audit_frame`` and the Ray engine accept as ``judge``."""
    if isinstance(judge, str):
        return build_auditor(judge, **options)
    return Auditor(judge=judge, **options)
