"""``EvidenceIndex``: the sentences of one evidence text with their word keys and numbers, built once per text and
passed to whoever reads it (``assess``, ``one_edit``, the local judge's features)."""

from __future__ import annotations

import re
from functools import cached_property, lru_cache
from typing import Iterable, NamedTuple, Sequence

from ..text.pronouns import resolved
from ..text.segment import split_sentences
from ._clauses import ClauseIndex
from ._claims import (TIME_OF_DAY, amounts, clock_minutes, content_forms, negated, normalised_numbers, read_claim,
                     word_key)
from ._edits import one_edit
from ._quantities import amount_key, compatible, converts, quantities
from ._words import denies
from ._edit_words import EditSentences

_CODE = re.compile(r"\b[A-Z]{2}\b")


class EvidenceIndex:
    """Word keys and numbers of each sentence of an evidence text, with an inverted index for linear-time lookup.

    ``sentences`` are the text's ``Sentence`` objects (offsets into ``text``) and ``texts`` their texts, what a
    judge quotes; ``readings`` are the same sentences as they are read, one that opens with a pronoun read with its
    antecedent (``text.pronouns.resolved``). ``keys[i]`` and ``numbers[i]`` are sentence i's word keys (``word_key``)
    and normalised numbers, of its reading;
    ``postings[key]`` lists the sentences holding a key, in order; ``all_numbers`` is every number of the text;
    ``lowered`` the text lower-cased; ``codes`` its two-capital words ("CA"). ``edits`` is the same sentences as
    ``one_edit`` reads them and ``clauses`` their clauses as ``typed_edit`` reads them, each worked out on first use.
    The index is read, never changed.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self.sentences = split_sentences(text)
        self.texts = tuple(s.text for s in self.sentences)
        self.readings = resolved(self.texts)
        self.keys: list[frozenset[str]] = []
        self.numbers: list[frozenset[str]] = []
        self.postings: dict[str, list[int]] = {}
        for i, s in enumerate(self.readings):
            ks, numbers = _sentence_index(s)
            self.keys.append(ks)
            self.numbers.append(numbers)
            for k in ks:
                self.postings.setdefault(k, []).append(i)
        #: each amount of the text (``amount_key``) as the text first writes it, and the sentences that state it
        self.amounts: dict[str, str] = {}
        self.amount_postings: dict[str, list[int]] = {}
        #: the dimensions of the text's amounts in units that convert ("h", "$", "%", "ml", ...)
        self.amount_dimensions: set[str] = set()
        for i, reading in enumerate(self.readings):
            for q, start, end in amounts(reading):
                if converts(q):
                    self.amount_dimensions.add(q.dimension)
                self.amounts.setdefault(amount_key(q), reading[start:end])
                at = self.amount_postings.setdefault(amount_key(q), [])
                if not at or at[-1] != i:
                    at.append(i)
        self.all_numbers: frozenset[str] = frozenset().union(*self.numbers) if self.numbers else frozenset()
        self.lowered = text.lower()
        self.codes = frozenset(_CODE.findall(text))

    @cached_property
    def edits(self) -> EditSentences:
        """The sentences as ``one_edit`` reads them (``one_edit(claim, index.edits)``)."""
        return EditSentences(self.readings)

    @cached_property
    def clauses(self) -> ClauseIndex:
        """The sentences' clauses, as ``typed_edit`` reads them (``typed_edit(claim, index.clauses)``)."""
        return ClauseIndex(self.readings)

    def states_another_amount(self, claim: str, i: int) -> bool:
        """Whether sentence ``i`` states another amount of a unit the claim states, one its bounds do not allow
        ("23" holds for "at least 21"), or, stating clock times, lacks one the claim states."""
        reading = self.readings[i]
        mine, theirs = quantities(claim), quantities(reading)
        for q in mine:
            same = [x for x in theirs if q.dimension and x.dimension == q.dimension]
            if same and not any(q.equals(x) or compatible(claim, q, reading, x) for x in same):
                return True
        times = [m for m in TIME_OF_DAY.finditer(claim)]
        if times and TIME_OF_DAY.search(reading):
            stated = {f"{t // 60}:{t % 60:02d}" for t in (clock_minutes(m) for m in times) if t is not None}
            if not stated <= self.numbers[i]:
                return True
        return False

    def contradicts(self, claim: str, i: int) -> bool:
        """Whether sentence ``i`` says otherwise than ``claim`` on its face: another amount (``states_another_amount``),
        a negation over the same words on one side only that denies a verb there (``words.denies``), or
        one edit of a sentence the claim otherwise copies (``one_edit``). Such a sentence is never the evidence of an
        entailed claim."""
        if self.states_another_amount(claim, i):
            return True
        reading = self.readings[i]
        side = read_claim(claim)
        shared = len(set(side.keys) & self.keys[i]) / max(1, len(side.keys))
        # a negation on one side only, denying a verb there ("at no charge" for "free", "no inspection has taken
        # place" for "it has not been inspected" are no opposites)
        if negated(claim) != negated(reading) and denies(claim) != denies(reading) and shared >= 0.6:
            return True
        return one_edit(claim, [reading]) is not None

    def supporting(self, claim: str, order: Sequence[int]) -> list[int]:
        """The sentences of ``order`` (best covering first) that do not contradict ``claim``, those that hold its
        numbers or amounts first: the sentence that states the claim's fact before the one that only names its
        subject ("It charges over USB-C in 90 minutes" before "Aurora X2 wireless headphones")."""
        side = read_claim(claim)
        wanted = set(side.numbers) | {a.key for a in side.amounts}

        def holds(i: int) -> int:
            return len(wanted & (self.numbers[i] | {k for k, at in self.amount_postings.items() if i in at}))

        kept = [i for i in order if not self.contradicts(claim, i)]
        return sorted(kept, key=lambda i: -holds(i)) if wanted else kept

    def contradicting(self, claim: str, fallback: int) -> int:
        """The sentence that says otherwise than ``claim`` on its numbers (another amount of the same unit, another
        clock time) and shares most of its words; ``fallback`` when none does."""
        keys = set(read_claim(claim).keys)
        found = [i for i in range(len(self.readings)) if self.numbers[i] and self.contradicts(claim, i)]
        return max(found, key=lambda i: (len(keys & self.keys[i]), -i)) if found else fallback

    def __repr__(self) -> str:
        return f"EvidenceIndex({len(self.texts)} sentences, {len(self.text)} characters)"


class Restatement(NamedTuple):
    """One amount ``restated`` replaced: the claim's form at ``start:end`` of the claim, and the evidence's."""

    mine: str
    theirs: str
    start: int
    end: int


def restated(claim: str, index: EvidenceIndex, *, surface: bool = False) -> tuple[str, tuple[Restatement, ...]]:
    """``claim`` with each amount the evidence holds written as the evidence writes it ("Mix two dozen eggs and a
    quarter of a litre of milk" -> "Mix 24 eggs and 250 ml of milk" against "24 eggs and 250 ml of milk"), and the
    (claim's, evidence's) forms it replaced: the one reading of quantities, so that a judge reading words sees one
    amount as one. Amounts the evidence lacks, and digits it has as they are, stay as written; with ``surface``, only
    an amount written in the evidence exactly as in the claim stays ("2,500,000" becomes "2.5 million": a reader of
    text, the claim verifier, sees one form)."""
    out, pos, read = [], 0, []
    for q, start, end in amounts(claim):
        theirs = index.amounts.get(amount_key(q))
        mine = claim[start:end]
        if any(ch.isdigit() for ch in mine) and normalised_numbers(mine, claim=True) <= index.all_numbers and \
                (not surface or mine in index.text):
            continue  # digits the evidence has as they are ("7" for "seven"): nothing to restate
        if theirs is not None and start >= pos and mine != theirs:
            out += [claim[pos:start], theirs]
            read.append(Restatement(mine, theirs, start, end))
            pos = end
    return ("".join(out) + claim[pos:] if out else claim), tuple(read)


def read_as(read: Sequence[Restatement]) -> str:
    """What ``restated`` read, for a judgment's reason: "read 'twelve per cent' as '12%', ..."."""
    return "read " + ", ".join(f"'{r.mine}' as '{r.theirs}'" for r in read)


def original_offset(read: Sequence[Restatement], offset: int) -> int:
    """Where ``offset`` of a ``restated`` claim text lies in the claim as written (inside a replaced amount: that
    amount's start, or its end for an offset at the replacement's end)."""
    delta = 0
    for r in read:
        new_start = r.start + delta
        new_end = new_start + len(r.theirs)
        if offset < new_start:
            break
        if offset <= new_end:
            return r.start if offset < new_end else r.end
        delta += len(r.theirs) - (r.end - r.start)
    return offset - delta


def premise(texts: Sequence[str], order: Iterable[int]) -> tuple[tuple[str, ...], tuple[tuple[int, ...], ...]]:
    """The one premise builder of the offline judges: the evidence sentences numbered ``order`` (numbers of
    ``EvidenceIndex.texts``, in the order given) as a judgment's ``evidence`` quotes and their ``evidence_ids``. The
    index splits its text with ``split_sentences``, as the auditor splits the context, so at global verification the
    numbers are the context's sentence ids (a chunk's the auditor maps to the context's by offsets)."""
    at = tuple(order)
    return tuple(texts[i] for i in at), tuple((i,) for i in at)


@lru_cache(maxsize=8192)
def _sentence_index(sentence: str) -> tuple[frozenset[str], frozenset[str]]:
    """The word keys and numbers of one sentence, for the last 8192 sentence texts: the chunks of a context and the
    context itself hold the same sentences, and each text is indexed on its own."""
    return frozenset(word_key(w) for w in content_forms(sentence)), frozenset(normalised_numbers(sentence, claim=False))
