"""The synthetic generators of neutral pairs: what the premise does not say, taken from another document of the
same task (one of its sentences, or one of its clauses added to the sentence). Each reads a ``Source`` and returns
the hypothesis, or None when it cannot apply.
"""

from __future__ import annotations

import random
from typing import Optional

from rt4chart.audit.decompose import RuleDecomposer
from rt4chart.evidence import content_words

from .synthetic_source import Source, name_runs


def _unheld(text: str, premise: str) -> int:
    """How many content words of ``text`` the premise does not have."""
    return len(content_words(text) - content_words(premise))


def other_sentence(src: Source, rng: random.Random) -> Optional[str]:
    """A sentence of another document: of five drawn, the one sharing most content words with the premise (a
    harder neutral), provided two of its content words are not the premise's."""
    if not src.other:
        return None
    drawn = [src.other[rng.randrange(len(src.other))] for _ in range(5)]
    held = content_words(src.premise)
    drawn = [d for d in drawn if _unheld(d, src.premise) >= 2]
    if not drawn:
        return None
    return max(drawn, key=lambda d: len(content_words(d) & held))


def added_clause(src: Source, rng: random.Random) -> Optional[str]:
    """The sentence with a clause of another document added: "<sentence>, and <fragment>." (the fragment is a
    clause of another document's sentence, with two content words the premise does not have; its first word is
    lower-cased unless the other document writes it as a name)."""
    if not src.other or src.sentence.rstrip().endswith("?"):
        return None
    other = src.other[rng.randrange(len(src.other))]
    parts = [c.text for c in RuleDecomposer().decompose_sync(other)]
    part = parts[rng.randrange(len(parts))].strip().rstrip(".!;,:")
    words = part.split()
    if len(words) < 4 or _unheld(part, src.premise) < 2:
        return None
    names = {w for o in src.other for _, _, run in name_runs(o) for w in run.split()}
    if words[0] not in names:  # a sentence's first word, not a name
        part = part[:1].lower() + part[1:]
    return src.sentence.rstrip().rstrip(".!;,:") + ", and " + part + "."
