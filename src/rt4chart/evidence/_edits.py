"""One-edit copies: a claim that copies an evidence sentence but for one edit that changes what it says (another
name, number word or closed-class word in one place, a negation added or dropped). ``one_edit`` finds it."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Optional, Sequence, Union

from ._edit_words import (
    CONTRASTS, AFFIRMED, CLAUSE_END, CONDITIONS, RUN_KINDS, NEGATED_PHRASE, PRONOUNS, SCALES, SOFT_NEGATIONS,
    EDIT_COVER, EditSentences, SentenceWords, contrasts, words_with_spans, first_hedge, number_values,
    word_runs, scale_of, sentence_edit_words, sentence_lower, variant, rivals,
)
from ._words import NEGATIONS, STOPWORDS, VERB_NEGATIONS, has_negation, numbers


@dataclass(frozen=True)
class Edit:
    """A claim that copies an evidence sentence but for one edit. ``kind`` "name", "number" or "word" (a word of a
    closed class, such as "tall" for "wide"): ``claim_text`` (at ``start:end`` of the claim) stands where evidence
    sentence ``sentence`` has ``evidence_text``. ``kind`` "negation": ``claim_text`` is a negation the sentence does
    not have, before ``evidence_text``, which the sentence states. ``kind`` "affirmation": the claim states
    ``claim_text`` where the sentence says ``evidence_text``, the same words with a negation."""

    kind: str
    start: int
    end: int
    claim_text: str
    evidence_text: str
    sentence: int

    def describe(self) -> str:
        """The edit in words, for a judgment's reason."""
        if self.kind == "negation":
            return f"the claim negates what an evidence sentence states: {self.evidence_text!r}"
        if self.kind == "affirmation":
            return f"the claim states what an evidence sentence negates: {self.evidence_text!r}"
        kind = CONTRASTS.kind(self.claim_text.lower(), self.evidence_text.lower()) if self.kind == "word" else None
        return (f"the claim has {self.claim_text!r} where an evidence sentence that otherwise matches it has "
                f"{self.evidence_text!r}" + (f" ({kind})" if kind else ""))


def _covered(rest: set[str], sentence: set[str]) -> bool:
    return bool(rest) and len(rest & sentence) >= EDIT_COVER * len(rest)


def _same_around(claim: Sequence[str], i: int, sentence: Sequence[str], a: int, width: int = 2) -> bool:
    """The ``width`` words before and after word ``i`` of the claim are those around word ``a`` of the sentence, as far
    as the claim goes ("lay fewer eggs" is no swap of "(leghorns) lay more eggs": a comparison's other side)."""
    for d in range(1, width + 1):
        if i - d >= 0 and (a - d < 0 or claim[i - d] != sentence[a - d]):
            return False
        if i + d < len(claim) and (a + d >= len(sentence) or claim[i + d] != sentence[a + d]):
            return False
    return True


def _swap(claim: str, cw: list[tuple[str, int, int]], runs: list[tuple[str, int, int]],
          sentences: EditSentences) -> Optional[Edit]:
    """The first of the claim's candidate ``runs`` (kind, start, end word) that stands in place of another."""
    if has_negation(claim):
        return None  # "The tower is not in London" against "The tower is in Paris" agrees with it
    cl = [w.lower() for w, _, _ in cw]
    claim_set = set(cl)
    claim_numbers = numbers(claim) | {v for w in cl if w in SCALES for v in scale_of([w])}
    ev = sentences.index
    ev_numbers = ev.numbers | {v for w in SCALES & sentences.vocabulary for v in scale_of([w])}
    for kind, i, j in runs:
        mine = claim[cw[i][1]:cw[j - 1][2]]
        if kind == "number" and not (number_values(mine) and number_values(mine).isdisjoint(ev_numbers)):
            continue  # "7" for "seven" is the same number
        prev, nxt = cl[i - 1], cl[j] if j < len(cl) else None
        rest = {w for k, w in enumerate(cl) if not i <= k < j and w not in STOPWORDS}
        for si in ev.postings.get(prev, ()):
            ws, low, wset = ev.words[si], ev.lower[si], ev.sets[si]
            if not _covered(rest, wset):
                continue
            for a, b in word_runs([w for w, _, _ in ws], claim_set, RUN_KINDS[kind]):
                after = low[b] if b < len(low) else None
                if low[a - 1] != prev or after != nxt:
                    continue
                theirs = ev.text[si][ws[a][1]:ws[b - 1][2]]
                if kind == "name" and variant(cl[i:j], low[a:b]):
                    continue
                if kind == "number" and not (number_values(theirs) and
                                             number_values(theirs).isdisjoint(claim_numbers)):
                    continue
                if kind == "word" and not (b - a == 1 and contrasts(cl[i], low[a]) and _same_around(cl, i, low, a)
                                           and not has_negation(ev.text[si])):
                    continue  # a negated sentence says it with the other word ("did not have more than")
                return Edit(kind, cw[i][1], cw[j - 1][2], mine, theirs, si)
    return None


def _negation(claim: str, cw: list[tuple[str, int, int]], ev: SentenceWords) -> Optional[Edit]:
    cl = [w.lower() for w, _, _ in cw]
    for k, w in enumerate(cl):
        if not (w in VERB_NEGATIONS or w.endswith("n't")):
            continue
        if all(x in STOPWORDS and x not in PRONOUNS for x in cl[:k]):
            return None  # no subject to match ("are not traded on an exchange", cut from a longer sentence)
        # a pronoun subject must be the evidence's too, just before the copied words: "She never won a Nobel Prize"
        # is not answered by "Her daughter also won a Nobel Prize"
        pronoun = None if any(x not in STOPWORDS for x in cl[:k]) else next(x for x in cl[:k] if x in PRONOUNS)
        phrase = cl[k + 1:k + 7]
        rest = {x for x in cl if x not in STOPWORDS and x not in NEGATIONS and not x.endswith("n't")}
        # the sentences holding every other content word of the claim; if one of them has a negation, however
        # written, the evidence may say what the claim says ("Cameron did not use the Power of Veto" beside "Did
        # Cameron use the Power of Veto this week?"), and a question states nothing
        near = [si for si in (ev.postings.get(phrase[0], ()) if phrase else ()) if rest <= ev.sets[si]]
        if any(has_negation(ev.text[si]) or not SOFT_NEGATIONS.isdisjoint(ev.sets[si]) for si in near):
            return None
        for si in near:
            low = ev.lower[si]
            if ev.text[si].rstrip().endswith("?"):
                continue
            for n in range(len(phrase), NEGATED_PHRASE - 1, -1):  # the longest copied run after the negation
                part = phrase[:n]
                if sum(p not in STOPWORDS for p in part) < 2:
                    break
                at = next((a for a in range(len(low) - n + 1) if low[a:a + n] == part and
                           (pronoun is None or pronoun in low[max(0, a - 3):a]) and first_hedge(ev.text[si]) >= a),
                          None)
                if at is not None:
                    words = ev.words[si]
                    return Edit("negation", cw[k][1], cw[k][2], claim[cw[k][1]:cw[k][2]],
                                ev.text[si][words[at][1]:words[at + n - 1][2]], si)
        return None
    return None


def _clause_ends(sentence: str, words: Sequence[tuple[str, int, int]], i: int) -> bool:
    """Whether word ``i`` of the sentence ends it, or a clause of it ("free." / "free, but" / "free; ...")."""
    return i + 1 >= len(words) or CLAUSE_END.search(sentence, words[i][2], words[i + 1][1]) is not None


def _contains(words: Sequence[str], part: Sequence[str]) -> bool:
    """Whether ``part`` stands in ``words`` as a contiguous run (a tuple and a list of the same words match)."""
    n, part = len(part), tuple(part)
    return any(tuple(words[a:a + n]) == part for a in range(len(words) - n + 1) if words[a] == part[0])


def _affirmation(claim: str, cw: Sequence[tuple[str, int, int]], evidence: EditSentences,
                 negated: Sequence[tuple[int, int, str, str]]) -> Optional[Edit]:
    """The claim is an evidence sentence's negated clause with the verb negation dropped ("Entry is free" against
    "Entry is never free"): at least ``NEGATED_PHRASE`` words around the negation, two of them content words and one
    of those after it, every content word of the claim among them, copied up to the end of the sentence's clause; not
    a condition or a report ("if", "he said"), and no sentence without a negation holding all the claim's content
    words."""
    cl = [w.lower() for w, _, _ in cw]
    pairs = set(zip(cl, cl[1:]))
    negated = [(si, k) for si, k, before, after in negated if (before, after) in pairs]
    if not negated or not CONDITIONS.isdisjoint(cl):
        return None  # most claims: no two words meet where the evidence has a negation
    sentences = evidence.text
    at: dict[str, list[int]] = {}
    for c, w in enumerate(cl[:-1]):
        at.setdefault(w, []).append(c)
    rest = {x for x in cl if x not in STOPWORDS}
    stated: Optional[bool] = None  # whether a sentence with no negation holds all of the claim's content words
    for si, k in negated:
        text = sentences[si]
        words, low = sentence_edit_words(text), sentence_lower(text)
        if first_hedge(text) < k:
            continue
        repl = AFFIRMED[low[k]]
        # the affirmed sentence's words before the dropped negation, the last first: "can" of "cannot", then low[k-1]
        n_left = k + 1 if repl else k
        left = (lambda d: repl if d == 1 else low[k - d + 1]) if repl else (lambda d: low[k - d])
        for c in at.get(left(1), ()):
            if cl[c + 1] != low[k + 1]:
                continue
            m = 1
            while m < n_left and c - m >= 0 and cl[c - m] == left(m + 1):
                m += 1
            n = 1
            while k + 1 + n < len(low) and c + 1 + n < len(cl) and cl[c + 1 + n] == low[k + 1 + n]:
                n += 1
            run, after = cl[c - m + 1:c + 1 + n], cl[c + 1:c + 1 + n]
            if m + n < NEGATED_PHRASE or all(w in STOPWORDS for w in after) or \
                    sum(w not in STOPWORDS for w in run) < 2:
                continue
            if any(w not in STOPWORDS for w in cl[:c - m + 1] + cl[c + 1 + n:]):
                continue  # the claim says more than the negated clause: "Physical changes" against "chemical ..."
            if not _clause_ends(text, words, k + n) or _contains(low, cl[c:c + 1 + n]):
                continue  # "The office is open" against "... isn't open on Sundays"; "can't ... but can take photos"
            ev = evidence.index
            if not _covered(rest, ev.sets[si]):
                continue
            if stated is None:
                holders = min((ev.postings.get(w, ()) for w in rest), key=len)
                stated = any(rest <= ev.sets[sj] and not has_negation(sentences[sj]) and
                             SOFT_NEGATIONS.isdisjoint(ev.sets[sj]) for sj in holders)
            if stated:
                return None  # the evidence also states it
            first = k if repl else k - 1  # "cannot take ...", "is never free"
            return Edit("affirmation", cw[c][1], cw[c + n][2], claim[cw[c][1]:cw[c + n][2]],
                        text[words[first][1]:words[k + n][2]], si)
    return None


def one_edit(claim: str, sentences: Union[EditSentences, Sequence[str]]) -> Optional[Edit]:
    """How ``claim`` differs from an evidence sentence it otherwise copies, when that is one edit that changes what it
    says, or None.

    - **Another name or number in one place**: a run of capitalised words (not the claim's first word) or of number
      words, found nowhere in the evidence, between the same two neighbouring words (or the same word and the end) as
      a run of the same kind in one evidence sentence that the claim does not have ("The Eiffel Tower is in London"
      against "... is in Paris"; "seventy million" against "seven million"), that sentence covering at least
      ``EDIT_COVER`` of the claim's other content words. Two spellings of one name (Jan/January, Defence/Defense)
      are not swaps, nor is a name in a negated claim ("... is not in London"). Digits are left to the number
      checks, which compare values.
    - **Another word of a closed class** (``_CONTRASTS``: "tall" for "wide", "rose" for "fell", "first" for "last",
      "north" for "south"), found nowhere in the evidence, with the same two words on each side as far as the claim
      goes, in a sentence with no negation ("income of less than" against "did not have income of more than" says
      the same). Two words of one group ("tall", "high") are not a swap.
    - **A negation the evidence does not have**: "not", "never", "cannot" or "-n't" after a content word (the
      subject) or a pronoun that the sentence has within three words before them, and before at least four words
      (two of them content words) that an evidence sentence with no negation states, not after a condition or a
      report ("if", "they think"), that sentence holding every other content word of the claim ("Visitors cannot
      take a lift to the top" against "... or take a lift to the top").
    - **No negation where the evidence has one**: a claim with no negation of any kind that is an evidence
      sentence's negated clause with the negation dropped ("Entry to the museum is free" against "Entry to the
      museum is never free"; "cannot" leaves "can", "isn't" leaves "is"; "do not" and its kin are left out), at
      least four words around the negation, every content word of the claim among them, copied up to the end of the
      sentence's clause ("The office is open" is not "The office isn't open on Sundays" without its last words), not
      a condition or a report ("if", "he said"), and no sentence without a negation holding all of the claim's
      content words.

    A sentence-initial capital says nothing, and a paraphrase rarely keeps both neighbours of a name while changing
    it. How often this fires on RAGTruth train, and how often rightly: ``docs/history.md`` (Trained offline judge).

    ``sentences``: the evidence sentences as ``EditSentences`` (an ``EvidenceIndex``'s ``edits``), which keep what
    they work out for the next claim; sentence texts are read for this call alone."""
    cw, words, negates, plain, kinds = _claim_edit_words(claim)
    if len(cw) < 2:
        return None
    if not isinstance(sentences, EditSentences):
        sentences = EditSentences(sentences)
    vocabulary = sentences.vocabulary
    # names, number words and contrast words of the claim found nowhere in the evidence, in the order they are tried
    runs = [(kind, i, j) for kind, test in RUN_KINDS.items() if kind in kinds
            for i, j in word_runs(words, vocabulary, test)
            if kind != "word" or j - i == 1 and not rivals(words[i]).isdisjoint(vocabulary)]
    negated = sentences.negated if plain else ()
    if not (runs or negates):
        # most claims: nothing to look for, and the sentences need no index
        return _affirmation(claim, cw, sentences, negated) if negated else None
    return (_swap(claim, list(cw), runs, sentences) or _negation(claim, list(cw), sentences.index)
            or (_affirmation(claim, cw, sentences, negated) if negated else None))


@lru_cache(maxsize=1024)
def _claim_edit_words(claim: str) -> tuple[tuple[tuple[str, int, int], ...], tuple[str, ...], bool, bool,
                                           frozenset[str]]:
    """A claim's ``words_with_spans``, the words alone, whether one of them is a verb negation, whether it has no
    negation of any kind (``NEGATIONS``, ``SOFT_NEGATIONS``), and the ``RUN_KINDS`` of word it has: one claim is read
    against every chunk and then the whole context."""
    cw = tuple(words_with_spans(claim))
    words = tuple(w for w, _, _ in cw)
    low = [w.lower() for w in words]
    plain = not any(w in NEGATIONS or w.endswith("n't") or w in SOFT_NEGATIONS for w in low)
    kinds = frozenset(kind for kind, test in RUN_KINDS.items() if any(test(w) for w in words[1:]))
    return cw, words, any(w in VERB_NEGATIONS or w.endswith("n't") for w in low), plain, kinds
