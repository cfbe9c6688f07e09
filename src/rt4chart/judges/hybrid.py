"""``HybridJudge`` (``--judge hybrid``): the local judge labels every claim, a (small, local) LLM gives a one-token
verdict on the claims where it was measured better than the local judge, and a fitted combination of the two decides.

How it decides one answer at global verification (local verification is the local judge's alone):

1. The local judge labels every claim against the full context (its score, rules and evidence sentences).
2. **Who decides.** The local verdict stands, and the model is not asked, where the local judge is the
   better one (why: docs/results/hybrid.md): a context of more than ``ask_max_words`` words (``ASK_MAX_WORDS``),
   and a claim one of the local judge's rules decided (a typed edit, a one-edit copy, an unseen claim,
   a verbatim copy: ``Judgment.rule``). Each claim's ``raw`` says who decided (``decided_by``: "local" or "both").
3. **One-token verdicts.** Every other claim (``floor`` > 0 skips those the local judge scores under it) is asked, one
   request each: a short system prompt, the document (the full context; a context over ``MAX_DOCUMENT_WORDS`` is
   cut into chunks of W sentences with O overlap as in the paper, and the most supportive chunk counts), the claim
   last, then "Is the claim consistent with the document? ... Yes or No". One token is generated; P(supported) is
   read from its log-probabilities (``rt4chart.llm.yesno``). The claims of an answer are asked one after another,
   so a server's prefix cache evaluates the document once per answer.
4. **Combination** (``rt4chart.judges.combine``): a logistic model over the LLM's P(supported), the local judge's
   score and label, and the claim's and document's length gives the claim's risk; at or above its threshold the
   claim is hallucinated. It may turn a locally entailed claim hallucinated and a locally flagged one entailed.
5. **Contradicted or baseless.** A hallucinated claim the local judge found contradicted stays contradicted;
   otherwise the combination's second model (the same features) decides between contradicted and baseless (why
   there is no second question: docs/results/hybrid.md).
6. **Evidence**: for an entailed or contradicted claim, the local judge's evidence sentences with their sentence ids,
   else the context sentences that cover the claim best (``LocalJudge.premises``, the one premise builder: exact
   context text and ids); a baseless claim has none.
7. **Never fail open.** A call that fails or a reply that is neither Yes nor No keeps the claim's local verdict;
   its reason says so and the record's ``errors`` get a note (``llm.meter.record_note``).

**The model the card was fitted for.** The combination's weights are fitted for one model (the card's
``fitted_for``; the shipped card: Qwen2.5-Coder-1.5B-Instruct Q4_K_M). At its first verdict the judge compares it
with the model in use (the backend's model id and, from a llama.cpp server, the GGUF file it loaded:
``model_file``, from ``/props``: ``rt4chart.llm.managed.fit_to_server``) and logs one warning on the
``rt4chart.judges.hybrid`` logger when they differ, naming both and the command that refits the card (``REFIT``);
when the model in use answers only to an alias and reports no file, the warning says it cannot tell. A card that
names no model, or the same model, logs nothing.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Optional, Sequence

from ..audit.config import AuditConfig
from ..errors import ConfigError
from ..llm.backend import ChatBackend
from ..llm.managed import ServedModel
from ..llm.prompt_versions import PromptVersion, resolve
from ..llm.templates import Prompt, as_data, load_prompt
from ..llm.yesno import Answer, ask_yes_no
from ..llm.meter import record_note
from ..text.segment import make_chunks, split_sentences
from ..types import Claim, Judgment, Label, RecordError, Stage
from .combine import Combination, features, model_names, same_model
from .judge_options import HybridOptions
from .local import LocalJudge

__all__ = ["HybridJudge", "HYBRID_PROMPT_VERSION", "MAX_DOCUMENT_WORDS", "REFIT", "ASK_MAX_WORDS"]

log = logging.getLogger(__name__)

#: the hybrid judge's prompt version (``rt4chart.llm.prompt_versions``; its template is ``hybrid_supports.v4``)
HYBRID_PROMPT_VERSION = "hybrid@v4"
#: a context longer than this (in words) is asked about chunk by chunk (W sentences, O overlap)
MAX_DOCUMENT_WORDS = 2500
#: a context longer than this (in words) is the local judge's alone (module docstring, step 2)
ASK_MAX_WORDS = 120
#: evidence sentences given to an entailed or contradicted claim that the local judge gave none
EVIDENCE_SENTENCES = 2
#: the command that refits the combination card for the model in use, and how the card is then used
REFIT = ("rt4chart calibrate LABELLED --judge hybrid --card -o CARD.json (with the same model options), then "
         "--combination CARD.json")


class HybridJudge:
    """The local judge, one-token verdicts from a chat model, and a fitted combination (module docstring).

    ``local``: a ``LocalJudge``; ``backend``: any ``ChatBackend`` (``build_llm``'s, a local llama-server or an API);
    ``combination``: a fitted ``Combination`` (default: the shipped card); ``floor``: claims the local judge scores
    under it keep their verdict without a call (0: every claim is asked); ``ask_max_words``: contexts longer than
    this many words are the local judge's alone (None: the model is asked on any context); ``rules_decide``: claims
    the local judge's rules decided are its alone (False: the model is asked about them too, as the combination's
    training collects every claim); ``window``/``overlap``: the chunks of a long context (default: the audit's,
    ``AuditConfig``); ``version``: its prompts;
    ``served``: what the model server said about itself (``rt4chart.llm.managed.fit_to_server``): its slots become
    ``records_in_flight``, its GGUF file ``model_file``."""

    name = "hybrid"

    @classmethod
    def from_options(cls, options: HybridOptions, backend: ChatBackend, *, config: AuditConfig = AuditConfig(),
                     served: Optional[ServedModel] = None) -> "HybridJudge":
        """The judge for ``options`` (its local judge's, ``--floor`` and ``--combination``; None: the default),
        asking ``backend``, a long context cut as the audit's ``config`` cuts it (W, O)."""
        kw: dict = {"floor": options.floor} if options.floor is not None else {}
        if options.combination:
            kw["combination"] = Combination.load(options.combination)
        return cls(LocalJudge.from_options(options), backend, window=config.window, overlap=config.overlap,
                   served=served, **kw)

    def __init__(self, local: LocalJudge, backend: ChatBackend, *, combination: Optional[Combination] = None,
                 floor: float = 0.0, ask_max_words: Optional[int] = ASK_MAX_WORDS, rules_decide: bool = True,
                 window: int = AuditConfig.window, overlap: int = AuditConfig.overlap,
                 version: str = HYBRID_PROMPT_VERSION,
                 served: Optional[ServedModel] = None) -> None:
        if not 0.0 <= floor <= 1.0:
            raise ConfigError(f"floor must be in [0, 1], got {floor!r}")
        served = served or ServedModel()
        #: records audited at once: one answer per slot of the model server (its document stays cached while its
        #: claims are asked); None where the server reports no slots (``SlottedJudge``)
        self.records_in_flight: Optional[int] = served.slots
        #: the GGUF file the model server reports it loaded, else None
        self.model_file: Optional[str] = served.model_file
        self.local = local
        self.backend = backend
        self.combination = combination or Combination.load()
        self.floor = floor
        self.ask_max_words = ask_max_words
        self.rules_decide = rules_decide
        self.window, self.overlap = window, overlap
        #: the registry entry (``hybrid@v4``); its verdicts carry ``hybrid@v4/hybrid_supports``
        self.prompt_version: PromptVersion = resolve(version, judge="hybrid", stacklevel=2)
        # the template id (``hybrid_supports.v4``) stays in the cache keys and the fingerprint (``version``)
        self.supports: Prompt = load_prompt("hybrid_supports", self.prompt_version.stable_id)
        self._model_checked = False

    def model_warning(self) -> Optional[str]:
        """What to say when the card was fitted for another model than the one in use, or when the one in use
        cannot be identified (module docstring); None when the card names no model or names this one."""
        fitted = self.combination.fitted_for
        model = getattr(self.backend, "model", None)
        served = model_names(self.model_file, model)
        same = same_model(fitted, served)
        if fitted is None or same is True:
            return None
        names = [n for n in (fitted.get("name"), fitted.get("gguf")) if n]
        card = f"{names[0]} ({names[1]})" if len(names) > 1 and names[1] != names[0] else names[0] if names else "?"
        here = " ".join(x for x in (self.model_file and f"{self.model_file}", model and f"(model {model!r})") if x)
        if same is None:
            return (f"the hybrid judge's combination card was fitted for {card}; the model in use {here or ''} "
                    "reports no model file or name that tells whether it is that model. If it is another one, refit "
                    f"the card for it: {REFIT}").replace("  ", " ")
        return (f"the hybrid judge's combination card was fitted for {card}, but the model in use is {here}: its "
                f"weights do not fit this model's verdicts. Refit the card for it: {REFIT}")

    def _check_model(self) -> None:
        if not self._model_checked:
            self._model_checked = True
            message = self.model_warning()
            if message:
                log.warning(message)

    @property
    def version(self) -> str:
        """The local models, the prompts and the combination; part of the judge fingerprint."""
        return (f"{self.local.version}+{self.supports.id}+combination@{self.combination.version}"
                + (f"+floor={self.floor:g}" if self.floor else "")
                # the spellings fingerprints were made with ("+route=", "+rules-asked"), kept so they still match
                + (f"+route={self.ask_max_words}" if self.ask_max_words is not None else "")
                + ("" if self.rules_decide else "+rules-asked"))

    @property
    def threshold(self) -> float:
        return self.combination.threshold

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
        """The local judge's judgments; at global verification, every claim's is combined with the LLM's."""
        local = await self.local.judge(claims, evidence, question=question, stage=stage,
                                       local_labels=local_labels, hints=hints)
        if stage != "global" or not claims:
            return local
        self._check_model()
        words = len(evidence.split())
        if self.ask_max_words is not None and words > self.ask_max_words:
            return [_local_decides(j, f"a context of {words} words (over {self.ask_max_words})") for j in local]
        premises = await asyncio.to_thread(self.local.premises, claims, evidence, question, EVIDENCE_SENTENCES)
        documents = self._documents(evidence)
        out = list(local)
        for i, (claim, judgment) in enumerate(zip(claims, local)):  # in sequence: the document stays cached
            if judgment.rule is not None and self.rules_decide:
                out[i] = _local_decides(judgment, f"its rule decided ({judgment.rule})")
                continue
            if judgment.score is not None and judgment.score < self.floor:
                continue
            out[i] = await self._decide(claim, judgment, documents, premises[i])
        return out

    def _documents(self, evidence: str) -> list[str]:
        """The text each claim is asked against: the context, or its chunks when it is long."""
        if len(evidence.split()) <= MAX_DOCUMENT_WORDS:
            return [evidence]
        chunks = make_chunks(split_sentences(evidence), evidence, self.window, self.overlap)
        return [c.text for c in chunks] or [evidence]

    async def _ask(self, prompt: Prompt, document: str, claim: Claim) -> Answer:
        messages = prompt.render(document=as_data(document), claim=as_data(" ".join(claim.text.split())))
        return await ask_yes_no(self.backend, messages, prompt_version=prompt.id)

    async def _decide(self, claim: Claim, local: Judgment, documents: Sequence[str],
                      near: tuple[tuple[str, ...], tuple[tuple[int, ...], ...]]) -> Judgment:
        """Combine the local judgment (through its label, score and evidence: the ``Judge`` protocol's
        ``Judgment``) with the model's P(supported); ``near`` is the premise (quotes, sentence ids) for a claim the
        local judgment gave no evidence."""
        best: Optional[tuple[float, str]] = None
        for document in documents:
            answer = await self._ask(self.supports, document, claim)
            if not answer.ok:
                return _kept(local, answer)
            assert answer.p_yes is not None
            if best is None or answer.p_yes > best[0]:
                best = (answer.p_yes, document)
        assert best is not None
        p_yes, document = best
        values = features(p_yes, local, claim.text, document)
        risk = self.combination.hallucinated(values)
        raw: dict[str, object] = {"decided_by": "both", "p_supported": round(p_yes, 4), "risk": round(risk, 4),
                                  "features": [round(v, 4) for v in values]}
        note = f"LLM P(supported)={p_yes:.2f}, combined risk {risk:.2f}"
        if risk < self.combination.threshold:
            label = Label.ENTAILED
        elif local.label is Label.CONTRADICTED:
            label = Label.CONTRADICTED
        else:
            p_con = self.combination.contradicted(values)
            raw["p_contradicted"] = round(p_con, 4)
            note += f", P(contradicted)={p_con:.2f}"
            label = Label.CONTRADICTED if p_con >= self.combination.contradicted.threshold else Label.BASELESS
        quotes: tuple[str, ...] = ()
        ids: tuple[tuple[int, ...], ...] = ()
        if label is not Label.BASELESS:
            quotes, ids = ((tuple(local.evidence), local.evidence_ids)
                           if local.evidence and local.label is not Label.BASELESS else near)
        verdict = {Label.ENTAILED: "supported", Label.CONTRADICTED: "contradicted", Label.BASELESS: "not supported"}
        return Judgment(label=label, evidence=quotes, evidence_ids=ids, score=round(risk, 4), raw=json.dumps(raw),
                        reason=f"{verdict[label]} ({note}); local: {local.reason}"[:600],
                        prompt_version=self.prompt_version.record(self.supports.name),
                        spans=local.spans if label.hallucinated and local.label.hallucinated else ())

    async def aclose(self) -> None:
        close = getattr(self.backend, "aclose", None)
        if close is not None:
            await close()


def _local_decides(local: Judgment, why: str) -> Judgment:
    """A claim the model is not asked about: its local judgment, saying who decided and why."""
    return local.model_copy(update={"raw": json.dumps({"decided_by": "local", "why": why}),
                                    "reason": f"{local.reason}; the local judge decides: {why}"[:600]})


def _kept(local: Judgment, answer: Answer) -> Judgment:
    """A claim whose LLM verdict could not be had: its local judgment, saying so (never a silent pass)."""
    why = answer.failure
    # a call that failed counts as a failed LLM call of the run (exit code 1, --retry-errors); an unusable reply
    # is the judge's own note
    kind = "backend" if answer.call_failed else "judge"
    record_note(RecordError(kind=kind, message=f"hybrid: the LLM check failed ({why}); the local judge's "
                            "verdict was kept"))
    return local.model_copy(update={"reason": f"{local.reason}; LLM check failed, local verdict kept: {why}"[:600]})
