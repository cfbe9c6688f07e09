"""The lexical evidence layer: what the offline judges know of a claim and an evidence text without a model.

- ``words``: tokens, stems, content words, numbers, negations, capitalised names (one meaning of "content word" for
  the judges, the auditor's prefilter and the facets);
- ``claims``: word keys, numbers normalised as facts to check, a claim read on its own (``read_claim``);
- ``EvidenceIndex``: the sentences of one evidence text with their word keys and numbers, built once per text and
  passed to whoever reads it; ``premise`` turns its sentence numbers into a judgment's quotes and sentence ids;
- ``assess`` -> ``Assessment`` (threshold-free), decided by ``rule_of`` under ``Thresholds`` into a ``Rule``;
- ``one_edit`` -> ``Edit``: a claim that copies an evidence sentence but for one edit that changes what it says,
  read against ``EditSentences`` (``EvidenceIndex.edits``);
- ``typed_edit`` -> ``TypedEdit``: an edit of a known kind (``TYPED_KINDS``: antonym, number, quantifier, roles, ...)
  between a claim and the evidence's clauses; ``instruction`` and ``fragment`` say which claims it never reads;
- ``derive``: what a claim computes from the evidence (a difference, a total, a date, a comparison, the user's value
  against a bound), checked; ``quantities`` and ``holds``: amounts normalised across words, digits and units;
- ``lexicon_classes``: the shipped lexicon's contrasts and classes.

This module is the package's public face: the judges, the facets and the training code import from here; the
modules behind it are private (``_words``, ``_claims``, ...) and may change.

Layering: above ``rt4chart.text``, below ``rt4chart.audit`` and ``rt4chart.judges``.
"""

from ._arithmetic import Derivation, derive
from ._assess import Assessment, Kind, Rule, Thresholds, assess, rule_of
from ._claims import (
    CAMEL, ClaimReading, amount_spans, claim_numbers, content_forms, given_numbers, givens, is_preamble,
    is_remark, negated, normalised_numbers, question_keys, read_claim, word_key,
)
from ._edit_words import EditSentences, rivals
from ._edits import Edit, one_edit
from ._index import EvidenceIndex, Restatement, original_offset, premise, read_as, restated
from ._lexicon import lexicon_classes
from ._quantities import Quantity, holds, quantities
from ._typed import KINDS as TYPED_KINDS
from ._typed import TypedEdit, fragment, instruction, typed_edit
from ._words import (
    NEGATIONS, NUMBER, NUMBER_WORDS, STOPWORDS, TOKEN, capitalised_names, clean_number, content_terms,
    content_word_map, content_words, has_negation, numbers, stem, tokens,
)

__all__ = [
    "Assessment", "CAMEL", "ClaimReading", "Derivation", "Edit", "EditSentences", "EvidenceIndex", "Kind",
    "NEGATIONS", "NUMBER", "NUMBER_WORDS", "Quantity", "Restatement", "Rule", "STOPWORDS", "TOKEN", "TYPED_KINDS",
    "Thresholds", "TypedEdit", "amount_spans", "assess", "capitalised_names", "claim_numbers", "clean_number",
    "content_forms", "content_terms", "content_word_map", "content_words", "derive", "fragment", "given_numbers",
    "givens", "has_negation", "holds", "instruction", "is_preamble", "is_remark", "lexicon_classes", "negated",
    "normalised_numbers", "numbers", "one_edit", "original_offset", "premise", "quantities", "question_keys",
    "read_as", "read_claim", "restated", "rivals", "rule_of", "stem", "tokens", "typed_edit", "word_key",
]
