"""Synthetic pairs from RAGTruth **train** context sentences: one edit that changes what a sentence says
(contradiction), a part of what it says (entailment), or what it does not say (neutral).

Each generator reads a ``Source`` (the sentence, the premise it is checked against: the sentence with up to two
neighbours, and the sentences of another document of the same task) and returns the hypothesis, or None when it
cannot apply; one whose edit belongs in the premise (``lexical_negation``'s "declined to comment" against
"commented") returns (premise, hypothesis). ``GENERATORS`` names each with its label; ``synthetic_pairs`` runs each
over a seeded order of the prose sentences of the contexts until its cap. The closed word lists are the lexical
layer's (``NEGATIONS``, ``rivals``, ``STOPWORDS``) and a few of the generators' own (simple pasts, two-way
adjectives, manner adverbs).

The generators live by label: ``synthetic_contradiction``, ``synthetic_entailment``, ``synthetic_neutral``; what
several of them read and look for in a sentence, in ``synthetic_source``.
"""

from __future__ import annotations

import random
from typing import Callable, Iterable, Optional, Sequence

from rt4chart.eval.datasets import EvalRecord
from rt4chart.evidence import EvidenceIndex

from .pairs import LABELS, Pair
from .synthetic_contradiction import (antonym, binary_antonym, lexical_negation, negation, number_change,
                                      passive_swap, quantifier, role_swap, temporal, wrong_entity)
from .synthetic_entailment import (adverb_drop, clause, copy, managed, negated_antonym, number_words, parenthetical,
                                   passive)
from .synthetic_neutral import added_clause, other_sentence
from .synthetic_source import Source

#: generator name -> (its label, the generator); ``source`` is ``synthetic/<name>``
GENERATORS: dict[str, tuple[str, Callable[[Source, random.Random], Optional[str]]]] = {
    "quantifier": ("contradiction", quantifier),
    "negation": ("contradiction", negation),
    "antonym": ("contradiction", antonym),
    "role_swap": ("contradiction", role_swap),
    "wrong_entity": ("contradiction", wrong_entity),
    "number": ("contradiction", number_change),
    "temporal": ("contradiction", temporal),
    "lexical_negation": ("contradiction", lexical_negation),
    "binary_antonym": ("contradiction", binary_antonym),
    "passive_swap": ("contradiction", passive_swap),
    "copy": ("entailment", copy),
    "clause": ("entailment", clause),
    "parenthetical": ("entailment", parenthetical),
    "negated_antonym": ("entailment", negated_antonym),
    "managed": ("entailment", managed),
    "passive": ("entailment", passive),
    "adverb_drop": ("entailment", adverb_drop),
    "number_words": ("entailment", number_words),
    "other_sentence": ("neutral", other_sentence),
    "added_clause": ("neutral", added_clause),
}


def default_caps(per_label: int) -> dict[str, int]:
    """Each generator's cap: ``per_label`` pairs a label, shared equally by its generators."""
    counts = {lab: sum(1 for label, _ in GENERATORS.values() if label == lab) for lab in LABELS}
    return {name: per_label // counts[label] for name, (label, _) in GENERATORS.items()}


def prose(sentence: str) -> bool:
    """A sentence of running text worth editing: 6-60 words, starting with a capital, ending in "." or "!", no
    record syntax (braces, '":') and no line break, as a character or written out ("\\n")."""
    words = sentence.split()
    return (6 <= len(words) <= 60 and sentence[:1].isupper() and sentence.rstrip().endswith((".", "!"))
            and not any(c in sentence for c in "{}[]|\n") and '":' not in sentence and "\\n" not in sentence)


def window(texts: Sequence[str], i: int, rng: random.Random) -> str:
    """Sentence ``i`` with up to two of its neighbours (how many and which, seeded), in order."""
    lo, hi = i, i + 1
    for _ in range(rng.randint(0, 2)):
        if rng.random() < 0.5 and lo > 0:
            lo -= 1
        elif hi < len(texts):
            hi += 1
        elif lo > 0:
            lo -= 1
    return " ".join(texts[lo:hi])


def synthetic_pairs(records: Iterable[EvalRecord], *, seed: int = 0,
                    caps: Optional[dict[str, int]] = None) -> list[Pair]:
    """Each generator's pairs over the prose sentences of the records' distinct contexts, in an order seeded by
    ``seed`` and the generator's name, until its cap (``caps``, default ``default_caps(9000)``). The other document
    is a seeded draw among the other contexts of the same task; ``group`` is the edited context's."""
    caps = default_caps(9000) if caps is None else caps
    docs: dict[str, tuple[str, tuple[str, ...]]] = {}
    for r in records:
        if r.group not in docs:
            docs[r.group] = (r.task, EvidenceIndex(r.context).texts)
    groups = sorted(docs)
    by_task: dict[str, list[str]] = {}
    for g in groups:
        by_task.setdefault(docs[g][0], []).append(g)
    candidates = [(g, i) for g in groups for i, s in enumerate(docs[g][1]) if prose(s)]
    prose_of = {g: tuple(s for s in docs[g][1] if prose(s)) for g in groups}
    out: list[Pair] = []
    for name, (label, generate) in GENERATORS.items():
        cap = caps.get(name, 0)
        rng = random.Random(f"{seed}:{name}")
        order = list(candidates)
        rng.shuffle(order)
        made = 0
        for g, i in order:
            if made >= cap:
                break
            texts = docs[g][1]
            same_task = by_task[docs[g][0]]
            other = same_task[rng.randrange(len(same_task))] if len(same_task) > 1 else g
            other_sentences = prose_of[other] if other != g else ()
            src = Source(texts[i], window(texts, i, rng), other_sentences)
            made_pair = generate(src, rng)
            premise, hypothesis = made_pair if isinstance(made_pair, tuple) else (src.premise, made_pair)
            if hypothesis is None or (label != "entailment" and hypothesis.strip() == texts[i].strip()
                                      and premise == src.premise):
                continue
            out.append(Pair(premise, hypothesis, label, f"synthetic/{name}", g))
            made += 1
    return out
