"""The lexical evidence layer: what the offline judges know of a claim and an evidence text without a model.

- ``words``: tokens, stems, content words, numbers, negations, capitalised names (one meaning of "content word" for
  the judges, the auditor's prefilter and the facets);
- ``claims``: word keys, numbers normalised as facts to check, a claim read on its own (``read_claim``);
- ``EvidenceIndex``: the sentences of one evidence text with their word keys and numbers, built once per text and
  passed to whoever reads it; ``premise`` turns its sentence numbers into a judgment's quotes and sentence ids;
- ``assess`` -> ``Assessment`` (threshold-free), decided by ``rule_of`` under ``Thresholds`` into a ``Rule``;
- ``one_edit`` -> ``Edit``: a claim that copies an evidence sentence but for one edit that changes what it says,
  read against ``EditSentences`` (``EvidenceIndex.edits``).

Layering: above ``rt4chart.text``, below ``rt4chart.audit`` and ``rt4chart.judges``.
"""

from .assess import Assessment, Kind, Rule, Thresholds, assess, rule_of
from .claims import (
    CAMEL, ClaimReading, amount_spans, claim_numbers, content_forms, given_numbers, givens, is_preamble,
    is_remark, negated,
    normalised_numbers, question_keys, read_claim, word_key,
)
from .edit_words import EditSentences, rivals
from .edits import Edit, one_edit
from .index import EvidenceIndex, Restatement, original_offset, premise, read_as, restated
from .words import (
    NEGATIONS, NUMBER, NUMBER_WORDS, STOPWORDS, TOKEN, capitalised_names, clean_number, content_word_map,
    content_words, has_negation, numbers, stem, tokens,
)

__all__ = [
    "Assessment", "CAMEL", "ClaimReading", "Edit", "EditSentences", "EvidenceIndex", "Kind", "NEGATIONS", "NUMBER",
    "NUMBER_WORDS", "Restatement", "Rule", "STOPWORDS", "TOKEN", "Thresholds", "amount_spans", "assess",
    "capitalised_names", "claim_numbers",
    "clean_number", "content_forms", "content_word_map", "content_words", "given_numbers", "givens", "has_negation",
    "is_preamble", "is_remark",
    "negated", "normalised_numbers", "numbers", "one_edit", "original_offset", "premise", "question_keys", "read_as",
    "restated",
    "read_claim", "rivals", "rule_of", "stem", "tokens", "word_key",
]
