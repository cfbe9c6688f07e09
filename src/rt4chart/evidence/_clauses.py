"""Typed edits at clause level: a claim aligned to the evidence clause that holds most of its content words, and
what differs between them, named (``typed_edit``). The one-edit copies (``edits.one_edit``) need the claim to copy
a whole sentence word for word; these need only the clause's content words, and read what changed:

- ``antonym``: a content word of the claim where the clause has one of its rivals (``edit_words.CONTRASTS``: the
  closed classes and the shipped WordNet lexicon), the claim's other content words in the clause, the same polarity;
- ``number``: an amount of the claim (``quantities``, so "ten" is 10 and "two days" 48 hours) where the clause has
  another amount of the same dimension, and no clause as close holds the claim's;
- ``quantifier``: "all", "every", "always" or "must" in the claim where the clause has "some", "most", "only", "may"
  or a restriction of the same noun ("new users" for "all users");
- ``requirement``: the claim says something is not required or needed where the clause requires it;
- ``polarity``: the claim negates the clause, or drops its negation, all its other content words there;
- ``roles``: two names or nouns on both sides of the same verb, the other way round;
- ``entity``: a name of the claim where the clause has another name between the same words; contradicted when the
  claim's name stands elsewhere in the evidence (a swap), baseless when it stands nowhere.

How often each fires on RAGTruth train and validation, and how often on a gold hallucination:
``python3 -m training.experiments.one_edit_fires --typed`` (docs/results/typed_edits.md)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, Optional, Sequence

from ._claims import negated
from ._edit_words import CONDITIONS, CONTRASTS, EDIT_COVER, words_with_spans, is_name
from ._edits import Edit
from ._quantities import Quantity, bound, compatible, quantities
from ._words import NEGATIONS, NUMBER_WORDS, STOPWORDS, stem

#: where a sentence splits into clauses: ";", ":", a dash, or ", and" / ", but" / " whereas " and the like
_CLAUSE = re.compile(r"\s*(?:;|:(?=\s)|\s[\u2013\u2014-]\s|,\s*(?:and|but|while|whereas|yet)\s"
                     r"|\s(?:but|whereas|while)\s)\s*", re.IGNORECASE)
_STRONG = frozenset("all every everyone everybody always entire".split())
_WEAK = frozenset("some most many several few certain usually often sometimes occasionally generally typically "
                  "mostly partly partially only majority".split())
#: degree words a paraphrase adds or drops ("extremely deep"): not content words here
_DEGREE = frozenset("very extremely highly really quite particularly especially incredibly fairly pretty rather "
                    "slightly somewhat totally completely fully".split())
#: subject pronouns: a clause that starts with one is about a noun of an earlier sentence ("It is closed ...")
_SUBJECTS = frozenset("it they he she this these".split())
_MUST = frozenset("must always".split())
_MAY = frozenset("may might possibly".split())
_REQUIRED = frozenset("required require requires need needs needed necessary mandatory compulsory obligatory".split())
_REQUIRES = _REQUIRED | frozenset("must only".split())
#: verbs whose two sides may change places and say the same ("A met B", "A and B")
_SYMMETRIC = frozenset("met meet meets married marry marries played play plays fought fight fights partnered "
                       "merged merge merges signed sign signs compared compare compares versus vs and with against "
                       "between joined collaborated together".split())
#: how well the clause must hold the claim's other content words for a quantifier's restriction to count
RESTRICTION_COVER = 0.5
#: the clause's content words the claim must hold for a negation flip (the clause says what the claim says)
POLARITY_BACK = 0.75


@dataclass(frozen=True)
class TypedEdit:
    """A typed edit: ``edit`` (its ``kind`` one of the module's kinds, ``sentence`` the aligned sentence), the
    ``label`` it gives ("contradicted" or "baseless"), and its reason in words."""

    edit: Edit
    label: str
    reason: str


@dataclass(frozen=True)
class Clause:
    sentence: int
    text: str
    words: tuple[str, ...]  # lower-cased edit words
    keys: frozenset[str]  # stems of content words (no numbers)
    quantities: tuple[Quantity, ...]
    negated: bool


def clause_key(word: str) -> str:
    return stem(word.lower())


#: letters two words must share at their start to be read as forms of one word ("inspected", "inspectors")
SAME_START = 5


def same_start(word: str, words: Iterable[str]) -> bool:
    """Whether one of ``words`` begins with ``word``'s first ``SAME_START`` letters (all of them when shorter)."""
    head = word[:SAME_START]
    return any(x.startswith(head) for x in words)


def content_words(words: Sequence[str]) -> list[str]:
    return [w for w in words if w not in STOPWORDS and not w[0].isdigit() and len(w) > 1 and not w.endswith("n't")
            and w not in _STRONG and w not in _WEAK and w not in _DEGREE]


@lru_cache(maxsize=8192)
def _sentence_clauses(sentence: str) -> tuple[str, ...]:
    parts = [p for p in _CLAUSE.split(sentence) if p and p.strip()]
    return tuple(parts) if len(parts) > 1 else (sentence,)


class ClauseIndex:
    """The clauses of evidence sentences, with which clauses hold each content-word key (built once per evidence
    text: ``EvidenceIndex.clauses``)."""

    def __init__(self, sentences: Sequence[str]) -> None:
        self.sentences = tuple(sentences)
        self.clauses: list[Clause] = []
        self.postings: dict[str, list[int]] = {}
        for si, s in enumerate(self.sentences):
            for text in _sentence_clauses(s):
                words = tuple(w.lower() for w, _, _ in words_with_spans(text))
                keys = frozenset(clause_key(w) for w in content_words(words))
                ci = len(self.clauses)
                self.clauses.append(Clause(si, text, words, keys, quantities(text), negated(text)))
                for k in keys:
                    self.postings.setdefault(k, []).append(ci)
        self.vocabulary = frozenset(w for c in self.clauses for w in c.words)
        #: words the evidence writes lower-cased somewhere: a claim's first word among them is no name
        self.plain = frozenset(w for s in self.sentences for w, _, _ in words_with_spans(s) if w.islower())

    def align(self, keys: frozenset[str]) -> list[tuple[int, int]]:
        """(shared keys, clause) of the clauses sharing a key with ``keys``, the most shared first (ties: the
        clause with fewer keys of its own)."""
        counts: dict[int, int] = {}
        for k in keys:
            for ci in self.postings.get(k, ()):
                counts[ci] = counts.get(ci, 0) + 1
        return sorted(((n, ci) for ci, n in counts.items()), key=lambda x: (-x[0], len(self.clauses[x[1]].keys), x[1]))


def make_edit(kind: str, claim: str, cw, i: int, j: int, theirs: str, sentence: int) -> Edit:
    return Edit(kind, cw[i][1], cw[j - 1][2], claim[cw[i][1]:cw[j - 1][2]], theirs, sentence)


def covered(rest: "set[str] | frozenset[str]", clause: Clause, share: float = EDIT_COVER,
             subject: Optional[str] = None) -> bool:
    """Whether ``clause`` holds at least ``share`` of ``rest``; a clause that opens with a pronoun stands for the
    claim's ``subject`` (its first content word's key), which then need not be there."""
    if subject is not None and subject in rest and subject not in clause.keys and \
            not _SUBJECTS.isdisjoint(clause.words[:2]):
        rest = set(rest) - {subject}
    return bool(rest) and len(rest & clause.keys) >= share * len(rest)


def subject_key(low: Sequence[str]) -> Optional[str]:
    first = next((w for w in low if w not in STOPWORDS and not w[0].isdigit()), None)
    return clause_key(first) if first else None


def antonym_edit(claim, cw, low, keys, clause: Clause, present: frozenset = frozenset()) -> Optional[TypedEdit]:
    """``present``: the keys of the clause's whole sentence: a word its other clause has is no substitution
    ("open on Saturday" against "open Monday to Friday ..., and on Saturday ...")."""
    if negated(claim) != clause.negated:
        return None
    theirs = [w for w in content_words(clause.words) if clause_key(w) not in keys]
    for i, w in enumerate(low):
        if clause_key(w) in clause.keys or clause_key(w) in present or w in STOPWORDS or w not in CONTRASTS.words:
            continue
        rival = next((x for x in theirs if CONTRASTS.contrast(w, x)), None)
        if rival is None or not covered(keys - {clause_key(w)}, clause, subject=subject_key(low)):
            continue
        kind = CONTRASTS.kind(w, rival)
        return TypedEdit(make_edit("antonym", claim, cw, i, i + 1, rival, clause.sentence), "contradicted",
                         f"the claim says {cw[i][0]!r} where the context says {rival!r} ({kind})")
    return None


def number_edit(claim, cw, low, keys, clause: Clause, index: ClauseIndex,
            aligned: Sequence[tuple[int, int]]) -> Optional[TypedEdit]:
    mine = quantities(claim)
    if not mine or not clause.quantities:
        return None
    amount_words = {clause_key(w) for q in mine for w, _, _ in words_with_spans(q.text)}  # "an hour and a half"
    if not covered(keys - amount_words, clause, subject=subject_key(low)):
        return None
    for q in mine:
        if any(q.equals(x) for x in clause.quantities):
            continue
        other = next((x for x in clause.quantities if x.same_dimension(q) and not any(x.equals(y) for y in mine)),
                     None)
        if other is None:
            continue
        # a clause as close to the claim that holds its amount supports it ("... rose 7% in 2020")
        shared = aligned[0][0]
        if any(n >= shared and any(q.equals(x) for x in index.clauses[c].quantities) for n, c in aligned):
            continue
        if compatible(claim, q, clause.text, other):
            continue  # "in under three weeks" against "within 10 days"
        edit = Edit("number", q.start, q.end, q.text, other.text, clause.sentence)
        bounded = bound(claim, q) or bound(clause.text, other)
        return TypedEdit(edit, "contradicted", f"the claim has {q.text!r} where the context has {other.text!r}"
                         + (" (the bounds do not meet)" if bounded else ""))
    return None


#: weak words that qualify the verb, not a noun ("usually", "often"): they quantify whatever the clause says
_ADVERBIAL = frozenset("usually often sometimes occasionally generally typically mostly partly partially".split())


def _quantifies(words: Sequence[str], k: int, keys: frozenset[str]) -> bool:
    """Whether the weak word ``words[k]`` quantifies something the claim speaks of: an adverb does; a determiner
    ("several ingredients", "some of the patients") does when the claim has its noun."""
    if words[k] in _ADVERBIAL or words[k] == "only":
        return True
    noun = next((w for w in words[k + 1:k + 4] if w not in STOPWORDS), None)
    return noun is not None and clause_key(noun) in keys


def only_kept(words: Sequence[str], k: int, low: Sequence[str]) -> bool:
    """Whether ``words[k]`` is "only" and the claim (``low``) keeps what it restricts to: the content word next to it
    ("residents of Elm Park only" against "all residents of Elm Park")."""
    if words[k] != "only":
        return False
    near = [w for w in (words[k - 1] if k else "", words[k + 1] if k + 1 < len(words) else "")
            if w and w not in STOPWORDS]
    mine = {clause_key(w) for w in low}
    return any(clause_key(w) in mine for w in near)


def quantifier_edit(claim, cw, low, keys, clause: Clause) -> Optional[TypedEdit]:
    if negated(claim) or clause.negated:
        return None  # "not all states observe it" says what "some states do not" says
    for i, w in enumerate(low):
        if w in _STRONG and w != "entire":  # "the entire hinge" is the whole of one thing, not every one
            weak = next((x for k, x in enumerate(clause.words) if x not in low and not only_kept(clause.words, k, low)
                         and (x in _WEAK or (x[0].isdigit() or x in NUMBER_WORDS)
                              and clause.words[k + 1:k + 2] == ("of",)) and _quantifies(clause.words, k, keys)),
                        None)
            if weak is not None and covered(keys, clause):
                at = clause.words.index(weak)
                return TypedEdit(make_edit("quantifier", claim, cw, i, i + 1, weak, clause.sentence), "contradicted",
                                 f"the context says {' '.join(clause.words[at:at + 3])!r}, the claim {cw[i][0]!r}")
            # a restriction of the same noun dropped: "all users" where the clause says "new users"
            noun = next((x for x in low[i + 1:i + 3] if x not in STOPWORDS), None)
            if noun is None or clause_key(noun) not in clause.keys:
                continue
            at = next(a for a, x in enumerate(clause.words) if clause_key(x) == clause_key(noun))
            mod = clause.words[at - 1] if at > 0 else ""
            if mod and mod not in STOPWORDS and not mod[0].isdigit() and mod not in low and \
                    covered(keys - {clause_key(noun)}, clause, RESTRICTION_COVER):
                return TypedEdit(make_edit("quantifier", claim, cw, i, i + 1, f"{mod} {clause.words[at]}",
                                       clause.sentence), "contradicted",
                                 f"the context says {mod + ' ' + clause.words[at]!r}, the claim "
                                 f"{cw[i][0] + ' ' + noun!r}")
        if w in _MUST:
            may = next((x for x in clause.words if x in _MAY and x not in low), None)
            if may is not None and not any(x in _MUST for x in clause.words) and covered(keys, clause):
                return TypedEdit(make_edit("quantifier", claim, cw, i, i + 1, may, clause.sentence), "contradicted",
                                 f"the claim says {cw[i][0]!r} where the context says {may!r}")
    return None


def requirement_edit(claim, cw, low, keys, clause: Clause) -> Optional[TypedEdit]:
    if not negated(claim) or clause.negated:
        return None
    at = next((i for i, w in enumerate(low) if w in _REQUIRED), None)
    if at is None:
        return None
    rest = keys - {clause_key(w) for w in _REQUIRED}
    marker = next((x for x in clause.words if x in _REQUIRES), None)
    if marker is None or not rest or not rest <= clause.keys:
        return None
    return TypedEdit(make_edit("requirement", claim, cw, at, at + 1, marker, clause.sentence), "contradicted",
                     f"the claim says {'not ' + cw[at][0]!r} where the context says {marker!r}")


def polarity_edit(claim, cw, low, keys, clause: Clause) -> Optional[TypedEdit]:
    if not CONDITIONS.isdisjoint(low) or not CONDITIONS.isdisjoint(clause.words):
        return None  # a condition states nothing ("If it is not connected, connect it")
    if negated(claim) == clause.negated or len(keys) < 2 or not keys <= clause.keys:
        return None
    if len(clause.keys & keys) < POLARITY_BACK * len(clause.keys):
        return None
    if any(CONTRASTS.contrast(w, x) for w in low for x in clause.words):
        return None  # "not open" against "closed" agrees
    i = next((k for k, w in enumerate(low) if w in NEGATIONS or w.endswith("n't")), None)
    if i is None:  # the clause has the negation
        neg = next((x for x in clause.words if x in NEGATIONS or x.endswith("n't")), "a negation")
        return TypedEdit(Edit("polarity", cw[0][1], cw[-1][2], claim, clause.text, clause.sentence), "contradicted",
                         f"the claim states what the context negates ({neg!r}): {clause.text.strip()!r}")
    return TypedEdit(make_edit("polarity", claim, cw, i, i + 1, clause.text, clause.sentence), "contradicted",
                     f"the claim negates ({cw[i][0]!r}) what the context states: {clause.text.strip()!r}")


def roles_edit(claim, cw, low, keys, clause: Clause) -> Optional[TypedEdit]:
    if not keys <= clause.keys or len(keys) < 3:
        return None
    content = [(i, w) for i, w in enumerate(low) if w not in STOPWORDS and not w[0].isdigit()]
    theirs = [(i, w) for i, w in enumerate(clause.words) if w not in STOPWORDS and not w[0].isdigit()]
    pos = {}
    for i, w in theirs:
        pos.setdefault(clause_key(w), []).append(i)
    for n, (i, v) in enumerate(content[1:-1], 1):
        if v in _SYMMETRIC or len(pos.get(clause_key(v), ())) != 1 \
                or sum(clause_key(w) == clause_key(v) for _, w in content) != 1:
            continue
        (a_i, a), (b_i, b) = content[n - 1], content[n + 1]
        if not (is_name(cw[a_i][0]) or is_name(cw[b_i][0])) or len(pos.get(clause_key(a), ())) != 1 \
                or len(pos.get(clause_key(b), ())) != 1:
            continue
        j, ja, jb = pos[clause_key(v)][0], pos[clause_key(a)][0], pos[clause_key(b)][0]
        passive_claim = "by" in low[i + 1:b_i]
        passive_clause = "by" in clause.words[j + 1:ja]
        if jb < j < ja and passive_claim == passive_clause and not ({"and", "with"} & set(low[a_i:b_i])):
            edit = Edit("roles", cw[a_i][1], cw[b_i][2], claim[cw[a_i][1]:cw[b_i][2]], clause.text, clause.sentence)
            return TypedEdit(edit, "contradicted", f"the claim has {cw[a_i][0]!r} and {cw[b_i][0]!r} the other way "
                             f"round around {cw[i][0]!r}: the context says {clause.text.strip()!r}")
    return None


def entity_edit(claim, cw, low, keys, clause: Clause, index: ClauseIndex) -> Optional[TypedEdit]:
    for i, (w, _, _) in enumerate(cw):
        if i == 0 or not is_name(w) or clause_key(w) in clause.keys:
            continue  # a claim's first word may be capitalised for that alone ("Adjust the heat ...")
        j = i + 1
        while j < len(cw) and is_name(cw[j][0]) and clause_key(cw[j][0]) not in clause.keys:
            j += 1
        run = {clause_key(x) for x in low[i:j]}

        if not covered(keys - run, clause) or len(keys - run) < 2:
            continue
        before, after = (low[i - 1] if i else None), (low[j] if j < len(low) else None)
        cwords = [x for x, _, _ in words_with_spans(clause.text)]
        for a in range(len(cwords)):
            if not is_name(cwords[a]) or cwords[a].lower() in low:
                continue
            b = a + 1
            while b < len(cwords) and is_name(cwords[b]) and cwords[b].lower() not in low:
                b += 1
            cb = cwords[a - 1].lower() if a else None
            ca = cwords[b].lower() if b < len(cwords) else None
            if (before is not None and cb == before) or (after is not None and ca == after and i > 0) or \
                    (i == 0 and a == 0 and after is not None and ca == after):
                theirs = " ".join(cwords[a:b])
                elsewhere = all(x in index.vocabulary for x in low[i:j])
                label = "contradicted" if elsewhere else "baseless"
                mine = claim[cw[i][1]:cw[j - 1][2]]
                how = "another name of the context" if elsewhere else "a name the context does not have"
                return TypedEdit(make_edit("entity", claim, cw, i, j, theirs, clause.sentence), label,
                                 f"the claim has {mine!r} where the context has {theirs!r} ({how})")
    return None
