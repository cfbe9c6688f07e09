"""``HybridJudge`` (``--judge hybrid``): the local judge decides every claim, and a (small, local) LLM is asked only
about the claims whose label depends on meaning.

How it decides one answer at global verification (local verification is the local judge's alone):

1. The local judge labels every claim against the full context (its scores, rules and evidence sentences).
2. **Routing.** A claim goes to the LLM when the local judge found it supported or contradicted by some sentence
   with a score of at least ``floor`` (claims it finds clearly supported are not asked about), or found it baseless
   with a score under ``threshold + margin`` (near its threshold) while some sentence shares its content words. The
   rest keep their local verdict without a call: baseless claims that no sentence speaks to, meta sentences,
   unverified ones.
3. **Premise.** Each routed claim brings the few context sentences the local judge found for it (its evidence
   quotes and its best-covering sentences); their union, in context order, is numbered as the premise. The model
   sees only that, never the whole context, so prompts stay short on a CPU; the question is not sent (a claim is
   checked against the context alone, as the local judge's verdicts are).
4. **One question.** ``batched`` (default): one call for the answer, all routed claims listed after the premise,
   one verdict each. ``per-claim``: one call per routed claim, each with the same premise first, so that a server's
   prefix cache evaluates it once. Both prompts put the instructions first, then the premise, the claims last.
   Replies are JSON (schema enforced where the server supports it): a short reason, then ``supported``,
   ``contradicted`` or ``not_stated``, then the premise sentence numbers relied on, which rt4chart turns into
   evidence quotes (the sentences themselves, exact context text).
5. **Combination** (``POLICY``): the LLM's verdict replaces the local label of a routed claim, except where
   ``POLICY`` keeps the local one; docs/results/hybrid.md says how it was chosen and what it measures.
6. **Never fail open.** A call that fails, or a reply still unusable after one re-ask, keeps the local verdicts of
   its claims; their reasons say so and the record's ``errors`` get a note (``meter.record_note``). The LLM side
   never makes a claim entailed without evidence.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Optional, Sequence

from ..errors import ConfigError
from ..llm.ask import Asked, ask
from ..llm.backend import ChatBackend
from ..llm.schemas import NumberedCheck, PremiseCheck, batch_check_reply
from ..llm.templates import Prompt, as_data, cited_items, format_numbered, load_prompt
from ..meter import record_note
from ..types import Claim, Judgment, Label, RecordError, Stage
from .local import LocalJudge

__all__ = ["HybridJudge", "POLICY", "HYBRID_PROMPT_VERSION"]

#: the version of the hybrid judge's prompt templates (``hybrid_batched``, ``hybrid_claim``)
HYBRID_PROMPT_VERSION = "v3"
#: baseless claims scored under the local threshold plus this margin are asked about
MARGIN = 0.25
#: claims the local judge scores under this floor keep their verdict without a call (clearly supported)
FLOOR = 0.15
#: premise sentences taken per routed claim, and in all for one answer
PER_CLAIM = 3
MAX_PREMISE = 16

#: (local label, LLM verdict) -> final label, for routed claims; a pair not listed keeps the local label. The LLM
#: may turn a claim contradicted (the meaning-level misses of the local judge: scope, negation, recombined facts),
#: and brings the sentences it cites as evidence for a supported claim; it never clears a claim the local judge
#: flagged: "supported" for a locally baseless claim lowered F1 on held-out RAGTruth and SNLI/MNLI
#: (docs/results/hybrid.md)
POLICY: Mapping[tuple[Label, str], Label] = MappingProxyType({
    (Label.ENTAILED, "supported"): Label.ENTAILED,
    (Label.ENTAILED, "contradicted"): Label.CONTRADICTED,
    (Label.BASELESS, "contradicted"): Label.CONTRADICTED,
    (Label.CONTRADICTED, "contradicted"): Label.CONTRADICTED,
})

#: the LLM verdicts that agree with a label and can bring their own evidence for it
_AGREE = frozenset({(Label.ENTAILED, "supported"), (Label.CONTRADICTED, "contradicted")})

REASK = ("Your reply could not be used: {problems}\n"
         "Reply again with only the JSON object described above, one verdict per claim.")


class HybridJudge:
    """The local judge first, a chat model for the claims that need meaning (module docstring).

    ``local``: a ``LocalJudge``; ``backend``: any ``ChatBackend`` (``build_llm``'s, a local llama-server or an API);
    ``granularity``: ``batched`` (one call per answer) or ``per-claim``; ``margin``: how far above the local
    threshold a baseless claim is still asked about; ``policy``: how verdicts combine (``POLICY``)."""

    name = "hybrid"

    def __init__(self, local: LocalJudge, backend: ChatBackend, *, granularity: str = "batched",
                 margin: float = MARGIN, floor: float = FLOOR, policy: Mapping[tuple[Label, str], Label] = POLICY,
                 version: str = HYBRID_PROMPT_VERSION) -> None:
        if granularity not in ("per-claim", "batched"):
            raise ConfigError(f"granularity must be 'per-claim' or 'batched', got {granularity!r}")
        for name, value in (("margin", margin), ("floor", floor)):
            if not 0.0 <= value <= 1.0:
                raise ConfigError(f"{name} must be in [0, 1], got {value!r}")
        self.local = local
        self.backend = backend
        self.granularity = granularity
        self.margin = margin
        self.floor = floor
        self.policy = MappingProxyType(dict(policy))
        self.prompt: Prompt = load_prompt("hybrid_batched" if granularity == "batched" else "hybrid_claim", version)

    @property
    def version(self) -> str:
        """The local models, the prompt and how claims are routed and combined; part of the judge fingerprint."""
        policy = ",".join(f"{a.value[:3]}:{b[:3]}>{c.value[:3]}" for (a, b), c in sorted(
            self.policy.items(), key=lambda kv: (kv[0][0].value, kv[0][1])))
        return f"{self.local.version}+{self.prompt.id}+floor={self.floor:g}+margin={self.margin:g}+{policy}"

    @property
    def threshold(self) -> float:
        return self.local.threshold

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
        """The local judge's judgments; at global verification, those of routed claims are checked by the LLM."""
        local = await self.local.judge(claims, evidence, question=question, stage=stage,
                                       local_labels=local_labels, hints=hints)
        if stage != "global" or not claims:
            return local
        nearest = await asyncio.to_thread(self.local.nearest, claims, evidence, question)
        texts = self.local.evidence(evidence).index.texts
        premises = [self._premise(j, ids, texts) for j, ids in zip(local, nearest)]
        routed = [i for i, j in enumerate(local) if premises[i] and self.routes(j)]
        if not routed:
            return local
        ids = self._union([premises[i] for i in routed])
        number = {sid: n for n, sid in enumerate(ids)}
        premise = format_numbered({n: texts[sid] for n, sid in enumerate(ids)})
        checks = await self._ask([claims[i] for i in routed], premise)
        out = list(local)
        for i, (check, why) in zip(routed, checks):
            own = [number[sid] for sid in premises[i] if sid in number]
            out[i] = self._combine(local[i], check, why, [texts[sid] for sid in ids], own)
        return out

    # -- routing -------------------------------------------------------------------------------------------------
    def routes(self, judgment: Judgment) -> bool:
        """Whether a claim's local judgment needs the LLM: supported or contradicted by some sentence and scored at
        least ``floor``, or baseless with a score near the threshold (the caller checks that some sentence shares its
        words)."""
        if judgment.label in (Label.ENTAILED, Label.CONTRADICTED):
            return bool(judgment.evidence) and (judgment.score is None or judgment.score >= self.floor)
        if judgment.label is Label.BASELESS:
            return judgment.score is not None and judgment.score < self.threshold + self.margin
        return False

    @staticmethod
    def _premise(judgment: Judgment, nearest: tuple[int, ...], texts: Sequence[str]) -> tuple[int, ...]:
        """A claim's premise sentences: those its local evidence quotes, then its best-covering ones."""
        quoted = [texts.index(q) for q in judgment.evidence if q in texts]
        return tuple(dict.fromkeys([*quoted, *nearest]))[:PER_CLAIM]

    @staticmethod
    def _union(premises: Sequence[tuple[int, ...]]) -> list[int]:
        """The premise of one call: every routed claim's sentences, best first round by round, at most
        ``MAX_PREMISE``, in context order."""
        chosen: dict[int, None] = {}
        for rank in range(PER_CLAIM):
            for p in premises:
                if rank < len(p) and len(chosen) < MAX_PREMISE:
                    chosen.setdefault(p[rank])
        return sorted(chosen)

    # -- the model -----------------------------------------------------------------------------------------------
    async def _ask(self, claims: Sequence[Claim], premise: str) -> list[tuple[Optional[Any], str]]:
        """One (reply, problem) per claim: a ``PremiseCheck``/``NumberedCheck`` and "", or None and why not."""
        if self.granularity == "per-claim":
            out = []
            for claim in claims:  # one after another: each request reuses the premise its predecessor cached
                text = as_data(" ".join(claim.text.split()))
                ex = await ask(self.backend, self.prompt, {"premise": premise, "claim": text}, PremiseCheck,
                               reask=REASK)
                out.append((ex.reply, "") if ex.ok else (None, _why(ex)))
            return out
        n = len(claims)

        def check(reply: Any) -> list[str]:
            got = [v.claim for v in reply.verdicts]
            return [] if got == list(range(n)) else [
                f"the verdicts are for claims {got}; give one verdict for each of the claims 0 to {n - 1}, in order."]

        lines = format_numbered({i: c.text for i, c in enumerate(claims)})
        ex: Asked = await ask(self.backend, self.prompt, {"premise": premise, "claims": lines},
                              batch_check_reply(n), check, reask=REASK)
        if ex.ok:
            return [(v, "") for v in ex.reply.verdicts]
        if ex.reply is not None and len(ex.reply.verdicts) == n:
            # numbered out of order, but one verdict per claim: keep the ones whose number is right
            return [(v, "") if v.claim == i else (None, _why(ex)) for i, v in enumerate(ex.reply.verdicts)]
        return [(None, _why(ex))] * n

    # -- combination ---------------------------------------------------------------------------------------------
    def _combine(self, local: Judgment, check: Optional[Any], why: str, premise: Sequence[str],
                 own: Sequence[int]) -> Judgment:
        """The final judgment of a routed claim from its local judgment and the LLM's check of it."""
        if check is None:
            record_note(RecordError(kind="judge", message=f"hybrid: the LLM check failed ({why}); the local "
                                    "judge's verdicts were kept for the claims it was asked about"))
            return local.model_copy(update={"reason": f"{local.reason}; LLM check failed, local verdict kept: "
                                                      f"{why}"[:600]})
        assert isinstance(check, (PremiseCheck, NumberedCheck))
        label = self.policy.get((local.label, check.verdict), local.label)
        cited, _ = cited_items(check.sentences, premise)  # a number out of range cites nothing
        note = f"LLM {check.verdict.replace('_', ' ')}: {check.reason.strip()}"
        if label is local.label and (label, check.verdict) not in _AGREE:
            # the local verdict stands (the policy keeps it, or the model agrees with a baseless one)
            return local.model_copy(update={"reason": f"{note}; local: {local.reason}", "prompt_version":
                                            self.prompt.id, "raw": _raw(check)})
        quotes: tuple[str, ...] = ()
        if label in (Label.ENTAILED, Label.CONTRADICTED):
            # the sentences the model cited, else those it was shown for this claim (it decided from them)
            quotes = tuple(cited) or tuple(premise[n] for n in own) or local.evidence
        score = local.score
        if score is not None:
            t = self.threshold
            score = round(max(score, t) if label.hallucinated else min(score, t - 0.01), 4)
        return Judgment(label=label, evidence=quotes, reason=f"{note}; local: {local.reason}", score=score,
                        raw=_raw(check), prompt_version=self.prompt.id,
                        spans=local.spans if label.hallucinated and local.label.hallucinated else ())

    async def aclose(self) -> None:
        close = getattr(self.backend, "aclose", None)
        if close is not None:
            await close()


def _why(ex: Asked) -> str:
    return ex.why()[:300]


def _raw(check: Any) -> str:
    return check.model_dump_json()
