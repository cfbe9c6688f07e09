"""Answer particles: the "Yes." / "No, ..." / "Not necessarily:" an assistant opens an answer with, and what such a
particle asserts when the question is a yes/no question.

``particle(sentence)`` finds a particle at the start of an answer sentence (with the punctuation after it, so that
"No dogs are allowed" is no particle) and its polarity: ``yes``, ``no``, or ``hedge`` (it asserts nothing).
``yes_no_statement(question, polarity)`` turns a yes/no question into the statement a particle of that polarity
asserts ("Can I bring my dog into the café?" + no -> "You cannot bring your dog into the café."); None for a
question that is not a yes/no question ("What time does it open?", "Is it red or blue?").
"""

from __future__ import annotations

import re
from typing import Literal, Optional

Polarity = Literal["yes", "no", "hedge"]

_YES = (r"yes|yeah|yep|yup|correct|that'?s\s+correct|that\s+is\s+correct|that'?s\s+right|that\s+is\s+right|right|"
        r"sure|certainly|absolutely|definitely|indeed|of\s+course|exactly|true|affirmative")
_NO = (r"no|nope|nah|not\s+quite|not\s+really|not\s+at\s+all|incorrect|that'?s\s+not\s+(?:right|correct)|"
       r"(?:unfortunately|sadly|sorry)\s*,?\s*(?:no|not)|false")
_HEDGE = (r"not\s+necessarily|not\s+exactly|not\s+usually|not\s+always|it\s+depends|partly|partially|sort\s+of|"
          r"kind\s+of|maybe|possibly|well|(?:(?:that'?s\s+a|what\s+a)\s+)?(?:great|good|excellent)\s+question|"
          r"thanks\s+for\s+asking|happy\s+to\s+help|glad\s+you\s+asked")
#: a lead before the particle: "Short answer: no."
_LEAD = r"(?:(?:the\s+)?(?:short|quick|simple)\s+answer(?:\s+is)?\s*[:—–-]?\s*)?"
#: a particle at the start of a sentence, followed by punctuation (or nothing): "No dogs are allowed" is no particle
_PARTICLE = re.compile(
    rf"^\W*{_LEAD}(?:(?P<no>{_NO})|(?P<hedge>{_HEDGE})|(?P<yes>{_YES}))[*_]*(?:\s*[,.!:;—–-]+|\s*$)[*_]*\s*",
    re.IGNORECASE,
)

_AUX_NEGATIVE = {
    "is": "is not", "are": "are not", "was": "was not", "were": "were not", "am": "am not", "can": "cannot",
    "could": "could not", "do": "do not", "does": "does not", "did": "did not", "will": "will not",
    "would": "would not", "should": "should not", "shall": "shall not", "may": "may not", "might": "might not",
    "must": "must not", "has": "has not", "have": "have not", "had": "had not", "need": "need not",
}
_CONTRACTED = {"isn't": "is", "aren't": "are", "wasn't": "was", "weren't": "were", "can't": "can",
               "couldn't": "could", "don't": "do", "doesn't": "does", "didn't": "did", "won't": "will",
               "wouldn't": "would", "shouldn't": "should", "hasn't": "has", "haven't": "have", "hadn't": "had",
               "mustn't": "must", "needn't": "need", "cannot": "can"}
_QUESTION = re.compile(
    rf"^(?P<aux>{'|'.join(sorted(list(_AUX_NEGATIVE) + list(_CONTRACTED), key=len, reverse=True))})\s+"
    r"(?P<rest>[^?]+?)\s*\?*\s*$",
    re.IGNORECASE,
)
#: a question's opening words to the reader ("Hi, ", "Quick question: ", "So, ")
_OPENING = re.compile(r"^(?:(?:hi|hello|hey|so|ok|okay|quick\s+question|also|and|but|please)\b[\s,:!-]*)+",
                      re.IGNORECASE)
_PERSON = {"i": "you", "me": "you", "my": "your", "mine": "yours", "we": "you", "us": "you", "our": "your",
           "ours": "yours", "myself": "yourself"}
_PRONOUN = frozenset("i you we they he she it there this that".split())
#: words that start the predicate, not the subject: prepositions, adverbs, adjectives of a copula's predicate and
#: common verbs after a modal or "do" ("Does the gym offer ...")
_PREDICATE = frozenset(
    """
    in on at to for from with without by into onto after before during over under about near inside outside between
    than still also really ever always usually only actually currently now already even just
    allowed open closed free available required included necessary possible valid refundable permitted able eligible
    suitable safe ok okay true right covered accepted needed charged cheaper dearer more less older newer younger
    larger bigger smaller longer shorter faster slower better worse higher lower enough too very same different
    get have include offer accept allow need require cost take come work run close cover provide support charge
    apply give let mean contain last use bring pay keep go make see serve sell ship deliver return start begin end
    finish leave arrive stay park book buy rent borrow cancel change join enter visit play win lose exceed reach count
    qualify expire renew earn receive refund travel fly eat drink smoke wear swim check call email order pick do be
    exist happen matter help sleep live move know want like
    born made built founded written located based held known called named opened owned designed painted published
    released discovered invented taught raised married elected sold given taken kept paid sent told found set put
    """.split()
)
_SUBJECT_MAX = 6


def particle(sentence: str) -> Optional[tuple[int, Polarity]]:
    """The particle an answer sentence opens with: (where what follows it starts, its polarity), or None."""
    m = _PARTICLE.match(sentence)
    if m is None:
        return None
    polarity: Polarity = "no" if m.group("no") else "hedge" if m.group("hedge") else "yes"
    return m.end(), polarity


def _person(word: str) -> str:
    swapped = _PERSON.get(word.lower())
    return swapped if swapped is not None else word


def _is_predicate(word: str) -> bool:
    w = word.lower().strip(",;:")
    return w in _PREDICATE or (len(w) > 4 and w.endswith(("ed", "ing", "able", "ible", "ly")))


def yes_no_statement(question: str, polarity: Polarity) -> Optional[str]:
    """The statement a ``yes`` or ``no`` particle asserts in reply to ``question``, or None when the question is not a
    yes/no question (or the polarity is ``hedge``)."""
    if polarity == "hedge" or not question:
        return None
    parts = [p for p in re.split(r"(?<=[?.!])\s+", question.strip()) if p.strip()]
    asked = next((p for p in reversed(parts) if p.rstrip().endswith("?")), parts[-1] if parts else "")
    asked = _OPENING.sub("", asked.strip())
    m = _QUESTION.match(asked)
    either = m is not None and re.match(r"either\b", m.group("rest"), re.IGNORECASE) is not None
    if m is None or not either and re.search(r"\bor\b", m.group("rest"), re.IGNORECASE):
        return None
    aux = m.group("aux").lower()
    aux = _CONTRACTED.get(aux, aux)
    words = m.group("rest").split()
    if words[0].lower() in _PRONOUN:
        n = 1
    else:
        n = 1
        while n < len(words) and n < _SUBJECT_MAX and not _is_predicate(words[n]) \
                and not (n + 1 < len(words) and words[n + 1].lower() == "than") \
                and not (aux in _COPULA and words[n].lower() in _DETERMINERS and words[n - 1][:1].isupper()):
            n += 1  # a comparative ("taller than") or, after a name, a determiner ("Is Paris the ...") ends it
        if n >= len(words) and aux in _COPULA:
            n = _copula_split(words)
    subject = " ".join(_person(w) for w in words[:n])
    rest = " ".join(_person(w) for w in words[n:])
    verb = _AUX_NEGATIVE[aux] if polarity == "no" else aux
    if polarity == "no" and words[0].lower() == "both":
        # "Are both X and Y ...?" - no: "X and Y are not both ..." (not: "Both X and Y are not ...")
        subject, verb = subject.split(None, 1)[1], f"{verb} both"
    elif polarity == "no" and either:
        # "Is either X or Y ...?" - no: "Neither X nor Y is ..."
        subject = re.sub(r"\bor\b", "nor", "neither" + subject[len("either"):], flags=re.IGNORECASE)
        verb = aux
    if subject.lower() == "you" and verb in ("am", "am not"):
        verb = verb.replace("am", "are")
    text = " ".join(p for p in (subject, verb, rest) if p)
    return text[:1].upper() + text[1:] + "."


_COPULA = frozenset(("is", "are", "was", "were", "am"))
_DETERMINERS = frozenset("the a an my your his her its our their this that these those".split())


def _copula_split(words: list[str]) -> int:
    """Where the predicate of "Is <subject> <noun phrase>?" starts when no predicate word tells: at a determiner
    after the first word ("Is Paris | the capital of France?"), else at a capitalised word that no "of" or
    determiner joins to the words before; else the last word ("Is Marie Curie | Polish?")."""
    for k in range(1, len(words)):
        if words[k].lower() in _DETERMINERS:
            return k
    for k in range(1, len(words)):
        if words[k][:1].isupper() and words[k - 1].lower() not in _DETERMINERS | {"of", "de", "von", "van"} \
                and not words[k - 1][:1].isupper():
            return k
    return len(words) - 1  # "Is Marie Curie | Polish?": the last word
