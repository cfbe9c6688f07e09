"""Context sentences that open with a pronoun, read with their antecedent.

"The vaccine was approved for adults in 2021. It has not been approved for pregnant women." The second sentence
says nothing about a vaccine to a reader of word evidence: ``resolved(sentences)`` reads it as "The vaccine has not
been approved for pregnant women", taking the subject of the sentence before (``text.subjects.subject_of``, itself
read with its own antecedent). Only It, They, He, She, This and These directly before a verb are read so ("It is
important to ..." and "This plan ..." are left alone); the texts are what a judge reads, while the evidence it quotes
and its offsets stay those of the real sentences.
"""

from __future__ import annotations

import re
from typing import Optional, Sequence

from .subjects import AUX, subject_of

_LEADING = re.compile(r"^(?:(?P<pronoun>It|They|He|She)|(?P<demonstrative>This|These))\s+(?=\w)")
#: what follows "This" or "These" when they stand for a noun ("These include ...", not "These rooms ...")
_DEMONSTRATIVE_VERB = re.compile(
    rf"(?:(?:also|still|now|only|never|always|usually|often|no\s+longer)\s+)*(?:{AUX}|include|appl(?:y|ies)|"
    r"covers?|allows?|requires?|gives?|helps?|makes?|lets?)\b", re.IGNORECASE)
#: "It is important to ...", "It takes ...", "It is raining": a dummy "it", no antecedent
_DUMMY = re.compile(r"^It\s+(?:is|was|'s)\s+(?:\w+\s+)?(?:to|that|raining|snowing|possible|likely|unlikely|"
                    r"important|necessary|recommended|advised|best|worth|time|unclear|clear)\b|^It\s+(?:takes|took|"
                    r"seems|appears|remains\s+to)\b", re.IGNORECASE)


_NAME = re.compile(r"(?<=\s)[A-Z][\w'-]*")


def _antecedent(sentence: str) -> Optional[str]:
    """The subject of ``sentence`` (``subject_of``), its names read as names: "The Hollis Museum opened ..." ->
    "The Hollis Museum" ("Hollis" is no verb in -s)."""
    masked = _NAME.sub(lambda m: "Q" * len(m.group(0)), sentence)
    found = subject_of(masked)
    at = masked.find(found) if found else -1
    return sentence[at:at + len(found)] if found and at >= 0 else found


def _plural(subject: str) -> bool:
    """Whether a subject reads as plural: its head (the last word before a preposition) ends in -s (not -ss, -us,
    -is), or it joins two with "and"."""
    words = subject.lower().split()
    head = next((n for n, w in enumerate(words) if n and w in ("in", "of", "at", "on", "for", "with", "from")),
                len(words))
    last = words[head - 1].strip(",.")  # "The shops in town": "shops"
    return " and " in f" {subject.lower()} " or (last.endswith("s") and not last.endswith(("ss", "us", "is"))
                                                    and len(last) > 3) or last in ("people", "children", "staff")


def resolved(sentences: Sequence[str]) -> tuple[str, ...]:
    """The sentences, each one that opens with a pronoun before a verb read with the subject of the sentence before
    it; the others unchanged."""
    out: list[str] = []
    for i, sentence in enumerate(sentences):
        m = _LEADING.match(sentence)
        if i == 0 or m is None or _DUMMY.match(sentence):
            out.append(sentence)
            continue
        after = sentence[m.end():]
        if m.group("demonstrative") and not _DEMONSTRATIVE_VERB.match(after):
            out.append(sentence)
            continue
        subject = _antecedent(out[i - 1])
        if subject is None or subject.split()[0].lower() in ("it", "they", "he", "she", "this", "these", "there",
                                                              "we", "you", "i"):
            out.append(sentence)
            continue
        if _plural(subject) != (m.group(0).split()[0] in ("They", "These")):
            out.append(sentence)  # "The library lends e-readers. They ...": "they" are not the library
            continue
        out.append(subject[:1].upper() + subject[1:] + " " + after)
    return tuple(out)
