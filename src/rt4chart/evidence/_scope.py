"""Typed edits of scope and certainty between a claim and its aligned clause (``typed.typed_edit`` calls them):

- ``restriction``: the claim widens a set the clause restricts: "anyone can join" or "all tenants get a discount"
  where the clause grants it to "members" only, or to "tenants who pay by the 5th" (a condition dropped);
- ``modality``: the claim's certainty differs from the clause's: "will", "always", "must", "is guaranteed" against
  "may", "might", "can", "is expected to", both ways; and what the clause says is planned ("plans to open") stated
  as done ("has opened"), or the other way round;
- ``since``: the claim says something has not happened since a year ("has not been inspected since 2020") where the
  clause has it happen later ("inspectors examined the bridge in March 2023");
- ``absence``: the claim denies a thing or an act that a clause of another sentence states ("The hotel has no pool"
  against "Guests can swim in the rooftop pool").

Each returns an ``clauses.TypedEdit`` whose reason names the edit and whose ``sentence`` is the clause's."""

from __future__ import annotations

import re
from typing import Optional, Sequence

from ._clauses import (RESTRICTION_COVER, SAME_START, Clause, ClauseIndex, TypedEdit, clause_key, content_words,
                       covered, make_edit, only_kept, same_start, subject_key)
from ._edit_words import EDIT_COVER, words_with_spans
from ._claims import negated
from ._edits import Edit
from ._lexicon import concrete
from ._quantities import quantities
from ._words import NEGATIONS, STOPWORDS

#: a claim word that makes its statement hold for everyone
WIDE = frozenset("all every everyone everybody anyone anybody whoever".split())
#: a clause word that restricts who or when a statement holds for
_RESTRICTS = frozenset("only who whose if provided providing unless except exclusively solely restricted limited "
                       "reserved eligible qualify qualifies members member subscribers holders".split())
#: words that open a restriction after a noun ("tenants who pay ...", "users with a Pro plan")
_AFTER_NOUN = frozenset("who whose that if provided when with".split())
#: certain: the claim states it as sure
_SURE = frozenset("will always must guaranteed guarantee guarantees certainly definitely surely shall "
                  "never".split())
#: uncertain or permitted: the statement may hold
_UNSURE = frozenset("may might could can possibly perhaps likely unlikely expected expects expect probably "
                    "sometimes occasionally optional".split())
#: a plan, not a fact: "plans to open", "intends to", "aims to", "is set to", "proposed"
_PLANS = frozenset("plans plan planned planning intends intend intended aims aim aimed hopes hope hoped proposes "
                   "propose proposed proposal considering considers wants expects expected scheduled due".split())
_MODAL_WORDS = _SURE | _UNSURE | _PLANS
_SINCE = re.compile(r"\bsince\b", re.IGNORECASE)


def _rest(keys: frozenset[str], words: Sequence[str]) -> frozenset[str]:
    """The claim's keys without those of ``words``."""
    return keys - {clause_key(w) for w in words}


def restriction(claim: str, cw, low: Sequence[str], keys: frozenset[str], clause: Clause) -> Optional[TypedEdit]:
    """A wide word of the claim ("all", "anyone", ...) where the clause restricts the same statement: a restricting
    word ("only", "members", "eligible", ...) or a noun of the claim followed in the clause by a condition ("tenants
    who pay by the 5th") whose content words the claim lacks."""
    if negated(claim) != clause.negated:
        return None
    i = next((k for k, w in enumerate(low) if w in WIDE), None)
    if i is None or any(w in WIDE for w in clause.words):
        return None
    rest = _rest(keys, low[i:i + 1])
    if not rest or not covered(rest, clause, RESTRICTION_COVER, subject=subject_key(low)):
        return None
    # a noun of the claim that the clause restricts by what follows it
    claim_keys = {clause_key(w) for w in low}
    for a, x in enumerate(clause.words[:-1]):
        if clause_key(x) in claim_keys and x not in STOPWORDS and clause.words[a + 1] in _AFTER_NOUN:
            tail = [w for w in clause.words[a + 2:a + 7] if w not in STOPWORDS]
            if tail and all(clause_key(w) not in claim_keys for w in tail[:2]):
                said = " ".join(clause.words[a:a + 2 + min(4, len(clause.words) - a - 2)])
                return TypedEdit(make_edit("restriction", claim, cw, i, i + 1, said, clause.sentence), "contradicted",
                                 f"the claim says {cw[i][0]!r} where the context restricts it: {said!r}")
    marker = next((x for k, x in enumerate(clause.words)
                   if x in _RESTRICTS and x not in low and not only_kept(clause.words, k, low)), None)
    if marker is None:
        return None
    at = clause.words.index(marker)
    said = " ".join(clause.words[max(0, at - 1):at + 3])
    return TypedEdit(make_edit("restriction", claim, cw, i, i + 1, said, clause.sentence), "contradicted",
                     f"the claim says {cw[i][0]!r} where the context restricts it: {said!r}")


def modality(claim: str, cw, low: Sequence[str], keys: frozenset[str], clause: Clause) -> Optional[TypedEdit]:
    """Certainty changed: a sure word of the claim against an unsure one of the clause, or the other way round; or a
    plan of the clause stated as done by the claim, or the other way round. The claim's other content words must be
    in the clause, and a clause with a condition ("if") says nothing sure."""
    if negated(claim) != clause.negated or "if" in clause.words or "if" in low:
        return None
    rest = _rest(keys, _MODAL_WORDS)
    if len(rest) < 2 or not covered(rest, clause, EDIT_COVER, subject=subject_key(low)):
        return None
    mine = _modals([w for w, _, _ in cw])
    if mine & _SURE and mine & (_UNSURE | _PLANS):
        return None  # "will likely": the claim hedges itself
    said = _modals([w for w, _, _ in words_with_spans(clause.text)])
    theirs = [x for x in clause.words if x in said and x not in mine]
    for i, w in enumerate(low):
        if w in _SURE and w in mine and w != "never":
            other = next((x for x in theirs if x in _UNSURE or x in _PLANS), None)
            if other is not None and not said & _SURE:
                return TypedEdit(make_edit("modality", claim, cw, i, i + 1, other, clause.sentence), "contradicted",
                                 f"the claim says {cw[i][0]!r} where the context says {other!r}")
        if (w in _UNSURE or w in _PLANS) and w in mine:
            other = next((x for x in theirs if x in _SURE and x != "never"), None)
            if other is not None and not said & (_UNSURE | _PLANS):
                return TypedEdit(make_edit("modality", claim, cw, i, i + 1, other, clause.sentence), "contradicted",
                                 f"the claim says {cw[i][0]!r} where the context says {other!r}")
    plan = next((x for x in clause.words if x in _PLANS and x in said), None)
    if plan is not None and not mine:
        # the clause plans what the claim states as done: the planned verb's key in the claim
        at = clause.words.index(plan)
        verb = next((x for x in clause.words[at + 1:at + 4] if x not in STOPWORDS), None)
        hit = next((k for k, w in enumerate(low) if verb is not None and clause_key(w) == clause_key(verb)), None)
        if hit is not None and _done(low, hit):
            return TypedEdit(make_edit("modality", claim, cw, hit, hit + 1, f"{plan} to {verb}", clause.sentence),
                             "contradicted", f"the context says it {plan} to {verb}; the claim says it is done "
                             f"({cw[hit][0]!r})")
    return None


def _modals(words: Sequence[str]) -> set[str]:
    """The modal and plan words among ``words`` (as written), lower-cased; "May" written capitalised after the first
    word is the month."""
    return {w.lower() for k, w in enumerate(words) if w.lower() in _MODAL_WORDS and not (k and w == "May")}


def _done(low: Sequence[str], at: int) -> bool:
    """Whether the claim's verb at ``at`` states a completed act ("has opened", "opened", "was opened")."""
    w = low[at]
    before = low[at - 1] if at else ""
    return w.endswith("ed") or before in ("has", "have", "had", "was", "were", "already")


def since(claim: str, cw, low: Sequence[str], keys: frozenset[str], clause: Clause) -> Optional[TypedEdit]:
    """A negated claim "... not <verb> ... since <year>" where the clause, on the same subject, has a later year and
    a word that shares the verb's first five letters ("inspected" and "inspectors")."""
    if not negated(claim) or clause.negated or not _SINCE.search(claim):
        return None
    years = [q for q in quantities(claim) if q.dimension == "year"]
    later = [q for q in clause.quantities if q.dimension == "year"]
    if not years or not later:
        return None
    neg = next((k for k, w in enumerate(low) if w in NEGATIONS or w.endswith("n't")), None)
    verb = next((w for w in low[neg + 1:] if w not in STOPWORDS and w not in ("been", "yet")), None) \
        if neg is not None else None
    if verb is None or len(verb) < 5:
        return None
    subject = subject_key(low)
    if subject is None or subject not in clause.keys:
        return None
    if not same_start(verb, content_words(clause.words)):
        return None
    after = next((q for q in later if q.value > years[0].value), None)
    if after is None:
        return None
    edit = Edit("since", years[0].start, years[0].end, years[0].text, after.text, clause.sentence)
    return TypedEdit(edit, "contradicted", f"the claim says not since {years[0].text!r}; the context has it in "
                     f"{after.text!r}: {clause.text.strip()!r}")


#: a negation that denies a thing exists ("has no pool", "without parking"): the thing alone must be in the context
_EXISTENTIAL = frozenset("no without".split())
#: words between "no" and the thing it denies ("no other group", "no new details")
_QUALIFIERS = frozenset("specific other new further additional more significant clear direct such real known "
                        "official".split())
#: a claim about what the sources say or lack ("no mention of", "no information about") is no denial of the thing
_META = frozenset("mention mentions mentioned information info details detail data evidence report reports "
                  "passage passages source sources text document documents context answer".split())


#: a clause with one of these does not state its act as a fact
_HEDGES = frozenset("if unless could may might would denied denies deny refused refuses rejected rejects".split())


def _has(clause: Clause, word: str) -> bool:
    """Whether ``clause`` writes ``word``, or a word of the same first five letters ("inspected", "inspection")."""
    return clause_key(word) in clause.keys or len(word) >= SAME_START and same_start(word, clause.words)


def absence(claim: str, cw, low: Sequence[str], keys: frozenset[str], index: ClauseIndex) -> Optional[TypedEdit]:
    """A claim that denies a thing or an act ("The hotel has no pool", "The shop does not sell stamps") where a
    clause of the evidence, in any sentence, states it as a fact, without a negation, a condition or a modal ("Guests
    can swim in the rooftop pool"): the thing after "no" or "without", or the verb after "not" and its object, are in
    that clause. Claims about what the sources say ("no mention of ...") are not read."""
    if not negated(claim) or "if" in low or "unless" in low or not _META.isdisjoint(low):
        return None
    at = next((k for k, w in enumerate(low) if w in NEGATIONS or w.endswith("n't")), None)
    if at is None:
        return None
    after = [w for w in low[at + 1:at + 6] if w not in STOPWORDS and not w[0].isdigit() and len(w) > 2
             and w not in _QUALIFIERS and w not in ("been", "yet", "longer", "anymore", "ever")]
    if not after:
        return None
    if low[at] in _EXISTENTIAL:  # the noun run after "no": "no oil spill" denies an oil spill, not oil
        run = [w for w in low[at + 1:at + 4] if w not in _QUALIFIERS]
        need = [w for w in run[:next((k for k, w in enumerate(run) if w in STOPWORDS), len(run))][:2]]
    else:
        need = after[:2]
    if not need:
        return None
    subject = subject_key(low)
    for clause in index.clauses:
        if clause.negated or not _HEDGES.isdisjoint(clause.words):
            continue
        # a thing one can point at ("no pool"; not "no other group"), or an act and its object said of the same
        # subject ("The shop does not sell stamps" against "The corner shop sells ... stamps")
        if all(_has(clause, w) for w in need) and (concrete(need[-1]) or len(need) == 2 and subject in clause.keys):
            edit = make_edit("absence", claim, cw, at, at + 1, clause.text.strip(), clause.sentence)
            return TypedEdit(edit, "contradicted", f"the claim denies {' '.join(need)!r} ({cw[at][0]!r}) where the "
                             f"context states it: {clause.text.strip()!r}")
    return None
