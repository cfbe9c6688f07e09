"""The RT4CHART backward program B(C, Q, A) -> T as an async orchestrator (paper §3.2, Figure 2).

segment C -> chunk (W, O) -> decompose A -> local verification (claim x chunk, OR-join) -> adaptive global
verification against the full C (Table 2) -> evidence re-anchored in C (retromorphic relation) -> AND-join.
"""

from __future__ import annotations

import asyncio
import os
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, AsyncIterator, Iterable, Optional, Sequence, Union

from ..errors import BackendError, ConfigError, InputError, JudgeError, error_kind
from ..io import validate_record
from ..llm.meter import metering
from ..text.align import anchor, rebase_ids
from ..evidence import content_words
from ..text.language import NAMES, language
from ..text.segment import make_chunks, split_sentences
from ..types import (
    AuditResult, Chunk, CitationCheck, Claim, ClaimVerdict, Judgment, Label, Record, RecordError, Sentence, Span,
    merge_intervals,
)
from .calibration import Calibration, fingerprint_with, load_calibration
from .citations import attach_citations, check_citations
from .config import AuditConfig
from .decompose import Decomposer, RuleDecomposer, not_claims, particle_statements
from .joins import and_join, or_join
from .protocols import Judge
from .relation import claim_violations


def _context_ids(chunk_judgments: list[list[Judgment]], chunks: Sequence[Chunk],
                 sentences: Sequence[Sentence]) -> list[list[Judgment]]:
    """The chunk judgments with their evidence ids (numbers of the chunk's own sentences) mapped to the context's
    sentence ids by offsets (``text.align.rebase_ids``); a quote whose ids do not map keeps none (text fallback)."""
    out = []
    for chunk, judgments in zip(chunks, chunk_judgments):
        own = split_sentences(chunk.text) if any(j.evidence_ids for j in judgments) else []
        out.append([j.model_copy(update={"evidence_ids": tuple(rebase_ids(ids, own, chunk.start, sentences)
                                                               for ids in j.evidence_ids)})
                    if j.evidence_ids else j for j in judgments])
    return out


def _failed(n: int, reason: str) -> list[Judgment]:
    return [Judgment(label=Label.UNVERIFIED, reason=reason) for _ in range(n)]


async def judge_safely(judge: Judge, claims: Sequence[Claim], evidence: str, **kwargs: Any) -> list[Judgment]:
    """Call the judge; a failed or malformed call makes its claims UNVERIFIED, never entailed."""
    if not claims:
        return []
    try:
        out = await judge.judge(claims, evidence, **kwargs)
    except BackendError as exc:
        if exc.is_config_error:
            raise  # a wrong endpoint, key or model fails every call: stop the run instead of retrying each claim
        return _failed(len(claims), f"judge failed: {exc}")
    except JudgeError as exc:
        return _failed(len(claims), f"judge failed: {exc}")
    if len(out) != len(claims):
        return _failed(len(claims), f"judge returned {len(out)} judgments for {len(claims)} claims")
    return list(out)


_JOINABLE_GAP = re.compile(r"[\s,;:]*(?:(?:and|but|or|while|whereas|although|though)[\s,;:]*)?", re.IGNORECASE)


def merge_spans(spans: Iterable[Span], text: Optional[str] = None) -> tuple[Span, ...]:
    """Union of answer spans as sorted, non-overlapping spans (``types.merge_intervals``).

    With ``text``, spans separated only by whitespace, punctuation or one conjunction ("... users and
    verification ...") are joined too, so two flagged clauses of one sentence read as one span.
    """
    joins = None if text is None else (lambda end, start: _JOINABLE_GAP.fullmatch(text[end:start]) is not None)
    return tuple(Span(start=s, end=e) for s, e in merge_intervals(((sp.start, sp.end) for sp in spans), joins))


@dataclass(frozen=True)
class _Fatal:
    """An error that stops a whole batch (e.g. the LLM endpoint rejects our key): raised by ``audit_many``."""

    error: BaseException


#: builds the judge of an ``Auditor`` made without one; the judges package registers the offline default
#: (``rt4chart.judges.registry.default_judge``): this package sits below the judges and cannot import them
_DEFAULT_JUDGE: Optional[Callable[[], Judge]] = None


def set_default_judge(factory: Callable[[], Judge]) -> None:
    """Register what builds the judge of an ``Auditor()`` made without ``judge=``."""
    global _DEFAULT_JUDGE
    _DEFAULT_JUDGE = factory


#: the rules of a judgment that read no words, only numbers and dates: they hold in any language
LANGUAGE_FREE = ("number-conflict", "arithmetic", "edit:number", "typed:number")


def unread(judgment: Judgment, lang: str, judge: str) -> Judgment:
    """A judgment on a claim in a language its judge does not read (``Judge.languages``): a contradiction that a
    language-free check found (a number or a date that differs: ``LANGUAGE_FREE``) stands; anything else is
    ``unverified``, never entailed, with a reason naming the language and the judges that read it."""
    if judgment.label is Label.CONTRADICTED and judgment.rule in LANGUAGE_FREE:
        return judgment
    name = NAMES.get(lang, lang)
    return Judgment(label=Label.UNVERIFIED, score=None, rule="language",
                    reason=f"the answer is in {name}, which the {judge} judge does not read: its numbers and dates "
                    f"were checked, the rest needs a judge that reads {name} (--judge llm, or the hybrid judge with a "
                    "multilingual model)")


class Auditor:
    """Audits records with a judge and a decomposer. Reusable and safe to share across concurrent records.

    The audit's settings are an ``AuditConfig`` (``config``), or its fields given as keywords (``window=``,
    ``overlap=``, ``global_verification=``, ``prefilter=``, ``concurrency=``) over it; an unknown keyword is a
    ``ConfigError``.

    Example (``audit`` is a coroutine; ``rt4chart.audit`` is the synchronous one-record call):

        >>> import asyncio
        >>> from rt4chart import Auditor
        >>> from rt4chart.judges.lexical import LexicalJudge
        >>> auditor = Auditor(judge=LexicalJudge())
        >>> record = {"id": 1, "context": "Paris is in France.", "answer": "Paris is in France."}
        >>> result = asyncio.run(auditor.audit(record))
        >>> result.label.value
        'entailed'
    """

    def __init__(
        self,
        *,
        judge: Optional[Judge] = None,
        decomposer: Optional[Decomposer] = None,
        config: Optional[AuditConfig] = None,
        fingerprint: Optional[str] = None,
        calibration: "Optional[Union[Calibration, str, os.PathLike[str], Mapping[str, Any]]]" = None,
        citations: Optional[bool] = None,
        **settings: Any,
    ) -> None:
        self.config = (config or AuditConfig()).with_options(settings)
        if judge is None:
            if _DEFAULT_JUDGE is None:
                raise ConfigError("no judge given and no default judge known: pass judge=, or import rt4chart (its "
                                  "judges register the offline default)")
            judge = _DEFAULT_JUDGE()
        self.judge = judge
        self.decomposer = decomposer or RuleDecomposer()
        self._fallback = RuleDecomposer()  # used for an answer whose decomposition by ``decomposer`` failed
        #: a digest of what decides this auditor's verdicts (``rt4chart.judges.registry.judge_fingerprint``), written
        #: into each result's ``config`` as ``judge_fingerprint``: ``audit --baseline`` reuses a result only when it
        #: matches. None (an auditor built by hand) writes none, and such results are never reused.
        #: a calibration fitted on this judge's scores (``rt4chart calibrate``) re-decides every result
        #: (``Calibration.apply``); it must name this judge, and it is part of the fingerprint
        self.calibration = None if calibration is None else load_calibration(calibration)
        if self.calibration is not None:
            self.calibration.check_judge(judge.name, fingerprint)
        self.fingerprint = fingerprint_with(fingerprint, self.calibration)
        #: check the citations of an answer whose context is a list of passages (``AuditResult.citation_check``):
        #: True every such answer, None (the default) one that carries citations, False none
        self.citations = citations
        if citations is not None and self.fingerprint:
            self.fingerprint += "+citations" if citations else "+no-citations"

    # -- one record ---------------------------------------------------------------------------------------------
    async def audit(self, record: Union[Record, Mapping[str, Any]], *, index: Optional[int] = None) -> AuditResult:
        """Audit one record: a ``Record``, or a mapping ``{"id", "context", "question", "answer"}`` that is
        validated here (``rt4chart.io.validate_record``; raises ``InputError`` if it is invalid)."""
        rec = record if isinstance(record, Record) else validate_record(record, index)
        with metering() as meter:
            started = time.perf_counter()
            result = await self._audit(rec)
            if self.calibration is not None:
                result = self.calibration.apply(result)
            if self.checks_citations(rec, result):
                report = await check_citations(result, rec.passages, self.judge)
                result = result.model_copy(update={"citation_check": CitationCheck.model_validate(report.to_json())})
            usage = meter.total.model_copy(update={"seconds": round(time.perf_counter() - started, 6)})
        return result.model_copy(update={"usage": usage, "errors": (*result.errors, *meter.notes)})

    def checks_citations(self, rec: Record, result: AuditResult) -> bool:
        """Whether the citations of ``result`` (the audit of ``rec``) are checked: its context is a list of passages,
        and citations are asked for (``citations=True``) or, by default, some claim cites a passage."""
        if self.citations is False or rec.passages is None:
            return False
        return bool(self.citations) or any(v.citations for v in result.claims)

    async def _audit(self, rec: Record) -> AuditResult:
        context, answer, question = rec.context, rec.answer, rec.question
        cfg = self.config
        # segmenting a long context and anchoring evidence in it take milliseconds of CPU per record: they run in a
        # worker thread, as the judges' work does, so that the event loop (a server's) stays free meanwhile
        sentences, chunks = await asyncio.to_thread(self._segment, context)
        claims, decomposed, notes = await self._decompose(answer, question)
        if rec.citations:
            claims = attach_citations(claims, rec.citations)
        if not claims:
            # nothing was checked, so nothing may be called entailed (never fail open)
            return AuditResult(
                id=rec.id, label=Label.UNVERIFIED, hallucinated=None, claims=(), context=context,
                question=question, answer=answer, judge=self.judge.name,
                config={**decomposed, **self._stamp(rec)}, not_claims=not_claims(answer, claims),
                errors=(*notes,
                        RecordError(kind="audit", message="the decomposer found no claim to check in the answer")),
            )

        chunk_judgments = await self._local(claims, chunks, question)
        if not cfg.global_verification:  # a chunk judgment may be final: its sentence ids become the context's
            chunk_judgments = await asyncio.to_thread(_context_ids, chunk_judgments, chunks, sentences)
        local_labels = [or_join(j[i].label for j in chunk_judgments) for i in range(len(claims))]
        focus = [self._focus(i, local_labels[i], chunk_judgments) for i in range(len(claims))]

        if cfg.global_verification:
            hints = [chunks[f].text if f is not None and local_labels[i] != Label.BASELESS else None
                     for i, f in enumerate(focus)]
            finals = await judge_safely(
                self.judge, claims, context, question=question, stage="global",
                local_labels=local_labels, hints=hints,
            )
            windows = [(0, len(context))] * len(claims)
        else:
            finals = [chunk_judgments[f][i] if f is not None else self._baseless_local(i, chunk_judgments)
                      for i, f in enumerate(focus)]
            windows = [(chunks[f].start, chunks[f].end) if f is not None else (0, len(context)) for f in focus]

        said = particle_statements(answer, claims, question)
        if said:
            finals, windows = await self._particles(said, claims, finals, windows, context, question)
        read = language(answer)
        if read not in (getattr(self.judge, "languages", None) or (read,)):
            finals = [unread(j, read, self.judge.name) for j in finals]
        verdicts = await asyncio.to_thread(lambda: [
            self._verdict(claim, finals[i], local_labels[i], [j[i].label for j in chunk_judgments], focus[i],
                          context, answer, sentences, windows[i])
            for i, claim in enumerate(claims)
        ])
        label = and_join(v.label for v in verdicts)
        spans = merge_spans((s for v in verdicts if v.label.hallucinated for s in (v.flagged_spans or v.answer_spans)),
                            answer)
        config = {
            "window": cfg.window, "overlap": cfg.overlap, "global_verification": cfg.global_verification,
            "prefilter": cfg.prefilter, **decomposed, "sentences": len(sentences), "chunks": len(chunks),
            **self._stamp(rec),
        }
        return AuditResult(
            id=rec.id, label=label, hallucinated=label.answer_hallucinated, claims=tuple(verdicts), spans=spans,
            context=context, question=question, answer=answer, judge=self.judge.name, config=config, errors=notes,
            not_claims=not_claims(answer, claims),
        )

    async def _particles(self, said: Mapping[int, str], claims: Sequence[Claim], finals: list[Judgment],
                         windows: list[tuple[int, int]], context: str, question: Optional[str]
                         ) -> tuple[list[Judgment], list[tuple[int, int]]]:
        """The finals with each claim a particle opens (``decompose.particle_statements``) contradicted when the
        context contradicts what the particle asserts ("Yes, you can visit on Mondays." to "Is the museum open on
        Mondays?" over "The museum is closed on Mondays."), its reason quoting that statement; the statements are
        judged alone against the whole context. Otherwise the claim keeps its own verdict: the particle is never a
        claim of its own."""
        order = sorted(said)
        statements = [claims[i].model_copy(update={"text": said[i]}) for i in order]
        judged = await judge_safely(self.judge, statements, context, question=question, stage="global")
        finals, windows = list(finals), list(windows)
        for i, j in zip(order, judged):
            if j.label == Label.CONTRADICTED and finals[i].label != Label.CONTRADICTED:
                finals[i] = j.model_copy(update={
                    "spans": (), "reason": f"the answer's particle says '{said[i]}', which the context "
                                          f"contradicts: {j.reason}"})
                windows[i] = (0, len(context))
        return finals, windows

    def _stamp(self, rec: Record) -> dict[str, Any]:
        """The config entries every result of ``rec`` carries: its task and the judge fingerprint, when given."""
        return {**({"task": rec.task} if rec.task else {}),
                **({"judge_fingerprint": self.fingerprint} if self.fingerprint else {})}

    async def _decompose(
        self, answer: str, question: Optional[str]
    ) -> tuple[list[Claim], dict[str, str], tuple[RecordError, ...]]:
        """The answer's claims, the config entries naming the decomposer used, and a note when it fell back.

        A decomposer that fails (``JudgeError``: the LLM gave up or its replies stayed unusable) is replaced for this
        answer by the rule decomposer, and the claims are verified as usual; the record's ``errors`` say so, with
        the kind of what failed. A configuration error of the backend (bad key, model, endpoint) still stops the run.
        """
        try:
            return await self.decomposer.decompose(answer, question=question), {"decomposer": self.decomposer.name}, ()
        except JudgeError as exc:
            if (isinstance(exc, BackendError) and exc.is_config_error) or isinstance(self.decomposer, RuleDecomposer):
                raise
            note = RecordError(kind=error_kind(exc),
                               message=f"decomposition fell back to the rule decomposer: {str(exc)[:500]}")
        claims = await self._fallback.decompose(answer, question=question)
        return claims, {"decomposer": self._fallback.name, "decomposer_failed": self.decomposer.name}, (note,)

    def _segment(self, context: str) -> tuple[list[Sentence], list[Chunk]]:
        """The context's sentences and its chunks (W, O)."""
        sentences = split_sentences(context)
        return sentences, make_chunks(sentences, context, self.config.window, self.config.overlap)

    async def _local(self, claims: list[Claim], chunks: list[Chunk], question: Optional[str]) -> list[list[Judgment]]:
        """Local verification (§3.4): every claim against every chunk; returns judgments[chunk][claim]."""
        if not chunks:
            return []
        words = [content_words(c.text) for c in claims] if self.config.prefilter else None

        async def one(chunk: Chunk) -> list[Judgment]:
            if words is None:
                return await judge_safely(self.judge, claims, chunk.text, question=question, stage="local")
            chunk_words = content_words(chunk.text)
            keep = [i for i, w in enumerate(words) if w & chunk_words]
            judged = await judge_safely(
                self.judge, [claims[i] for i in keep], chunk.text, question=question, stage="local"
            )
            out = [Judgment(label=Label.BASELESS, reason="prefilter: no content word shared with this chunk")
                   for _ in claims]
            for i, j in zip(keep, judged):
                out[i] = j
            return out

        return list(await asyncio.gather(*(one(c) for c in chunks)))

    @staticmethod
    def _focus(i: int, local: Label, chunk_judgments: list[list[Judgment]]) -> Optional[int]:
        """The chunk whose judgment decided the OR-join (first such chunk); None for a locally baseless claim."""
        if local == Label.BASELESS:
            return None
        for k, judgments in enumerate(chunk_judgments):
            if judgments[i].label == local:
                return k
        return None

    @staticmethod
    def _baseless_local(i: int, chunk_judgments: list[list[Judgment]]) -> Judgment:
        reasons = [j[i].reason for j in chunk_judgments if j[i].reason]
        return Judgment(label=Label.BASELESS, reason=reasons[0] if reasons else "no chunk supports the claim",
                        score=max((j[i].score for j in chunk_judgments if j[i].score is not None), default=None))

    @staticmethod
    def _verdict(
        claim: Claim, final: Judgment, local: Label, chunk_labels: list[Label], focus: Optional[int],
        context: str, answer: str, sentences: list[Sentence], window: tuple[int, int],
    ) -> ClaimVerdict:
        label, reason = final.label, final.reason
        evidence: list = []
        if label in (Label.ENTAILED, Label.CONTRADICTED):
            evidence, missing = anchor(final.evidence, context, sentences, start=window[0], end=window[1],
                                       ids=final.evidence_ids)
            if not evidence:
                label = Label.UNVERIFIED
                why = "no evidence quote was found in the context" if final.evidence else "the judge gave no evidence"
                reason = f"{final.label.value} verdict rejected: {why}" + (f" ({reason})" if reason else "")
            elif missing:
                reason = (reason + "; " if reason else "") + f"{len(missing)} evidence quote(s) not found in C dropped"
        flagged: tuple[Span, ...] = ()
        if label.hallucinated and final.spans and len(claim.answer_spans) == 1:
            # the judge's spans are offsets into the claim text: map them when the claim is verbatim answer text, or
            # verbatim answer text after a subject the rule decomposer borrowed (spans inside that subject are dropped)
            base = claim.answer_spans[0]
            verbatim = answer[base.start:base.end]
            lead = len(claim.text) - len(verbatim)
            if verbatim and claim.text.endswith(verbatim) and all(0 <= s.start < s.end <= len(claim.text)
                                                                  for s in final.spans):
                flagged = tuple(Span(start=base.start + max(s.start - lead, 0), end=base.start + s.end - lead)
                                for s in final.spans if s.end > lead)
        verdict = ClaimVerdict(
            index=claim.index, text=claim.text, sentence_index=claim.sentence_index, label=label,
            local_label=local, chunk_labels=tuple(chunk_labels), focus_chunk=focus,
            answer_spans=claim.answer_spans, evidence=tuple(evidence), reason=reason, score=final.score,
            raw=final.raw, prompt_version=final.prompt_version, flagged_spans=flagged,
            citations=claim.citations,
        )
        problems = claim_violations(verdict, context, sentences)
        problems += [f"claim {claim.index}: answer span {sp.start}:{sp.end} is outside the answer"
                     for sp in claim.answer_spans if not 0 <= sp.start < sp.end <= len(answer)]
        if problems:
            verdict = verdict.model_copy(update={"label": Label.UNVERIFIED, "evidence": (),
                                                 "reason": "; ".join(problems)})
        return verdict

    # -- many records -------------------------------------------------------------------------------------------
    async def audit_many(
        self, records: Iterable[tuple[int, Union[Record, Mapping[str, Any], InputError]]]
    ) -> AsyncIterator[tuple[int, Union[AuditResult, RecordError], Any]]:
        """Audit ``(index, record)`` pairs concurrently; yields ``(index, result or error, id)`` as they finish.

        A record that is invalid or whose audit raises yields a ``RecordError``; the others go on.
        """
        sem = asyncio.Semaphore(self.config.concurrency)
        queue: asyncio.Queue = asyncio.Queue()
        running: set[asyncio.Task] = set()

        async def one(index: int, record: Union[Record, Mapping[str, Any], InputError]) -> None:
            rid = record.get("id") if isinstance(record, Mapping) else None
            try:
                if isinstance(record, InputError):
                    raise record
                res: Union[AuditResult, RecordError] = await self.audit(record, index=index)
            except InputError as exc:
                res = RecordError(field=exc.field, message=str(exc), kind="input")
            except BackendError as exc:
                if exc.is_config_error:
                    await queue.put(_Fatal(exc))
                    return
                res = RecordError(message=f"{type(exc).__name__}: {exc}", kind="backend")
            except Exception as exc:  # one bad record never loses the others; the kind names what failed
                res = RecordError(message=f"{type(exc).__name__}: {exc}", kind=error_kind(exc))
            finally:
                sem.release()
            await queue.put((index, res, rid))

        async def produce() -> int:
            count = 0
            for index, record in records:
                await sem.acquire()  # at most `concurrency` records in flight; input is read lazily
                task = asyncio.create_task(one(index, record))
                running.add(task)
                task.add_done_callback(running.discard)
                count += 1
            return count

        producer = asyncio.create_task(produce())
        received = 0
        try:
            while True:
                if producer.done() and received >= producer.result():
                    break
                if producer.done():
                    item = await queue.get()
                else:
                    getter = asyncio.ensure_future(queue.get())
                    await asyncio.wait({getter, producer}, return_when=asyncio.FIRST_COMPLETED)
                    if not getter.done():
                        getter.cancel()  # the producer finished (or failed) first; re-check the loop condition
                        continue
                    item = getter.result()
                if isinstance(item, _Fatal):
                    raise item.error
                received += 1
                yield item
        finally:
            producer.cancel()
            for task in list(running):
                task.cancel()
