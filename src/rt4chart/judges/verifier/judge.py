"""``VerifierJudge`` (``--judge verifier``): the NLI claim verifier inside the RT4CHART program.

Each claim is read by the cross-encoder (``Verifier``) against its **premise**, the sentences of the evidence text
most related to it (``evidence.premise.premise_sentences``, at most ``max_words`` words), and gets P(entailment),
P(contradiction), P(neutral):

- **contradicted** when P(contradiction) reaches the contradiction threshold and beats P(entailment);
- **entailed**, otherwise, when P(entailment) reaches the entailment threshold;
- **baseless** otherwise (the evidence neither entails nor contradicts it).

On top of the model, a claim that copies an evidence sentence but for one edit (another name, number word or
closed-class word, a negation added or dropped; ``evidence.one_edit``) is **contradicted** whatever the model says,
as in the lexical and local judges: the edited words are its span, that sentence its evidence.

The stages (the auditor does the joins; this judge decides one evidence text at a time):

- **Local verification** (``stage="local"``, one chunk): the premise comes from the chunk's sentences. A claim
  sharing no word key with the chunk is baseless without a model pass.
- **Global verification** (``stage="global"``, the whole context; Table 2 of the paper): a locally baseless claim
  has no hint and its premise comes from the whole context; a locally entailed or contradicted claim's hint is its
  focus chunk's text, and its premise starts with the context sentences of its local premise in that chunk (what it
  was decided on), filled up from the whole context within ``max_words``. When a record is one chunk the global
  premise is the local one: each (premise, claim) pair runs once, through a small memo of recent pairs.

Nothing to check is **unverified**, never entailed: a meta, hedging or refusal sentence (``read_claim(...).meta``),
a claim with no content word, or a remark about the sources or the conversation (``is_remark``) that shares no
word with the evidence. The question is not read: no decision depends on whether one is given.

**Evidence** of an entailed or contradicted claim: its premise sentences whose relatedness to the claim (the premise
ranking's IDF-weighted shared word keys) is at least ``EVIDENCE_SHARE`` of the best one's, in context order, as
exact sentence texts of the evidence text read. A baseless claim carries none. **Score**: P(hallucinated) =
1 - P(entailment) of the pass that decided (1.0 without a pass; a one-edit contradiction keeps it, raised to at least
1 - the entailment threshold, so that it agrees with its label).

Thresholds come from the model card (``verifier.json``: ``"thresholds": {"entailment": .., "contradiction": ..}``;
0.5 each when it has none); the constructor overrides them. The work runs in a worker thread (``asyncio.to_thread``);
onnxruntime releases the GIL, and one judge may serve many records at once.
"""

from __future__ import annotations

import asyncio
import threading
from collections import OrderedDict
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence

import numpy as np

from ...errors import ConfigError
from ...evidence import EvidenceIndex, is_remark, one_edit, read_claim
from ...evidence.premise import premise_sentences, premise_text, relatedness
from ...types import Claim, Judgment, Label, Span, Stage
from ..runtime import model_dir
from .model import CARD, MODEL, TOKENIZER, Verifier

#: the premise's word budget (``premise_sentences``' ``max_words``) when the card names none
MAX_WORDS = 160
#: the thresholds when neither the card nor the constructor gives them
DEFAULT_THRESHOLDS = {"entailment": 0.5, "contradiction": 0.5}
#: a premise sentence is evidence when it is at least this related to the claim, relative to the most related one
EVIDENCE_SHARE = 0.5
#: evidence texts whose index a judge keeps: a context's chunks and the context itself are judged in turn
INDEXES = 64
#: (premise, claim) pairs whose probabilities a judge keeps: the local and the global pass of the records in flight
PAIRS = 2048
HOW_TO_MAKE = ("train one with python3 -m rt4chart_training.verifier.train --out RUN, export it with "
               "python3 -m rt4chart_training.verifier.export --run RUN --out DIR, and pass --model-dir DIR")


class PairMemo:
    """The probabilities of the last ``size`` (premise, claim) pairs, least recently used out first; thread-safe."""

    def __init__(self, size: int = PAIRS) -> None:
        self.size = size
        self._rows: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, pair: tuple[str, str]) -> Optional[np.ndarray]:
        with self._lock:
            row = self._rows.get(pair)
            if row is not None:
                self._rows.move_to_end(pair)
            return row

    def put(self, pair: tuple[str, str], row: np.ndarray) -> None:
        with self._lock:
            self._rows[pair] = row
            self._rows.move_to_end(pair)
            while len(self._rows) > self.size:
                self._rows.popitem(last=False)

    def __len__(self) -> int:
        return len(self._rows)


def read_thresholds(card: Mapping[str, Any], given: Optional[Mapping[str, float]]) -> dict[str, float]:
    """The entailment and contradiction thresholds: ``given`` over the card's ``thresholds`` over
    ``DEFAULT_THRESHOLDS``; each must be a number in (0, 1)."""
    from_card = card.get("thresholds") or {}
    if not isinstance(from_card, Mapping):
        raise ConfigError(f"the verifier card's thresholds must be an object, got {from_card!r}")
    out = dict(DEFAULT_THRESHOLDS)
    for source in (from_card, given or {}):
        unknown = sorted(set(source) - set(DEFAULT_THRESHOLDS))
        if unknown:
            raise ConfigError(f"unknown verifier threshold(s) {', '.join(unknown)}; the thresholds are "
                              f"{', '.join(DEFAULT_THRESHOLDS)}")
        out.update(source)
    for name, value in out.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 < value < 1.0:
            raise ConfigError(f"the verifier's {name} threshold must be a number in (0, 1), got {value!r}")
        out[name] = float(value)
    return out


class VerifierJudge:
    """The verifier judge (see the module docstring). ``directory``: a model folder (``verifier.onnx``,
    ``verifier_tokenizer.json``, ``verifier.json``; default: the shipped models folder); ``threads``: onnxruntime's
    intra-op pool (default: the CPU count, at most 4); ``thresholds``: ``{"entailment": .., "contradiction": ..}``
    (either or both) over the card's; ``max_words``: the premise's word budget (default: the card's ``max_words``,
    the budget its training premises were built with, else ``MAX_WORDS``)."""

    name = "verifier"

    def __init__(self, directory: Optional[Path] = None, *, threads: Optional[int] = None,
                 thresholds: Optional[Mapping[str, float]] = None, max_words: Optional[int] = None) -> None:
        d = Path(directory) if directory is not None else model_dir()
        missing = [name for name in (MODEL, TOKENIZER, CARD) if not (d / name).is_file()]
        if missing:
            raise ConfigError(f"no verifier model in {d} (missing {', '.join(missing)}); {HOW_TO_MAKE}")
        self.verifier = Verifier(d, threads=threads)
        if max_words is None:
            max_words = self.verifier.card.get("max_words", MAX_WORDS)
        if isinstance(max_words, bool) or not isinstance(max_words, int) or max_words < 1:
            raise ConfigError(f"max_words must be a positive integer, got {max_words!r}")
        self.thresholds = read_thresholds(self.verifier.card, thresholds)
        self.entailment = self.thresholds["entailment"]
        self.contradiction = self.thresholds["contradiction"]
        self.max_words = max_words
        self.version = f"verifier@{str(self.verifier.card['files'][MODEL])[:12]}"
        self.memo = PairMemo()
        self._indexes = lru_cache(maxsize=INDEXES)(EvidenceIndex)

    def __repr__(self) -> str:
        return (f"VerifierJudge({str(self.verifier.directory)!r}, entailment={self.entailment}, "
                f"contradiction={self.contradiction}, max_words={self.max_words})")

    @property
    def card(self) -> dict[str, Any]:
        """The model card."""
        return dict(self.verifier.card)

    def index(self, text: str) -> EvidenceIndex:
        """The index of an evidence text (the judge keeps the last ``INDEXES``)."""
        return self._indexes(text)

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
        """Judge ``claims`` against ``evidence`` in a worker thread. At ``stage="global"``, ``hints[i]`` (the focus
        chunk's text, None for a locally baseless claim) leads claim i's premise; the question is not read."""
        if not claims:
            return []
        if hints is not None and len(hints) != len(claims):
            raise ConfigError(f"{len(hints)} hints for {len(claims)} claims; give one per claim")
        use = hints if stage == "global" else None
        return await asyncio.to_thread(self.judge_all, [c.text for c in claims], evidence, hints=use)

    def judge_all(self, claims: Sequence[str], evidence: str, *,
                  hints: Optional[Sequence[Optional[str]]] = None) -> list[Judgment]:
        """Judge claim texts against one evidence text, in order; ``hints[i]``: a text of sentences of ``evidence``
        (a focus chunk) that claim i was decided on, or None. One model call for the pairs not in the memo."""
        index = self.index(evidence)
        out: list[Optional[Judgment]] = [None] * len(claims)
        todo: list[tuple[int, tuple[int, ...], tuple[str, str]]] = []
        for i, claim in enumerate(claims):
            reading = read_claim(claim)
            shared = any(k in index.postings for k in reading.keys)
            why = self.nothing_to_check(claim, shared)
            if why:
                out[i] = Judgment(label=Label.UNVERIFIED, reason=why, prompt_version=self.version)
            elif not shared:
                out[i] = Judgment(label=Label.BASELESS, score=1.0, prompt_version=self.version,
                                  reason="no word of the claim occurs in the evidence")
            else:
                hint = self.hint_sentences(index, claim, hints[i]) if hints is not None and hints[i] else ()
                ids = premise_sentences(index, claim, max_words=self.max_words, hint=hint)
                todo.append((i, ids, (premise_text(index, ids), claim)))
        probs = self.probs([pair for _, _, pair in todo])
        for (i, ids, _), p in zip(todo, probs):
            out[i] = self.decide(claims[i], index, ids, p)
        return [j for j in out if j is not None]

    @staticmethod
    def nothing_to_check(claim: str, shared: bool) -> str:
        """Why ``claim`` has nothing to check (the reason of its ``unverified``), or "" when it has; ``shared``:
        whether it shares a word key with the evidence."""
        reading = read_claim(claim)
        if reading.meta:
            return "a meta, hedging or refusal sentence states nothing to check against the evidence"
        if not reading.keys:
            return "the claim has no content words to check"
        if not shared and is_remark(claim):
            return ("a remark about the sources or the conversation, or a header, sharing no word with the "
                    "evidence: nothing to check")
        return ""

    def hint_sentences(self, index: EvidenceIndex, claim: str, hint: str) -> tuple[int, ...]:
        """The sentences of ``index`` that ``claim``'s premise in the text ``hint`` (its focus chunk, a slice of the
        indexed text) consists of: the chunk's sentences mapped by offset (by text where the chunk is not found
        verbatim), those not found left out."""
        chunk = self.index(hint)
        local = premise_sentences(chunk, claim, max_words=self.max_words)
        at = index.text.find(hint)
        starts = {s.start: k for k, s in enumerate(index.sentences)}
        ids: list[int] = []
        for j in local:
            s = chunk.sentences[j]
            k = starts.get(at + s.start) if at >= 0 else None
            if k is None or index.texts[k] != s.text:
                k = next((m for m, t in enumerate(index.texts) if t == s.text), None)
            if k is not None:
                ids.append(k)
        return tuple(dict.fromkeys(ids))

    def probs(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """``Verifier.probs`` of ``(premise, claim)`` pairs, through the memo: a pair already read (here or by
        another pass) is not run again, and one pair given twice runs once."""
        out = np.zeros((len(pairs), 3), dtype=np.float64)
        missing: dict[tuple[str, str], list[int]] = {}
        for row, pair in enumerate(pairs):
            known = self.memo.get(pair)
            if known is None:
                missing.setdefault(pair, []).append(row)
            else:
                out[row] = known
        if missing:
            fresh = self.verifier.probs(list(missing))
            for (pair, rows), p in zip(missing.items(), fresh):
                self.memo.put(pair, p.copy())
                out[rows] = p
        return out

    def decide(self, claim: str, index: EvidenceIndex, ids: Sequence[int], p: np.ndarray) -> Judgment:
        """The judgment of ``claim`` from its premise sentences ``ids`` of ``index`` and their probabilities ``p``
        (entailment, contradiction, neutral), with ``one_edit`` on top."""
        pe, pc, pn = (float(x) for x in p)
        score = round(1.0 - pe, 4)
        read = f"P(entailment)={pe:.2f}, P(contradiction)={pc:.2f}, P(neutral)={pn:.2f}"
        edit = one_edit(claim, index.edits)
        if edit is not None:
            return Judgment(label=Label.CONTRADICTED, evidence=(index.texts[edit.sentence],),
                            score=round(max(1.0 - pe, 1.0 - self.entailment), 4),
                            spans=(Span(start=edit.start, end=edit.end),), prompt_version=self.version,
                            reason=f"{edit.describe()} (verifier: {read})")
        if pc >= self.contradiction and pc > pe:
            return Judgment(label=Label.CONTRADICTED, evidence=self.evidence(index, claim, ids), score=score,
                            prompt_version=self.version,
                            reason=f"the evidence contradicts the claim: {read} (threshold {self.contradiction:.2f})")
        if pe >= self.entailment:
            return Judgment(label=Label.ENTAILED, evidence=self.evidence(index, claim, ids), score=score,
                            prompt_version=self.version,
                            reason=f"the evidence entails the claim: {read} (threshold {self.entailment:.2f})")
        return Judgment(label=Label.BASELESS, score=score, prompt_version=self.version,
                        reason=f"the evidence neither entails nor contradicts the claim: {read}")

    @staticmethod
    def evidence(index: EvidenceIndex, claim: str, ids: Sequence[int]) -> tuple[str, ...]:
        """The texts of the premise sentences ``ids`` at least ``EVIDENCE_SHARE`` as related to ``claim`` as the most
        related of them (``relatedness``), in context order; all of them when none shares a word key."""
        scores = relatedness(index, claim)
        best = max((scores[i] for i in ids), default=0.0)
        keep = [i for i in ids if scores[i] > 0.0 and scores[i] >= EVIDENCE_SHARE * best] if best > 0.0 else list(ids)
        return tuple(index.texts[i] for i in sorted(keep))
