"""The subject of a clause, read by rule: the words before its first verb cue. The decomposer borrows it for a verb
phrase coordinated with a clause ("She hasn't seen it and doesn't plan to"), and the evidence layer for a context
sentence that opens with a pronoun ("The vaccine was approved in 2021. It has not been approved for ...")."""

from __future__ import annotations

import re
from typing import Optional

#: auxiliaries and verbs that follow a subject directly
AUX = (
    r"(?:is|are|was|were|has|have|had|can|cannot|can't|could|will|won't|would|does|doesn't|do|don't|did|didn't|"
    r"must|should|may|might|shall|isn't|aren't|wasn't|weren't|lasts|includes|requires|offers|provides|applies|"
    r"remains|became|becomes|gets|got|includes|contains|costs|takes)"
)
PRONOUN = r"(?:it|they|he|she|we|you|i|there|this|these|those|that)"
#: a verb cue: an auxiliary or listed verb, a word after a pronoun ("they offer"), a past form in -ed, or any word in -s
#: after the first ("the shop accepts"; a plural noun passes too)
VERB_CUE = re.compile(
    rf"\b(?:{AUX}|{PRONOUN}\s+\w+|\w{{3,}}ed|said|made|took|went|gave|found|began|sold|won|lost|led|left|built|"
    r"held|met|ran|saw|told|wrote|grew|fell|rose|paid|kept|brought|bought|came|knew|felt|spent|sent|include|offer|"
    r"accept|provide|serve|need|been|be)\b|(?<=\w)\s+\w{2,}[^s\W]s\b",
    re.IGNORECASE,
)
RELATIVE = re.compile(r"\b(?:which|who|whom|whose)\b[^,;]*", re.IGNORECASE)

_PERSONAL = re.compile(r"^(?:it|they|he|she|we|you|i)\b", re.IGNORECASE)
# A subject does not open with a preposition, a subordinator or a conjunction ("In 2019 the shop opened ..."), and
# does not end on a determiner or preposition (a verb cue taken for a noun: "The talented chef ...").
_PRONOUN_FIRST = re.compile(rf"{PRONOUN}\s", re.IGNORECASE)
_VERB_CUE_AFTER_SUBJECT = re.compile(VERB_CUE.pattern.replace(rf"|{PRONOUN}\s+\w+", ""), re.IGNORECASE)
_TRAILING_ADVERBS = re.compile(
    r"(?:\s+(?:also|then|still|now|further|additionally|often|usually|always|never|even|only|already|thus|therefore|"
    r"again))+$"
)
_AUX_NEXT = re.compile(rf"\s+{AUX}\b", re.IGNORECASE)
_NOT_SUBJECT_START = frozenset(
    "in on at by for from with without to of into onto after before during since until while when whenever if "
    "because although though as once unless whereas where and or but so yet also then however here according "
    "therefore thus moreover furthermore additionally overall finally instead meanwhile please".split()
)
_NOT_SUBJECT_END = frozenset(
    "the a an its their his her our your this that these those of in on at by for from with to and or".split()
)
_SUBJECT_MAX_WORDS = 8


def subject_of(left: str) -> Optional[str]:
    """The subject of the clause ``left``: the words before its first verb cue (outside relative clauses, after the
    last comma), or None when no plausible noun phrase stands there."""
    blanked = RELATIVE.sub(lambda m: " " * len(m.group(0)), left)
    cue = VERB_CUE.search(blanked)
    if cue is None:
        return None
    personal = _PERSONAL.match(blanked[cue.start():])
    if personal:  # "She hasn't seen it": the pronoun
        subject = personal.group(0)
    else:
        # the first verb cue that is not "<demonstrative> <word>" ("This hotel has ..." -> "This hotel")
        cue = _VERB_CUE_AFTER_SUBJECT.search(blanked, cue.start() + 1) if cue.group(0)[0].isalpha() and \
            _PRONOUN_FIRST.match(cue.group(0)) else cue
        if cue is None:
            return None
        end = cue.start()
        if not cue.group(0)[0].isalpha() and _AUX_NEXT.match(blanked, cue.end()):
            end = cue.end()  # a plural noun taken for a verb in -s: "Forward contracts are ..."
        # "In 2019, the shop opened ...", "The bike, which has a motor, costs ...": the last comma-separated piece
        # before the verb that is not blank (relative clauses are blanked) is the subject
        pieces = [p for p in blanked[:end].split(",") if p.strip()]
        subject = " ".join(pieces[-1].split()) if pieces else ""
        subject = _TRAILING_ADVERBS.sub("", subject)  # "Cafe Ana also doesn't ..." -> "Cafe Ana"
    words = subject.split()
    if not words or len(words) > _SUBJECT_MAX_WORDS or not any(ch.isalpha() for ch in subject):
        return None
    if words[0].lower() in _NOT_SUBJECT_START or words[-1].lower() in _NOT_SUBJECT_END:
        return None
    return subject


