"""The typed edits of a claim against an evidence text, in one call (``typed_edit``): the clause-level kinds of
``clauses`` (antonym, number, quantifier, requirement, polarity, roles, entity), of ``scope`` (restriction,
modality, since, absence) and of ``pairs`` (swap, comparison), and ``subject``: a short claim about something the
evidence never names ("The museum runs guided tours on Fridays" against a café's menu and hours) is baseless.

How often each kind fires on RAGTruth train, and how often on a gold hallucination:
``python3 -m training.experiments.one_edit_fires --typed`` (docs/results/typed_edits.md)."""

from __future__ import annotations

from typing import Optional

from . import _pairs as pairs
from . import _scope as scope
from ._clauses import (ClauseIndex, TypedEdit, antonym_edit, clause_key, content_words, entity_edit, number_edit,
                    polarity_edit, quantifier_edit, requirement_edit, roles_edit, same_start)
from ._edit_words import words_with_spans
from ._edits import Edit
from ._lexicon import concrete
from ._words import NUMBER_WORDS, STOPWORDS

__all__ = ["KINDS", "TypedEdit", "fragment", "instruction", "typed_edit"]

#: every kind ``typed_edit`` names
KINDS = ("antonym", "number", "quantifier", "requirement", "polarity", "roles", "entity", "restriction", "modality",
         "since", "swap", "comparison", "absence", "subject")
#: words that stand for something named before, or for no thing: never a claim's absent subject
_ARTICLES = frozenset("the a an".split())
_REFERS = frozenset("passage passages text document documents article context answer question source sources "
                    "it its they them this these that those he she his her we our you your there here one ones "
                    "someone something everyone anyone nobody nothing people person thing things yes overall "
                    "finally first second third last following note please sure additionally furthermore moreover "
                    "besides instead otherwise meanwhile today currently summary conclusion example instance".split())


def typed_edit(claim: str, index: ClauseIndex) -> Optional[TypedEdit]:
    """The first typed edit between ``claim`` and the clause of ``index`` aligned to it (the one that shares most
    of its content words, numbers aside), then a comparison against the amounts of the whole evidence, a denial
    that any clause contradicts, an absent subject; or None."""
    cw = words_with_spans(claim)
    if len(cw) < 3:
        return None
    low = [w.lower() for w, _, _ in cw]
    keys = frozenset(clause_key(w) for w in content_words(low))
    if not keys:
        return None
    aligned = index.align(keys)
    if not aligned:
        return None
    best = [index.clauses[c] for n, c in aligned if n == aligned[0][0]][:3]
    for clause in best:
        present = frozenset().union(*(c.keys for c in index.clauses if c.sentence == clause.sentence))
        found = (antonym_edit(claim, cw, low, keys, clause, present)
                 or number_edit(claim, cw, low, keys, clause, index, aligned)
                 or quantifier_edit(claim, cw, low, keys, clause) or requirement_edit(claim, cw, low, keys, clause)
                 or polarity_edit(claim, cw, low, keys, clause) or roles_edit(claim, cw, low, keys, clause)
                 or entity_edit(claim, cw, low, keys, clause, index)
                 or scope.restriction(claim, cw, low, keys, clause) or scope.modality(claim, cw, low, keys, clause)
                 or scope.since(claim, cw, low, keys, clause) or pairs.swap(claim, cw, low, clause, index))
        if found is not None:
            return found
    return (pairs.comparison(claim, cw, low, index) or pairs.temporal(claim, cw, low, index)
            or scope.absence(claim, cw, low, keys, index)
            or subject(claim, cw, low, index))


#: what follows an instruction's verb ("Fill in any ...", "Check the ...", "Add no ...", "Flip and cook ...")
_AFTER_VERB = frozenset("the a an your this that these those it them in on to up out off any all some no and each "
                        "until with".split())


def instruction(claim: str) -> bool:
    """Whether ``claim`` reads as an instruction: it opens with a capitalised word that is no stop word, article or
    pronoun, followed by a determiner or particle ("Fill in any sparse spots", "Continue this process until all
    ..."). Typed edits misfire on instructions (docs/results/typed_edits.md)."""
    words = [w for w, _, _ in words_with_spans(claim)]
    return (len(words) >= 2 and words[0][0].isupper() and words[0].lower() not in STOPWORDS
            and not words[0].lower().endswith("s") and words[1].lower() in _AFTER_VERB)


#: a claim that opens with one of these has lost its subject to the decomposer ("will always be served hot.")
_NO_SUBJECT = frozenset("will would can could may might must shall should is are was were has have had does do did "
                        "be been being".split())


def fragment(claim: str) -> bool:
    """Whether ``claim`` opens with an auxiliary or modal, its subject left in another claim ("can be messier to use
    than ..."): typed edits misfire on such fragments (docs/results/typed_edits.md)."""
    words = words_with_spans(claim)
    return bool(words) and words[0][0].lower() in _NO_SUBJECT


def subject(claim: str, cw, low, index: ClauseIndex) -> Optional[TypedEdit]:
    """A claim that opens with an article and a concrete noun (``lexicon.concrete``; or an adjective and one: "The
    museum ...", "The new gym ...") that the evidence never writes, nor a word of the same first five letters
    ("museum" against a café's menu): baseless, whatever its other words share. The edit's span is that word; a
    baseless claim carries no evidence (``sentence`` -1)."""
    if len(low) < 3 or low[0] not in _ARTICLES or not cw[0][0][0].isupper():
        return None  # a subject only where the claim opens with one: "The museum ...", "A new shop ..."
    k, w = 1, low[1]
    if w in STOPWORDS or w in _REFERS or w in NUMBER_WORDS or w[0].isdigit() or len(w) < 3 or w.endswith("ly"):
        return None
    if not concrete(w):
        if not (len(low) > 2 and low[2] not in STOPWORDS and concrete(low[2])):
            return None  # "The situation ...", "The event ...": abstract subjects are often the answer's own words
        k, w = 2, low[2]  # "The new gym ..."
    if clause_key(w) in index.postings or same_start(w, index.vocabulary):
        return None  # the evidence writes it, or a word of the same start ("verified", "verification")
    edit = Edit("subject", cw[k][1], cw[k][2], cw[k][0], "", -1)
    return TypedEdit(edit, "baseless", f"the claim is about {cw[k][0]!r}, which the context never mentions")
