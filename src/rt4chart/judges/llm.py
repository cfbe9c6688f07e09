"""The LLM judge and decomposers (RT4CHART §3.3–3.5) over any OpenAI-compatible server.

``build_llm(Endpoint(base_url=..., model=...), LLMJudgeOptions(...))`` returns a ``(judge, decomposer)`` pair
sharing one backend, so the two share the concurrency limit, the rate limit and the response cache.

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

Prompt versions (``LLMJudge(prompt_version=...)``, ``LLMJudgeOptions.prompt_version``, ``--prompt-version``; the
registry is ``rt4chart.llm.prompt_versions``, how each reads a reply ``rt4chart.llm.verdicts``): ``llm@v2`` (the
default, paper-exact, frozen) shows the chunk or context as it is and asks for step-by-step reasoning and verbatim
evidence quotes; ``llm@v3`` shows it as numbered sentences and asks for a short reason, the verdict and the numbers of
the sentences it rests on, whose exact text becomes the evidence (replies a small local model can give). Every verdict
carries ``<version>/<template>`` (``llm@v2/global_nic``) as its ``prompt_version``; the response cache keys hold the
template id (``global_nic.v2``), as they did before the versions had names.

Failure policy (never fail open): a reply that is not valid JSON for the schema, that gives an Ent/Con verdict
without evidence, or that quotes evidence not found in the text it was given (llm@v3: cites a sentence number the
text does not have), is sent back once with the error;
if the second reply is still unusable the claim is ``unverified`` with the reason and the raw reply. When the
backend gives up on transient failures (429/5xx/timeouts after its retries) the claims are ``unverified`` with the
reason, and so are they when a request exceeds the model's context (``ContextOverflowError``). Configuration
errors (HTTP 401/403/404, and other 4xx replies no retry can fix) raise ``BackendError``. A decomposition that cannot be
obtained raises ``BackendError`` (the backend gave up) or ``JudgeError`` (the replies stayed unusable); the auditor
then decomposes that answer with the rule decomposer and notes it in the record's ``errors``.
"""

from __future__ import annotations

import asyncio
from typing import Any, Awaitable, Callable, Optional, Sequence

from pydantic import BaseModel

from ..audit.decompose import sentence_claims
from ..errors import BackendError, ConfigError, JudgeError
from ..llm.ask import Asked, ask
from ..llm.backend import CachedBackend, ChatBackend, Limiter, OpenAIBackend
from ..llm.cache import ResponseCache
from ..llm.pricing import price_for
from ..llm.schemas import HolisticClaimsReply, SentenceClaimsReply
from ..llm.settings import DEFAULT_BASE_URL, Decomposition, Endpoint, Granularity, LLMJudgeOptions, check_choice, \
    llm_env
from ..llm.prompt_versions import DEFAULT_LLM, PromptVersion, resolve
from ..llm.templates import PROMPT_VERSION, Prompt, as_data, format_numbered, load_prompt
from ..llm.verdicts import READINGS, Shown, quote_ids, reading
from ..llm.meter import record_note
from ..text.segment import split_sentences
from ..types import Claim, Judgment, Label, RecordError, Stage

__all__ = ["DEFAULT_BASE_URL", "Endpoint", "LLMJudgeOptions", "LLMJudge", "LLMDecomposer", "build_backend", "build_llm",
           "llm_env"]

NO_QUESTION = "(none: this task has no question)"
#: the decomposers' re-ask (the v2 judge prompts' own)
REASK = READINGS["v2"].reask


class LLMJudge:
    """RT4CHART's LLM judge: local verification per chunk and adaptive global verification (Table 2)."""

    name = "llm"

    def __init__(self, backend: ChatBackend, *, granularity: Granularity = "per-claim",
                 prompt_version: str = DEFAULT_LLM) -> None:
        check_choice("granularity", granularity, Granularity)
        self.backend = backend
        self.granularity = granularity
        #: the registry entry (``llm@v2``); an old spelling (``v2``) is its new name, with a DeprecationWarning
        self.prompt_version: PromptVersion = resolve(prompt_version, judge="llm", stacklevel=2)
        #: the stable id (``v2``): the template files' version, part of the judge fingerprint as before the names
        self.version = self.prompt_version.stable_id
        self.reading = reading(self.version)  # how this version shows evidence and reads a verdict's evidence
        self.prompts = {name: load_prompt(name, self.version) for name in self.prompt_version.templates}

    @property
    def config(self) -> dict[str, Any]:
        return {
            "judge": self.name,
            "model": self.backend.model,
            "granularity": self.granularity,
            "prompt_version": self.prompt_version.name,
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
        if stage not in ("local", "global"):
            raise ConfigError(f"stage must be 'local' or 'global', got {stage!r}")
        shown = self.reading.show(evidence)  # v3: numbered sentences (the auditor's splitter, as it splits C)
        if stage == "local":
            if self.granularity == "batched":
                return await self._batched(self.prompts["local_batched"], claims, shown, "chunk",
                                           {"chunk": shown.text, "question": q})
            return list(await asyncio.gather(*(self._local(c, shown, q) for c in claims)))
        labels = list(local_labels) if local_labels is not None else [Label.BASELESS] * len(claims)
        focus = list(hints) if hints is not None else [None] * len(claims)
        if len(labels) != len(claims) or len(focus) != len(claims):
            raise ConfigError("local_labels and hints must have one entry per claim")
        if self.granularity == "batched":
            values = {"context": shown.text, "question": q, **self.reading.local_results(labels, focus, shown)}
            return await self._batched(self.prompts["global_batched"], claims, shown, "context", values)
        return list(
            await asyncio.gather(*(self._global(c, shown, q, lab, hint)
                                   for c, lab, hint in zip(claims, labels, focus)))
        )

    # -- per-claim -------------------------------------------------------------------------------------------
    async def _single(self, prompt: Prompt, values: dict[str, str], shown: Shown, where: str) -> Judgment:
        anchored: dict[str, tuple[str, ...]] = {}

        def check(reply: Any) -> list[str]:
            anchored["quotes"], problems = self.reading.evidence(reply, shown, where)
            return problems

        ex = await ask(self.backend, prompt, values, self.reading.single, check, reask=self.reading.reask)
        if ex.ok:
            assert ex.reply is not None
            return Judgment(
                label=Label(ex.reply.verdict),
                evidence=anchored["quotes"],
                evidence_ids=quote_ids(anchored["quotes"], shown),
                reason=ex.reply.reason,
                raw=ex.raw,
                prompt_version=self.prompt_version.record(prompt.name),
            )
        return self._unverified(ex, prompt)

    def _unverified(self, ex: Asked, prompt: Prompt, problems: Optional[list[str]] = None) -> Judgment:
        if ex.failure is not None:
            reason = f"judge call failed: {ex.failure}"
            # counted, never silent: the record's errors say a call failed (the run's exit code is 1)
            record_note(RecordError(kind="backend", message=f"an LLM call failed: {ex.failure}"))
        else:
            reason = "judge reply unusable after one re-ask: " + " ".join(
                problems if problems is not None else ex.problems)
        return Judgment(label=Label.UNVERIFIED, reason=reason, raw=ex.raw,
                        prompt_version=self.prompt_version.record(prompt.name))

    async def _local(self, claim: Claim, chunk: Shown, question: str) -> Judgment:
        values = {"chunk": chunk.text, "question": question, "claim": as_data(claim.text)}
        return await self._single(self.prompts["local"], values, chunk, "chunk")

    async def _global(
        self, claim: Claim, context: Shown, question: str, local_label: Label, hint: Optional[str]
    ) -> Judgment:
        values = {"context": context.text, "question": question, "claim": as_data(claim.text)}
        focus = None
        if hint is not None and local_label in (Label.ENTAILED, Label.CONTRADICTED):
            focus = self.reading.focus(context, hint)  # v3: None for a hint not found in C word for word
        if focus is None:
            prompt = self.prompts["global_nic"]  # Table 2: locally Nic -> full C + claim, no location hint
        else:
            prompt = self.prompts["global_ent" if local_label is Label.ENTAILED else "global_con"]
            values.update(focus)  # Table 2: locally Ent/Con -> full C + focus chunk + claim
        return await self._single(prompt, values, context, "context")

    # -- batched ---------------------------------------------------------------------------------------------
    async def _batched(
        self, prompt: Prompt, claims: Sequence[Claim], shown: Shown, where: str, values: dict[str, str]
    ) -> list[Judgment]:
        n = len(claims)
        items: dict[int, tuple[Optional[Judgment], list[str]]] = {}

        def check(reply: Any) -> list[str]:
            items.clear()
            problems: list[str] = []
            for v in reply.verdicts:
                if not 0 <= v.claim < n:
                    problems.append(f"there is no claim [{v.claim}] (claims are numbered 0 to {n - 1}).")
                    continue
                if v.claim in items:
                    problems.append(f"claim [{v.claim}] is judged more than once.")
                    continue
                quotes, issues = self.reading.evidence(v, shown, where)
                issues = [f"claim [{v.claim}]: {p}" for p in issues]
                judgment = None if issues else Judgment(label=Label(v.verdict), evidence=quotes,
                                                        evidence_ids=quote_ids(quotes, shown), reason=v.reason)
                items[v.claim] = (judgment, issues)
                problems.extend(issues)
            absent = [i for i in range(n) if i not in items]
            if absent:
                problems.append(f"claims {absent} have no verdict; give exactly one verdict per claim.")
            return problems

        lines = format_numbered({i: c.text for i, c in enumerate(claims)})
        ex = await ask(self.backend, prompt, {**values, "claims": lines}, self.reading.batch(n), check,
                       reask=self.reading.reask)
        items.clear()
        if ex.reply is not None:
            check(ex.reply)  # the per-claim state of the last reply that parsed
        out: list[Judgment] = []
        for i in range(n):
            judgment, issues = items.get(i, (None, [f"claim [{i}] has no verdict."]))
            if judgment is not None:
                # claims the model judged properly keep their verdict even if others in the batch failed
                out.append(judgment.model_copy(update={"raw": ex.raw,
                                                       "prompt_version": self.prompt_version.record(prompt.name)}))
            elif ex.failure is not None or ex.reply is None:
                out.append(self._unverified(ex, prompt))
            else:
                out.append(self._unverified(ex, prompt, issues))
        return out

    async def aclose(self) -> None:
        """Close the backend's HTTP client on the running loop (optional: it also closes with its loop)."""
        close: Optional[Callable[[], Awaitable[None]]] = getattr(self.backend, "aclose", None)
        if close is not None:
            await close()


class LLMDecomposer:
    """RT4CHART §3.3 claim decomposition from the answer alone (no context): ``sentence`` (one call per answer
    sentence, the paper's default) or ``holistic`` (one call for the whole answer). Qualifiers are kept."""

    def __init__(self, backend: ChatBackend, *, decomposition: Decomposition = "sentence",
                 version: str = PROMPT_VERSION) -> None:
        check_choice("decomposition", decomposition, Decomposition)
        self.backend = backend
        #: sentence or holistic (``--decomposition``)
        self.mode = decomposition
        self.name = f"llm-{decomposition}"
        self.prompt = load_prompt(f"decompose_{decomposition}", version)

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


def build_backend(endpoint: Endpoint, *, limiter: Optional[Limiter] = None) -> ChatBackend:
    """The ``ChatBackend`` that ``endpoint`` describes: an ``OpenAIBackend``, behind the response cache unless
    ``endpoint.cache`` is off. ``limiter`` paces requests instead of ``endpoint.rpm`` in this process (the Ray
    engine's shared pacer)."""
    backend = OpenAIBackend(
        endpoint.base_url,
        endpoint.model,
        api_key=endpoint.api_key,
        temperature=endpoint.temperature,
        seed=endpoint.seed,
        max_tokens=endpoint.max_tokens,
        timeout=endpoint.timeout,
        max_attempts=endpoint.max_attempts,
        concurrency=endpoint.concurrency,
        rpm=endpoint.rpm,
        backoff_base=endpoint.backoff_base,
        backoff_max=endpoint.backoff_max,
        structured=endpoint.structured,
        price=price_for(endpoint.model, price_in=endpoint.price_in, price_out=endpoint.price_out),
        limiter=limiter,
    )
    if endpoint.cache:
        return CachedBackend(backend, ResponseCache(endpoint.cache_path))
    return backend


def build_llm(endpoint: Optional[Endpoint], options: LLMJudgeOptions = LLMJudgeOptions(), *,
              backend: Optional[ChatBackend] = None,
              limiter: Optional[Limiter] = None) -> tuple[LLMJudge, LLMDecomposer]:
    """The LLM judge and decomposer for ``options`` over ``endpoint``, sharing one backend (limits and cache are
    shared).

    ``backend`` replaces the one ``endpoint`` describes, cache included (the cost estimate's, which sends nothing:
    ``rt4chart.judges.estimate``; ``endpoint`` may then be None). ``limiter`` paces requests instead of
    ``endpoint.rpm`` in this process (``OpenAIBackend``; the Ray engine's shared pacer); a given ``backend`` keeps
    its own pacing.
    """
    if backend is None:
        if endpoint is None:
            raise ConfigError("build_llm needs an Endpoint or a backend")
        backend = build_backend(endpoint, limiter=limiter)
    return (
        LLMJudge(backend, granularity=options.granularity, prompt_version=options.prompt_version),
        LLMDecomposer(backend, decomposition=options.decomposition),
    )
