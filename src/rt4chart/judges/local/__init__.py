"""The trained offline judge (``--judge local``; the default when no LLM is configured): two tree ensembles run
with onnxruntime, trained on the RAGTruth train split only by ``python -m training.train_local_judge``.

For each claim, every word gets a feature row (``rt4chart.judges.local.features``: is it, its stem, its bigrams found in
the evidence; is it a number or a name; how well the best evidence sentences cover the claim; the lexical judge's
checks). The **word model** gives each word P(inside a hallucinated span). The **claim model** reads those
probabilities aggregated per claim and over all the claims judged together (at the global stage: the whole answer),
with the claim features, and gives P(claim is hallucinated). A small **calibrator** (``models.CALIBRATOR``, fitted on
the train answers, monotone in the claim probability) turns it into the answer's risk were that claim its riskiest,
given whether the context is a record, and the context's and the answer's lengths. That risk is ``Judgment.score``.
A model folder may add **short-context calibrators** (``models.CALIBRATOR_SHORT``, written by ``python -m
training.world_calibrator fit``; the shipped folder has none): for a context shorter than the card's
``short_calibrator.below_chars`` they give the risk instead, from the claim probability beside the claim's word
coverage and lexical checks; remarks and numbers-only claims (``rules.exempt``) keep the RAGTruth one.
The judge reads no question (``LocalJudge(reads_question=True)`` does): a user's pipeline may send the instruction
as one, and the same answer and context then get the same verdicts; and a record reads the same whether it comes as
indented JSON, JSON on one line or a Python literal (``text.segment`` cuts a one-line record into its fields).

A claim is hallucinated when that risk reaches ``threshold`` (from the model card; ``--threshold``
overrides). It is then ``contradicted`` when the lexical checks found a conflicting number or negation in the
evidence (that sentence is the evidence), else ``baseless``; its ``Judgment.spans`` are its words whose word
probability reaches ``word_threshold`` (its likeliest word when none does; ``spans``), so answer spans are narrower
than the claim. A claim that copies an evidence sentence but for one edit (another name, number word or closed-class
word in one place, "... is in London" against "... is in Paris", "330 metres wide" against "330 metres tall"; a
negation the sentence does not have, or none where it has one; ``one_edit``) is ``contradicted`` whatever the model
says, the edited words its span: RAGTruth has almost no such edits, so the models never learned them. A claim that
the evidence holds word for word is ``entailed`` at any answer length (``rules.copies``). The other rules on top of
the models are in ``rules``: a claim of ``rules.MIN_UNSEEN_WORDS`` content words or more, none of them in the
evidence, is ``baseless`` whatever the model says (``rules.unseen_claims``), unless it is a remark about
the sources or the conversation ("If you have any further questions, feel free to ask.") or states only numbers of
the evidence (``rules.shares_something``), or the model puts it below ``rules.UNSEEN_MIN_RISK`` ("offers takeout
services." against a record's ``"RestaurantsTakeOut": true``); near-copies with another number and negation flips
are ``contradicted``. An ``entailed`` claim's evidence is the sentences that best cover its content words; a claim
with nothing checkable (a meta sentence, a restated question) gets none, which the auditor reports as
``unverified``.

**Semantic stage** (global verification only; ``no_tagger=True`` or ``--no-tagger`` turns it off). Unless the
trees alone find every claim clearly supported (``rules.needs_tagger``), the MiniLM token tagger of ``tagger`` reads
the claims against the context once, and a second pair of tree models, trained the same way with the tagger's word
probabilities as extra columns (``tagger.WORD_COLUMNS``, ``tagger.CLAIM_COLUMNS``), gives the probabilities instead,
with its own calibrator (``models.CALIBRATOR_T``) and a **span model** (``models.SPAN_MODEL_T``) that reads each
word's probability beside its neighbours' and the claim's: RAGTruth's spans are phrases. Its threshold and the word
threshold are in ``models/local_tagger.json``. Local chunks get the trees alone: they are search hints, and the
global pass decides.

Modules: ``models`` (files, cards, sessions, ``predict``), ``rules``, ``spans``, ``tagger``, ``judge``
(``LocalJudge``). Runtime needs only numpy, onnxruntime and tokenizers (core dependencies): no torch, no
scikit-learn. The models (``rt4chart/judges/models/local_judge_*.onnx``, about 2.6 MB; ``local_tagger.onnx``, 23 MB,
int8) ship in the wheel.
"""

from .judge import LocalJudge, Reading, Scores
from .models import (CALIBRATOR, CALIBRATOR_FEATURES, CALIBRATOR_SHORT, CALIBRATOR_SHORT_T, CALIBRATOR_T, CARD,
                     CLAIM_MODEL, CLAIM_MODEL_T, SPAN_FEATURES, SPAN_MODEL_MIN_RISK, SPAN_MODEL_T, TAGGER_CARD,
                     WORD_MODEL, WORD_MODEL_T, Prediction, calibrator_rows, is_available, model_dir,
                     span_rows)
from .rules import decided_by_rule, exempt, shares_something
from .spans import merge_words

__all__ = [
    "CALIBRATOR", "CALIBRATOR_FEATURES", "CALIBRATOR_SHORT", "CALIBRATOR_SHORT_T", "CALIBRATOR_T", "CARD",
    "CLAIM_MODEL", "CLAIM_MODEL_T", "LocalJudge",
    "Prediction", "Reading", "SPAN_FEATURES", "SPAN_MODEL_MIN_RISK", "SPAN_MODEL_T", "Scores",
    "TAGGER_CARD", "WORD_MODEL", "WORD_MODEL_T", "calibrator_rows", "decided_by_rule", "exempt", "is_available",
    "merge_words", "model_dir", "shares_something", "span_rows",
]
