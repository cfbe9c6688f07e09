"""The local judge's rules on top of its models: claims flagged whatever the model says, and when the global pass
runs the tagger.

Each rule covers clear cases that RAGTruth rarely or never labels, so the models never learned them; why each
constant has its value, and what the alternatives measured, is in docs/history.md (Trained offline judge).
"""

from __future__ import annotations

from typing import Optional, Sequence, Union

import numpy as np

from ...evidence import EvidenceIndex, TypedEdit, claim_numbers, fragment, instruction, is_remark, tokens, typed_edit
from ...types import Claim
from . import features as F

#: a claim with at least this many content words, none of which occurs anywhere in the evidence, is baseless
#: whatever the model says (``unseen_claims``)
MIN_UNSEEN_WORDS = 3
#: ... unless the model itself puts it below this risk ("offers takeout services." against a record's
#: ``"RestaurantsTakeOut": true``; "A dog barked loudly" against "A cat." stays above it)
UNSEEN_MIN_RISK = 0.05
#: a claim stating a number absent from the evidence, whose other content words a number-stating evidence sentence
#: covers at least this well, is contradicted whatever the model says (``number_swaps``)
NUMBER_SWAP_COVER = 0.8
#: a claim of at least this many words that the evidence holds word for word, in order, is entailed whatever the
#: model says, its risk at most ``COPY_MAX_RISK`` (``copies``): the models read the answer's length and the claim's
#: position, and flag late claims of very long answers even when they copy the context
COPY_MIN_WORDS = 4
COPY_MAX_RISK = 0.05

#: at global verification, claims whose riskiest one the trees alone put below this answer risk (their
#: calibrator's), with no rule firing, are decided by the trees without the tagger (``needs_tagger``)
SKIP_TAGGER_BELOW = 0.28
#: the same for model folders whose trees alone have no calibrator, on the raw claim probability
SKIP_TAGGER_BELOW_UNCALIBRATED = 0.10
#: ... but the tagger still reads a short answer (at most ``SHORT_ANSWER_CLAIMS`` claims) with a claim of at most
#: ``SHORT_CLAIM_WORDS`` words that has a content word its best evidence sentences lack: the trees learned from long
#: answers that one unmatched word is mostly a paraphrase, and pass "The Eiffel Tower is made of wood" against
#: sentences saying wrought iron, which the tagger flags (the rule lets the better reader decide; it decides nothing)
SHORT_CLAIM_WORDS = 8
SHORT_ANSWER_CLAIMS = 2


def unseen_claims(claim_matrix: np.ndarray) -> np.ndarray:
    """Which rows of a claim matrix are claims sharing no content word with the evidence, with at least
    ``MIN_UNSEEN_WORDS`` of them. Gold labels call only 23 % of such RAGTruth train claims hallucinated (most are
    headers and generic fragments), so the model gives them a low risk; a user reading "A dog barked loudly" against
    "A cat." expects baseless."""
    col = F.CLAIM_MODEL_FEATURES.index
    return ((claim_matrix[:, col("c_rule")] == F.RULES.index("no-evidence"))
            & (claim_matrix[:, col("c_content")] >= MIN_UNSEEN_WORDS))


def shares_something(text: str, evidence: Union[str, F.FeatureEvidence]) -> bool:
    """Whether a claim that shares no content word with ``evidence`` (its ``FeatureEvidence``, or a text indexed here
    when needed) is still not one that ``unseen_claims`` should force to baseless: a remark (``is_remark``), or a
    claim whose numbers all occur in the evidence ("They operate daily from 10:00 to 20:00" against a record's
    ``"10:0-20:0"``). The trees decide these."""
    if is_remark(text):
        return True
    numbers = claim_numbers(text)
    return bool(numbers) and numbers <= _numbers(evidence)


def _numbers(evidence: Union[str, F.FeatureEvidence]) -> frozenset[str]:
    """Every number of the evidence, normalised as ``claim_numbers`` normalises a claim's."""
    return evidence.numbers if isinstance(evidence, F.FeatureEvidence) else EvidenceIndex(evidence).all_numbers


def exempt(claims: Sequence[Claim], rows: Sequence[F.WordRows], evidence: Union[str, F.FeatureEvidence]) -> np.ndarray:
    """Which claims share no content word with the evidence (its ``FeatureEvidence``, or a text, indexed here at
    most once) but ``shares_something`` with it: exempt from ``unseen_claims`` (only those claims are read: the
    others cannot be unseen)."""
    unseen = [r.rule == "no-evidence" for r in rows]
    if isinstance(evidence, str) and any(unseen):
        evidence = F.FeatureEvidence(evidence)
    return np.array([u and shares_something(c.text, evidence) for c, u in zip(claims, unseen)], dtype=bool)


def copies(text: str, evidence: F.FeatureEvidence) -> bool:
    """Whether ``evidence`` holds the claim ``text`` word for word (its tokens, lower-cased, one after another, at
    least ``COPY_MIN_WORDS`` of them; punctuation and case aside)."""
    words = tokens(text)
    return len(words) >= COPY_MIN_WORDS and f" {' '.join(words)} " in evidence.joined


def number_swaps(claim_matrix: np.ndarray) -> np.ndarray:
    """Which rows of a claim matrix are near-copies of an evidence sentence with another number ("revenue of $5.1
    billion" against "revenue of $4.2 billion"): the lexical number conflict with the rival sentence covering at
    least ``NUMBER_SWAP_COVER`` of the claim. The model alone lets them pass, because the lexical number check misfires
    on RAGTruth; near-copies are rare there."""
    col = F.CLAIM_MODEL_FEATURES.index
    return ((claim_matrix[:, col("c_rule")] == F.RULES.index("number-conflict"))
            & (claim_matrix[:, col("c_rival_cover")] >= NUMBER_SWAP_COVER))


def negation_flips(claim_matrix: np.ndarray) -> np.ndarray:
    """Which rows of a claim matrix are an evidence sentence with the opposite negation and otherwise the same
    content words ("flash is permitted" against "flash is not permitted"): the lexical negation conflict, which
    requires coverage both ways. Six claims in all of RAGTruth train, so the model never learned it."""
    return claim_matrix[:, F.CLAIM_MODEL_FEATURES.index("c_rule")] == F.RULES.index("negation-conflict")


def decided_by_rule(claim_matrix: np.ndarray, spared: Optional[np.ndarray] = None,
                    risk: Optional[np.ndarray] = None) -> np.ndarray:
    """Claims flagged whatever the model's probability: ``unseen_claims`` (but those ``spared``, a mask from
    ``exempt``, and those whose ``risk``, the model's claim probabilities, is below ``UNSEEN_MIN_RISK``),
    ``number_swaps``, ``negation_flips``."""
    unseen = unseen_claims(claim_matrix)
    if spared is not None:
        unseen &= ~spared
    if risk is not None:
        unseen &= risk >= UNSEEN_MIN_RISK
    return unseen | number_swaps(claim_matrix) | negation_flips(claim_matrix)


#: the typed edits (``evidence.typed_edit``) the judge applies whatever the model says, each with the most claims an
#: answer may have for it to apply: where the kind misfired on RAGTruth train (docs/results/typed_edits.md). Long
#: claims (over ``TYPED_MAX_WORDS``), instructions (``evidence.instruction``) and fragments without their subject
#: (``evidence.fragment``) never get one.
TYPED_GATES = {"antonym": 3, "number": 3, "quantifier": 5, "requirement": 5, "polarity": 3, "roles": 3, "entity": 3,
               "restriction": 3, "modality": 3, "since": 5, "swap": 5, "comparison": 5, "absence": 3,
               "subject": 3}
TYPED_MAX_WORDS = 14
#: the short-unseen rule's answers: at most this many claims
TYPED_MAX_CLAIMS = 3


def typed(text: str, evidence: F.FeatureEvidence, rule: str, claims: int) -> Optional[TypedEdit]:
    """The claim's typed edit against its aligned clause, when the answer has at most its kind's ``TYPED_GATES``
    claims (``claims`` judged together), for a short claim (``TYPED_MAX_WORDS``) that is no instruction nor
    fragment; never for a claim that shares no content word with the evidence (``rule`` "no-evidence")."""
    if rule == "no-evidence" or len(tokens(text)) > TYPED_MAX_WORDS or claims > max(TYPED_GATES.values()) \
            or instruction(text) or fragment(text):
        return None
    found = typed_edit(text, evidence.index.clauses)
    return found if found is not None and claims <= TYPED_GATES.get(found.edit.kind, 0) else None


def short_unseen(text: str, rule: str, evidence: F.FeatureEvidence, claims: int) -> bool:
    """A claim of a short answer (at most ``TYPED_MAX_CLAIMS`` claims) that shares no content word with the
    evidence, however few it has, and does not ``shares_something``: baseless, never entailed without evidence
    ("It was founded in 1901." against opening hours). On the RAGTruth train sample such claims of 1 or 2 content
    words (33) were never gold hallucinations, so long answers keep the model's verdict."""
    return rule == "no-evidence" and claims <= TYPED_MAX_CLAIMS and not shares_something(text, evidence)


def needs_tagger(rows: Sequence[F.WordRows], claim_p: np.ndarray, by_rule: np.ndarray, *, calibrated: bool) -> bool:
    """Whether the global pass runs the tagger on claims the trees alone scored (``claim_p``, ``by_rule``): unless
    they find every claim clearly supported, that is their riskiest claim below ``SKIP_TAGGER_BELOW`` (with no
    ``calibrated`` trees, ``SKIP_TAGGER_BELOW_UNCALIBRATED``), no rule firing, and no short claim with an unmatched
    word in a short answer (``SHORT_CLAIM_WORDS``, ``SHORT_ANSWER_CLAIMS``). ``rows`` must not be empty."""
    short_unmatched = len(rows) <= SHORT_ANSWER_CLAIMS and any(
        len(r.spans) <= SHORT_CLAIM_WORDS and r.assessment is not None and r.assessment.uncovered for r in rows)
    below = SKIP_TAGGER_BELOW if calibrated else SKIP_TAGGER_BELOW_UNCALIBRATED
    return not (claim_p.max() < below and not by_rule.any() and not short_unmatched)
