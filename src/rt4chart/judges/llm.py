"""The LLM judge and decomposers (RT4CHART §3.3–3.5) over any OpenAI-compatible server.

``build_llm(LLMSettings(base_url=..., model=...))`` returns a ``(judge, decomposer)`` pair sharing one backend, so the
two share the concurrency limit, the rate limit and the response cache.

Prompts are versioned templates (``rt4chart/llm/prompts``). Each one puts the long shared text (context or chunk)
before the short varying one (the claim), so that provider prefix caches hit across the claims of an answer. Every
untrusted text (context, chunk, question, answer, claims) sits between ``<<<`` and ``>>>`` lines (``as_data``: it
cannot close its block), and the system prompt says that delimited text is data, never instructions.

Granularity:

- ``per-claim`` (paper-exact): local verification makes one call per claim × chunk; global verification one call
  per claim, with the Table 2 prompt for its local label (``global_nic`` with no hint for a locally baseless
  claim, ``global_ent``/``global_con`` with the focus chunk);
- ``batched``: one call per chunk judging all claims, and one global call per answer (each claim listed with its
  local label and, for Ent/Con, its focus chunk).

Failure policy (never fail open): a reply that is not valid JSON for the schema, that gives an Ent/Con verdict
without evidence, or that quotes evidence not found in the text it was given, is sent back once with the error;
if the second reply is still unusable the claim is ``unverified`` with the reason and the raw reply. When the
backend gives up on transient failures (429/5xx/timeouts after its retries) the claims are ``unverified`` with the
reason, and so are they when a request exceeds the model's context (``ContextOverflowError``). Configuration
errors (HTTP 401/403/404, and other 4xx replies no retry can fix) raise ``BackendError``. A decomposition that cannot be
obtained raises ``BackendError`` (the backend gave up) or ``JudgeError`` (the replies stayed unusable); the auditor
then decomposes that answer with the rule decomposer and notes it in the record's ``errors``.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, Awaitable, Callable, Optional, Sequence

from pydantic import BaseModel

from ..audit.decompose import sentence_claims
from ..errors import BackendError, ConfigError, JudgeError
from ..llm.ask import Asked, ask
from ..llm.backend import CachedBackend, ChatBackend, Limiter, OpenAIBackend
from ..llm.cache import ResponseCache
from ..llm.pricing import price_for
from ..llm.schemas import (
    BatchVerdictReply,
    HolisticClaimsReply,
    SentenceClaimsReply,
    VerdictReply,
    locate_quote,
)
from ..llm.settings import DEFAULT_BASE_URL, Decomposition, Granularity, LLMSettings, llm_env
from ..llm.templates import PROMPT_VERSION, Prompt, as_data, format_numbered, load_prompt
from ..text.segment import split_sentences
from ..types import Claim, Judgment, Label, Stage

__all__ = ["DEFAULT_BASE_URL", "LLMSettings", "LLMJudge", "LLMDecomposer", "build_backend", "build_llm", "llm_env"]

NO_QUESTION = "(none: this task has no question)"
REASK = (
    "Your reply could not be used: {problems}\n"
    "Reply again with only the JSON object described above. Copy every evidence quote character for character "
    "from the text you were given."
)


def _verdict(
    verdict: str, quotes: Sequence[str], evidence_text: str, where: str
) -> tuple[tuple[str, ...], list[str]]:
    """Anchored evidence quotes and the problems with them (Ent/Con need grounded quotes; Nic has none, Eq. 1)."""
    if verdict == "baseless":
        return (), []
    quotes = [q for q in quotes if q.strip()]
    if not quotes:
        return (), [f'a "{verdict}" verdict needs at least one evidence quote from the {where}.']
    located = [locate_quote(q, evidence_text) for q in quotes]
    missing = [q for q, hit in zip(quotes, located) if hit is None]
    if missing:
        return (), [f"these evidence quotes do not occur in the {where}: {json.dumps(missing, ensure_ascii=False)}."]
    return tuple(dict.fromkeys(hit for hit in located if hit is not None)), []


class LLMJudge:
    """RT4CHART's LLM judge: local verification per chunk and adaptive global verification (Table 2)."""

    name = "llm"

    def __init__(self, backend: ChatBackend, *, granularity: Granularity = "per-claim",
                 version: str = PROMPT_VERSION) -> None:
        if granularity not in ("per-claim", "batched"):
            raise ConfigError(f"granularity must be 'per-claim' or 'batched', got {granularity!r}")
        self.backend = backend
        self.granularity = granularity
        self.version = version
        self.prompts = {
            name: load_prompt(name, version)
            for name in ("local", "global_nic", "global_ent", "global_con", "local_batched", "global_batched")
        }

    @property
    def config(self) -> dict[str, Any]:
        return {
            "judge": self.name,
            "model": self.backend.model,
            "granularity": self.granularity,
            "prompts": sorted(p.id for p in self.prompts.values()),
        }

    async def judge(
        self,
        claims: Sequence[Claim],
        evidence: str,
        *,
        question: Optional[str],
        stage: Stage,
        local_labels: Optional[Sequence[Label]] = None,
        hints: Optional[Sequence[Optional[str]]] = None,
    ) -> list[Judgment]:
        if not claims:
            return []
        q = as_data(question) if question and question.strip() else NO_QUESTION
        if stage == "local":
            if self.granularity == "batched":
                return await self._batched(self.prompts["local_batched"], claims, evidence, "chunk",
                                           {"chunk": as_data(evidence), "question": q})
            return list(await asyncio.gather(*(self._local(c, evidence, q) for c in claims)))
        if stage != "global":
            raise ConfigError(f"stage must be 'local' or 'global', got {stage!r}")
        labels = list(local_labels) if local_labels is not None else [Label.BASELESS] * len(claims)
        focus = list(hints) if hints is not None else [None] * len(claims)
        if len(labels) != len(claims) or len(focus) != len(claims):
            raise ConfigError("local_labels and hints must have one entry per claim")
        if self.granularity == "batched":
            return await self._global_batched(claims, evidence, q, labels, focus)
        return list(
            await asyncio.gather(*(self._global(c, evidence, q, lab, hint)
                                   for c, lab, hint in zip(claims, labels, focus)))
        )

    # -- per-claim -------------------------------------------------------------------------------------------
    async def _single(self, prompt: Prompt, values: dict[str, str], evidence: str, where: str) -> Judgment:
        anchored: dict[str, tuple[str, ...]] = {}

        def check(reply: VerdictReply) -> list[str]:
            quotes, problems = _verdict(reply.verdict, reply.evidence, evidence, where)
            anchored["quotes"] = quotes
            return problems

        ex = await ask(self.backend, prompt, values, VerdictReply, check, reask=REASK)
        if ex.ok:
            assert isinstance(ex.reply, VerdictReply)
            return Judgment(
                label=Label(ex.reply.verdict),
                evidence=anchored["quotes"],
                reason=ex.reply.reason,
                raw=ex.raw,
                prompt_version=prompt.id,
            )
        return self._unverified(ex, prompt)

    @staticmethod
    def _unverified(ex: Asked, prompt: Prompt, problems: Optional[list[str]] = None) -> Judgment:
        if ex.failure is not None:
            reason = f"judge call failed: {ex.failure}"
        else:
            reason = "judge reply unusable after one re-ask: " + " ".join(
                problems if problems is not None else ex.problems)
        return Judgment(label=Label.UNVERIFIED, reason=reason, raw=ex.raw, prompt_version=prompt.id)

    async def _local(self, claim: Claim, chunk: str, question: str) -> Judgment:
        values = {"chunk": as_data(chunk), "question": question, "claim": as_data(claim.text)}
        return await self._single(self.prompts["local"], values, chunk, "chunk")

    async def _global(
        self, claim: Claim, context: str, question: str, local_label: Label, hint: Optional[str]
    ) -> Judgment:
        values = {"context": as_data(context), "question": question, "claim": as_data(claim.text)}
        if hint is None or local_label not in (Label.ENTAILED, Label.CONTRADICTED):
            prompt = self.prompts["global_nic"]  # Table 2: locally Nic -> full C + claim, no location hint
        else:
            prompt = self.prompts["global_ent" if local_label is Label.ENTAILED else "global_con"]
            values["focus"] = as_data(hint)  # Table 2: locally Ent/Con -> full C + focus chunk + claim
        return await self._single(prompt, values, context, "context")

    # -- batched ---------------------------------------------------------------------------------------------
    async def _batched(
        self, prompt: Prompt, claims: Sequence[Claim], evidence: str, where: str, values: dict[str, str]
    ) -> list[Judgment]:
        n = len(claims)
        items: dict[int, tuple[Optional[Judgment], list[str]]] = {}

        def check(reply: BatchVerdictReply) -> list[str]:
            items.clear()
            problems: list[str] = []
            for v in reply.verdicts:
                if not 0 <= v.claim < n:
                    problems.append(f"there is no claim [{v.claim}] (claims are numbered 0 to {n - 1}).")
                    continue
                if v.claim in items:
                    problems.append(f"claim [{v.claim}] is judged more than once.")
                    continue
                quotes, issues = _verdict(v.verdict, v.evidence, evidence, where)
                issues = [f"claim [{v.claim}]: {p}" for p in issues]
                judgment = None if issues else Judgment(label=Label(v.verdict), evidence=quotes, reason=v.reason)
                items[v.claim] = (judgment, issues)
                problems.extend(issues)
            absent = [i for i in range(n) if i not in items]
            if absent:
                problems.append(f"claims {absent} have no verdict; give exactly one verdict per claim.")
            return problems

        lines = format_numbered({i: c.text for i, c in enumerate(claims)})
        ex = await ask(self.backend, prompt, {**values, "claims": lines}, BatchVerdictReply, check, reask=REASK)
        items.clear()
        if ex.reply is not None:
            check(ex.reply)  # the per-claim state of the last reply that parsed
        out: list[Judgment] = []
        for i in range(n):
            judgment, issues = items.get(i, (None, [f"claim [{i}] has no verdict."]))
            if judgment is not None:
                # claims the model judged properly keep their verdict even if others in the batch failed
                out.append(judgment.model_copy(update={"raw": ex.raw, "prompt_version": prompt.id}))
            elif ex.failure is not None or ex.reply is None:
                out.append(self._unverified(ex, prompt))
            else:
                out.append(self._unverified(ex, prompt, issues))
        return out

    async def _global_batched(
        self, claims: Sequence[Claim], context: str, question: str, labels: list[Label], hints: list[Optional[str]]
    ) -> list[Judgment]:
        focus_ids: dict[str, int] = {}
        local = []
        for i, (label, hint) in enumerate(zip(labels, hints)):
            if hint is None or label not in (Label.ENTAILED, Label.CONTRADICTED):
                local.append(f"claim {i}: LOCAL baseless: no location hint; search the whole context from scratch.")
            else:
                fid = focus_ids.setdefault(hint, len(focus_ids))
                local.append(f"claim {i}: LOCAL {label.value}: focus chunk F{fid}.")
        focus = "\n\n".join(f"F{fid}:\n<<<\n{as_data(text)}\n>>>" for text, fid in focus_ids.items()) or "(none)"
        values = {"context": as_data(context), "question": question, "focus_chunks": focus,
                  "local_results": "\n".join(local)}
        return await self._batched(self.prompts["global_batched"], claims, context, "context", values)

    async def aclose(self) -> None:
        """Close the backend's HTTP client on the running loop (optional: it also closes with its loop)."""
        close: Optional[Callable[[], Awaitable[None]]] = getattr(self.backend, "aclose", None)
        if close is not None:
            await close()


class LLMDecomposer:
    """RT4CHART §3.3 claim decomposition from the answer alone (no context): ``sentence`` (one call per answer
    sentence, the paper's default) or ``holistic`` (one call for the whole answer). Qualifiers are kept."""

    def __init__(self, backend: ChatBackend, *, mode: Decomposition = "sentence",
                 version: str = PROMPT_VERSION) -> None:
        if mode not in ("sentence", "holistic"):
            raise ConfigError(f"decomposition must be 'sentence' or 'holistic', got {mode!r}")
        self.backend = backend
        self.mode = mode
        self.name = f"llm-{mode}"
        self.prompt = load_prompt(f"decompose_{mode}", version)

    async def decompose(self, answer: str, *, question: Optional[str] = None) -> list[Claim]:
        sentences = split_sentences(answer)
        if not sentences:
            return []
        if self.mode == "sentence":
            texts = await asyncio.gather(*(self._sentence(as_data(answer), as_data(s.text)) for s in sentences))
            return sentence_claims(answer, texts)
        numbered = format_numbered({s.index: s.text for s in sentences})

        def check(reply: HolisticClaimsReply) -> list[str]:
            bad = sorted({c.sentence for c in reply.claims if not 0 <= c.sentence < len(sentences)})
            if not bad:
                return []
            return [f"sentence numbers {bad} do not exist (sentences are numbered 0 to {len(sentences) - 1})."]

        ex = await ask(self.backend, self.prompt, {"sentences": numbered}, HolisticClaimsReply, check,
                       reask=REASK)
        reply = self._require(ex)
        assert isinstance(reply, HolisticClaimsReply)
        grouped: list[list[str]] = [[] for _ in sentences]
        for c in reply.claims:
            grouped[c.sentence].append(c.claim)
        return sentence_claims(answer, grouped)

    async def _sentence(self, answer: str, sentence: str) -> list[str]:
        ex = await ask(
            self.backend, self.prompt, {"answer": answer, "sentence": sentence}, SentenceClaimsReply, lambda r: [],
            reask=REASK,
        )
        reply = self._require(ex)
        assert isinstance(reply, SentenceClaimsReply)
        return reply.claims

    def _require(self, ex: Asked) -> BaseModel:
        if ex.failure is not None:
            raise BackendError(f"decomposition ({self.prompt.id}) failed: {ex.failure}", raw=ex.raw)
        if not ex.ok:
            raw = (ex.raw or "")[:300]
            raise JudgeError(
                f"decomposition ({self.prompt.id}) reply unusable after one re-ask: {' '.join(ex.problems)}"
                f" Raw reply: {raw!r}"
            )
        assert ex.reply is not None
        return ex.reply


def build_backend(settings: LLMSettings, *, limiter: Optional[Limiter] = None) -> ChatBackend:
    """The ``ChatBackend`` that ``settings`` describe: an ``OpenAIBackend``, behind the response cache unless
    ``settings.cache`` is off. ``limiter`` paces requests instead of ``settings.rpm`` in this process (the Ray
    engine's shared pacer)."""
    backend = OpenAIBackend(
        settings.base_url,
        settings.model,
        api_key=settings.api_key,
        temperature=settings.temperature,
        seed=settings.seed,
        max_tokens=settings.max_tokens,
        timeout=settings.timeout,
        max_attempts=settings.max_attempts,
        concurrency=settings.concurrency,
        rpm=settings.rpm,
        backoff_base=settings.backoff_base,
        backoff_max=settings.backoff_max,
        structured=settings.structured,
        price=price_for(settings.model, price_in=settings.price_in, price_out=settings.price_out),
        limiter=limiter,
    )
    if settings.cache:
        return CachedBackend(backend, ResponseCache(settings.cache_path))
    return backend


def build_llm(settings: LLMSettings, *, backend: Optional[ChatBackend] = None,
              limiter: Optional[Limiter] = None) -> tuple[LLMJudge, LLMDecomposer]:
    """The LLM judge and decomposer for ``settings``, sharing one backend (limits and cache are shared).

    ``backend`` replaces the one ``settings`` describe, cache included (the cost estimate's, which sends nothing:
    ``rt4chart.judges.estimate``); the judge and decomposer still take their granularity and mode from ``settings``.
    ``limiter`` paces requests instead of ``settings.rpm`` in this process (``OpenAIBackend``; the Ray engine's
    shared pacer); a given ``backend`` keeps its own pacing.
    """
    if backend is None:
        backend = build_backend(settings, limiter=limiter)
    return (
        LLMJudge(backend, granularity=settings.granularity),
        LLMDecomposer(backend, mode=settings.decomposition),
    )
