"""Training pairs for the claim verifier that imitate a RAG answer's errors, written to a JSONL file that
``training.train_nli_verifier --pairs FILE`` reads beside the NLI sets::

    python3 -m training.verifier_pairs [--out runs/verifier-pairs.jsonl] [--per-kind 4000] [--seed 0]

Each line: ``{"premise", "hypothesis", "label", "source"}`` with a three-way label (``entailment`` / ``neutral`` /
``contradiction``), or ``entailment`` / ``not_entailment`` for binary sources. Sources, all allowed for a shipped
model (the data READMEs):

- ``factcg``: the FactCG grounding pairs (MIT), binary, their document cut to the sentences around the claim's words;
- ``ragtruth``: RAGTruth train answer sentences (the validation slice of ``training.splits`` held out) against the
  context sentence that covers them best, with the one before it; labelled by the gold spans they overlap (a conflict
  -> contradiction, baseless info -> neutral, none -> entailment), and against a sentence of the same context that
  shares few of their words (neutral);
- ``contrast``: real sentences of RAGTruth train contexts changed by program, each edit once so that the meaning is
  kept and once so that it changes, so that no word alone decides: an amount in another form (entailment) vs another
  amount (contradiction); "not" added to the sentence (contradiction) vs to both the premise and the claim
  (entailment); an antonym (contradiction) vs the antonym with "not" (entailment, for the lexicon's two-way pairs);
  the sentence's subject for a pronoun in the premise (entailment) vs the claim negated (contradiction); a plain verb
  under "does not" / "never" / "no longer" (contradiction) and those forms against each other (entailment); an
  adjective under "not" against its antonym (entailment) and against itself (contradiction); a per cent, a dollar
  amount or thousands in words (entailment) vs another value (contradiction); a comparison in other words
  (entailment) vs flipped (contradiction); "may" as "might" (entailment) vs as "will" (neutral).

These generators are data, not rules: the judges never import them. At least half of the rows ``train_nli_verifier``
reads are real text (the NLI sets, FactCG and RAGTruth rows).
"""

from __future__ import annotations

import argparse
import json
import random
import re
from pathlib import Path
from typing import Iterator, Optional

from rt4chart.eval.datasets import load_ragtruth
from rt4chart.eval.datasets._files import iter_jsonl, resolve_dir
from rt4chart.evidence import EvidenceIndex, assess
from rt4chart.evidence import lexicon_classes, quantities
from rt4chart.text.segment import split_sentences

from .splits import validation_groups

_AUX_NOT = re.compile(r"\b(is|are|was|were|can|will|has|have|had|does|do|did|must|should|could|would)\b(?! not)")
_UNITS = {"day": ("week", 7), "hour": ("minute", 1 / 60), "minute": ("second", 1 / 60)}
_NUMBER_WORDS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
                 "sixteen seventeen eighteen nineteen twenty").split()
_TENS = {30: "thirty", 40: "forty", 50: "fifty", 60: "sixty", 70: "seventy", 80: "eighty", 90: "ninety"}


def words_of(n: int) -> Optional[str]:
    """A whole number under 100 in words ("twenty-five"), None otherwise."""
    if 0 <= n < 21:
        return _NUMBER_WORDS[n]
    if n < 100:
        tens, ones = n - n % 10, n % 10
        return (_TENS.get(tens) or "twenty") + (f"-{_NUMBER_WORDS[ones]}" if ones else "") if tens >= 20 else None
    return None


def _row(premise: str, hypothesis: str, label: str, source: str) -> dict:
    return {"premise": premise, "hypothesis": hypothesis, "label": label, "source": source}


def factcg_rows(limit: int, rng: random.Random) -> list[dict]:
    """FactCG's pairs, each document cut to the three sentences that share most words with the claim."""
    folder = resolve_dir(None, "factcg", lambda p: p.is_dir())
    out = []
    for name in ("cg2c_doc.jsonl.gz", "cg2c_musique_negatives.jsonl.gz"):
        for _, r in iter_jsonl(folder / name):
            sentences = [s.text for s in split_sentences(r["premise"])]
            index = EvidenceIndex(" ".join(sentences))
            a = assess(r["hypothesis"], index)
            keep = sorted(a.order[:3]) if a.order else list(range(min(3, len(sentences))))
            premise = " ".join(index.texts[i] for i in keep)
            label = "entailment" if r["label"] == "entailment" else "not_entailment"
            out.append(_row(premise, r["hypothesis"], label, "factcg"))
    rng.shuffle(out)
    return out[:limit]


def _spans_label(record, start: int, end: int) -> str:
    labels = [s.label.lower() for s in record.spans if s.start < end and start < s.end]
    if any("conflict" in lab or "contradict" in lab for lab in labels):  # RAGTruth's "contradicted"
        return "contradiction"
    return "neutral" if labels else "entailment"


def _content(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z]{4,}", text.lower())}


def near_neutral(texts: list[str], top: int, premise: str) -> Optional[str]:
    """A sentence of the same context, away from the premise, about the same things (two or more of its content words
    in the premise) yet mostly saying something the premise does not (under half of its content words there): the
    claim of a RAG answer that keeps the subject and adds what the passage never says."""
    have = _content(premise)
    for i in sorted(range(len(texts)), key=lambda i: abs(i - top)):
        if abs(i - top) <= 1 or not 6 <= len(texts[i].split()) <= 30:
            continue
        words = _content(texts[i])
        shared = words & have
        if len(shared) >= 2 and len(shared) < 0.5 * len(words):
            return texts[i]
    return None


def ragtruth_rows(limit: int, rng: random.Random) -> list[dict]:
    """RAGTruth train answer sentences against their best-covering context sentence (and the one before it), and
    against a sentence of the same context that shares few of their words."""
    records = [r for r in load_ragtruth(split="train") if r.task != "data2txt"]
    held = validation_groups({r.group for r in records})
    records = [r for r in records if r.group not in held]
    rng.shuffle(records)
    out: list[dict] = []
    for r in records:
        index = EvidenceIndex(r.context)
        if len(index.texts) < 3:
            continue
        for sent in split_sentences(r.answer):
            if len(sent.text.split()) < 5 or len(sent.text) > 300:
                continue
            a = assess(sent.text, index)
            if not a.order:
                continue
            top = a.order[0]
            premise = " ".join(index.texts[max(0, top - 1):top + 1])
            out.append(_row(premise, sent.text, _spans_label(r, sent.start, sent.end), "ragtruth"))
            far = [i for i in range(len(index.texts)) if i not in a.order[:3] and abs(i - top) > 1]
            if far and rng.random() < 0.5:
                out.append(_row(index.texts[rng.choice(far)], sent.text, "neutral", "ragtruth-other"))
            near = near_neutral(index.texts, top, premise)
            if near:
                out.append(_row(premise, near, "neutral", "ragtruth-near"))
        if len(out) >= limit:
            break
    return out[:limit]


def _negated(sentence: str) -> Optional[str]:
    m = _AUX_NOT.search(sentence)
    return sentence[:m.end()] + " not" + sentence[m.end():] if m else None


def _amount_twins(sentence: str, rng: random.Random) -> Optional[tuple[str, str]]:
    """(the sentence with one amount in another form, the sentence with another amount)."""
    for q in quantities(sentence):
        if q.start == 0:  # a list's item number
            continue
        digits = re.fullmatch(r"\d{1,2}", q.text.split()[0]) if q.text else None
        if not digits:
            continue
        n = int(digits.group(0))
        word = words_of(n)
        if word is None or n < 2:
            continue
        other = n + rng.choice((1, 2, 3, 5, 10)) * rng.choice((1, -1))
        if other < 1 or other == n:
            other = n + 1
        head = q.text.split()[0]
        start = q.start
        kept = sentence[:start] + word + sentence[start + len(head):]
        unit = q.text.split()[1] if len(q.text.split()) > 1 else ""
        base = unit.rstrip("s").lower()
        if base == "day" and n % 7 == 0 and rng.random() < 0.5:
            weeks = n // 7
            kept = sentence[:start] + f"{words_of(weeks)} week{'s' if weeks > 1 else ''}" + sentence[q.end:]
        changed_word = words_of(other) if rng.random() < 0.5 and words_of(other) else str(other)
        changed = sentence[:start] + changed_word + sentence[start + len(head):]
        return kept, changed
    return None


def _antonyms() -> list[tuple[str, str]]:
    pairs = []
    for classes in lexicon_classes():
        if len(classes) == 2:
            for a in classes[0]:
                for b in classes[1]:
                    if " " not in a and " " not in b:
                        pairs.append((a, b))
    return pairs


#: common verbs of RAG contexts (base form) beside the lexicon's, for "does not" / "never" / "no longer" twins
_VERBS = ("accept allow apply arrive begin bring charge close contain cost cover deliver depend employ end include "
          "increase involve lead leave live make mean need offer open operate pay produce provide reach receive "
          "reduce remain require run serve show start stay support take use win work").split()


def _verb_forms() -> dict[str, tuple[str, str]]:
    """Present third-person and past forms of verbs -> (base form, tense "s" / "ed")."""
    bases = set(_VERBS)
    for classes in lexicon_classes():
        for forms in classes:
            if len(forms) >= 3:
                bases |= {f for f in forms if not f.endswith(("s", "ed", "ing")) and f + "s" in forms or
                          f + "es" in forms}
    out: dict[str, tuple[str, str]] = {}
    for b in bases:
        third = b + "es" if b.endswith(("s", "sh", "ch", "x", "o")) else \
            b[:-1] + "ies" if b.endswith("y") and b[-2:-1] not in "aeiou" else b + "s"
        past = b + "d" if b.endswith("e") else b[:-1] + "ied" if b.endswith("y") and b[-2:-1] not in "aeiou" \
            else b + "ed"
        out[third], out[past] = (b, "s"), (b, "ed")
    for irregular, base, tense in (("has", "have", "s"), ("had", "have", "ed"), ("took", "take", "ed"),
                                   ("ran", "run", "ed"), ("made", "make", "ed"), ("began", "begin", "ed"),
                                   ("won", "win", "ed"), ("left", "leave", "ed"), ("paid", "pay", "ed")):
        out[irregular] = (base, tense)
    return out


_FORMS = _verb_forms()
_MODAL_KEEP = {"may": "might", "might": "may", "could": "may"}


def _do_negated(sentence: str) -> Optional[tuple[str, str, str]]:
    """(sentence with "does not" / "did not" before its first verb's base form, with "never", with "no longer"), for
    a sentence whose first finite verb is a plain present or past form (no auxiliary before it)."""
    if _AUX_NOT.search(sentence.split(",")[0]):
        return None
    for m in re.finditer(r"\b[a-z]+\b", sentence):
        if m.start() == 0 or m.group(0) not in _FORMS:
            continue
        base, tense = _FORMS[m.group(0)]
        head, tail = sentence[:m.start()], sentence[m.end():]
        do = "does" if tense == "s" else "did"
        return (f"{head}{do} not {base}{tail}", f"{head}never {m.group(0)}{tail}",
                f"{head}no longer {m.group(0)}{tail}" if tense == "s" else f"{head}{do} not {base}{tail}")
    return None


def _percent_twins(sentence: str, rng: random.Random) -> Optional[tuple[str, str]]:
    """A per cent, a dollar amount or thousands in other words (kept) and another value in the same words."""
    m = re.search(r"\b(\d{1,3})(%| per cent| percent)", sentence)
    if m:
        n = int(m.group(1))
        other = n + rng.choice((2, 5, 10, -3)) if n > 12 else n + 3
        kept_form = rng.choice(("%", " per cent", " percent"))
        word = words_of(n) if rng.random() < 0.4 else None
        kept = sentence[:m.start()] + (word or str(n)) + (kept_form if kept_form != m.group(2) or word else
                                                          " per cent") + sentence[m.end():]
        changed = sentence[:m.start()] + f"{other}{kept_form}" + sentence[m.end():]
        return kept, changed
    m = re.search(r"\$(\d{1,3})(,000)?(?![\d.,])", sentence)
    if m:
        n = int(m.group(1))
        unit = " thousand dollars" if m.group(2) else " dollars"
        other = n + rng.choice((1, 2, 5, 10))
        word = words_of(n) if rng.random() < 0.5 else None
        return (sentence[:m.start()] + (word or str(n)) + unit + sentence[m.end():],
                sentence[:m.start()] + f"${other}{m.group(2) or ''}" + sentence[m.end():])
    m = re.search(r"\b(\d{1,3}),000\b(?!,)", sentence)
    if m:
        n = int(m.group(1))
        other = n + rng.choice((1, 5, 10, 50))
        return (sentence[:m.start()] + f"{words_of(n) or n} thousand" + sentence[m.end():],
                sentence[:m.start()] + f"{other},000" + sentence[m.end():])
    return None


_COMPARE = (("more than", "fewer than"), ("more than", "less than"), ("over", "under"), ("before", "after"),
            ("higher", "lower"), ("larger", "smaller"), ("earlier", "later"), ("above", "below"),
            ("at least", "at most"), ("increased", "decreased"), ("rose", "fell"))
#: prepositions read as a comparison only before an amount
_BEFORE_AMOUNT = {"over", "under", "above", "below"}
_COMPARE_KEEP = {"more than": "over", "over": "more than", "fewer than": "under", "less than": "under",
                 "under": "less than", "at least": "no fewer than", "above": "over", "below": "under"}


def _comparison_twins(sentence: str) -> Optional[tuple[Optional[str], str]]:
    """(the comparison in other words, or None; the comparison flipped)."""
    for a, b in _COMPARE:
        for x, y in ((a, b), (b, a)):
            m = re.search(rf"\b{x}\b" + (r"(?= [$\d])" if x in _BEFORE_AMOUNT else ""), sentence)
            if m:
                keep = _COMPARE_KEEP.get(x)
                kept = sentence[:m.start()] + keep + sentence[m.end():] if keep else None
                return kept, sentence[:m.start()] + y + sentence[m.end():]
    return None


_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-z]{2,}(?:\s[A-Z][a-z]{2,})?\b")
_NOT_NAMES = set("January February March April May June July August September October November December Monday "
                 "Tuesday Wednesday Thursday Friday Saturday Sunday The This That These Those He She They It We "
                 "His Her Their Its Our But And".split())
_PLANS = re.compile(r"\b(plans to|will|is expected to|intends to|aims to|hopes to|is set to|is due to|are set to|"
                    r"plan to|are expected to|intend to) ([a-z]+)\b")
_PLANS_KEEP = {"plans to": "intends to", "intends to": "plans to", "will": "is going to", "is set to": "is going to",
               "aims to": "intends to", "hopes to": "wants to", "plan to": "intend to", "intend to": "plan to",
               "are set to": "are going to"}
_PLANS_KEEP.pop("will")
_ONLY = re.compile(r"(?<!not )\bonly (to|for) ([^.;]+?)(?=[.;](?:\s|$)|,\s|$)")
_SUBJECT_LIMIT = re.compile(r"\b([a-z]+s) (under|over|aged|older than|younger than|below|above) ([\w-]+)( years?)?"
                            r"(?= (?:are|can|may|must|pay|get|receive|travel|have|need|enter|go)\b)")


def _past(base: str) -> str:
    irregular = {"have": "had", "take": "took", "run": "ran", "make": "made", "begin": "begun", "win": "won",
                 "leave": "left", "pay": "paid", "build": "built", "open": "opened", "go": "gone", "sell": "sold",
                 "buy": "bought", "hold": "held", "meet": "met", "give": "given", "become": "become"}
    if base in irregular:
        return irregular[base]
    return base + "d" if base.endswith("e") else base[:-1] + "ied" if base.endswith("y") and base[-2:-1] not in \
        "aeiou" else base + "ed"


def meaning_rows(sentence: str, rng: random.Random) -> list[dict]:
    """Contrast pairs of role, plan and scope from one real sentence: two names (or two amounts) swapped
    (contradiction); a plan stated as done (neutral) vs the plan in other words (entailment); "only to X" widened to
    everyone (contradiction) vs "only" dropped (entailment); a limited subject ("children under five") widened
    (neutral)."""
    out: list[dict] = []
    names = [m for m in _NAME.finditer(sentence) if m.group(0).split()[0] not in _NOT_NAMES]
    distinct = list({m.group(0): m for m in names}.values())
    pairs = [(a, b) for i, a in enumerate(distinct) for b in distinct[i + 1:]
             if re.search(r"\b[a-z]{2,}\b", sentence[a.end():b.start()])]  # two names apart, not one name's parts
    if pairs:
        a, b = pairs[0]
        swapped = sentence[:a.start()] + b.group(0) + sentence[a.end():b.start()] + a.group(0) + sentence[b.end():]
        out.append(_row(sentence, swapped, "contradiction", "contrast-role"))
    else:
        nums = list(re.finditer(r"(?<![\d.,:])\d{1,4}(?![\d.,:])", sentence))
        if len(nums) >= 2 and nums[0].group(0) != nums[1].group(0):
            a, b = nums[0], nums[1]
            swapped = sentence[:a.start()] + b.group(0) + sentence[a.end():b.start()] + a.group(0) + \
                sentence[b.end():]
            out.append(_row(sentence, swapped, "contradiction", "contrast-role"))
    m = _PLANS.search(sentence)
    if m and m.group(2) not in ("be", "not", "have", "also", "still", "soon"):
        done = sentence[:m.start()] + ("have " if m.group(1).startswith(("plan ", "intend ", "are")) else "has ") + \
            _past(m.group(2)) + sentence[m.end():]
        out.append(_row(sentence, done, "neutral", "contrast-modality"))
        keep = _PLANS_KEEP.get(m.group(1))
        if keep:
            out.append(_row(sentence, sentence[:m.start(1)] + keep + sentence[m.end(1):], "entailment",
                            "contrast-modality"))
    m = _ONLY.search(sentence)
    if m:
        out += [_row(sentence, sentence[:m.start()] + f"{m.group(1)} everyone" + sentence[m.end():], "contradiction",
                     "contrast-scope"),
                _row(sentence, sentence[:m.start()] + sentence[m.start() + 5:], "entailment", "contrast-scope")]
    m = _SUBJECT_LIMIT.search(sentence)
    if m:
        out.append(_row(sentence, sentence[:m.end(1)] + sentence[m.end():], "neutral", "contrast-scope"))
    return out


_PHRASE = re.compile(r",? (?:with|in|for|from|near|by|during|after|before|which|who|that) [a-z][a-z' -]{6,45}?"
                     r"(?=[,.;]|$)")


def detail_rows(sentence: str, other: str) -> list[dict]:
    """Contrast pairs of an added detail from one real sentence: a phrase of another sentence added to it (neutral:
    its words are nowhere in the premise) vs one of its own phrases dropped (entailment)."""
    out: list[dict] = []
    body = sentence.rstrip()
    end = "." if body.endswith(".") else ""
    body = body[:-1] if end else body
    mine = _content(sentence)
    found = [m.group(0) for m in _PHRASE.finditer(other) if _content(m.group(0)) - mine]
    if found:
        phrase = found[0] if found[0].startswith(",") else " " + found[0].lstrip()
        out.append(_row(sentence, body + phrase + end, "neutral", "contrast-detail"))
    own = [m for m in _PHRASE.finditer(body) if m.start() > len(body) // 3]
    if own:
        m = own[-1]
        out.append(_row(sentence, body[:m.start()] + body[m.end():] + end, "entailment", "contrast-detail"))
    return out


def contrast_rows(limit: int, rng: random.Random) -> list[dict]:
    """Pairs made by program from real RAGTruth train sentences, each edit once keeping and once changing the
    meaning."""
    records = [r for r in load_ragtruth(split="train") if r.task != "data2txt"]
    held = validation_groups({r.group for r in records})
    sentences = [s.text for r in records if r.group not in held for s in split_sentences(r.context)
                 if 6 <= len(s.text.split()) <= 35]
    sentences = sorted(set(sentences))
    rng.shuffle(sentences)
    antonyms = _antonyms()
    by_word: dict[str, list[str]] = {}
    for a, b in antonyms:
        by_word.setdefault(a, []).append(b)
        by_word.setdefault(b, []).append(a)
    out: list[dict] = []
    for k, s in enumerate(sentences):
        if len(out) >= limit:
            break
        kind = k % 12
        if kind >= 10:
            out += detail_rows(s, sentences[(k * 7919 + 13) % len(sentences)])
            continue
        if kind >= 8:
            out += meaning_rows(s, rng)
            continue
        if kind == 4:
            # a plain verb negated with "does not" / "never" / "no longer": each contradicts the sentence, and the
            # negated forms entail each other; the antonym of an adjective under "not" entails the adjective
            forms = _do_negated(s)
            if forms:
                neg, never, no_longer = forms
                out += [_row(s, rng.choice((neg, never, no_longer)), "contradiction", "contrast-negation"),
                        _row(neg, s, "contradiction", "contrast-negation"),
                        _row(neg, never if rng.random() < 0.5 else no_longer, "entailment", "contrast-negation")]
            continue
        if kind == 5:
            # antonym twins both ways: "is not open" entails "is closed" and contradicts "is open"
            found = [(m, by_word[m.group(2)]) for m in re.finditer(r"\b(is|are|was|were|remains|remain) ([a-z]+)\b", s)
                     if m.group(2) in by_word and len(m.group(2)) > 3]
            if found:
                m, options = found[0]
                anto = rng.choice(options)
                cop = m.group(1)
                negated = s[:m.start()] + f"{cop} not {m.group(2)}" + s[m.end():]
                swapped = s[:m.start()] + f"{cop} {anto}" + s[m.end():]
                out += [_row(negated, swapped, "entailment", "contrast-antonym"),
                        _row(negated, s, "contradiction", "contrast-antonym"),
                        _row(swapped, s, "contradiction", "contrast-antonym"),
                        _row(swapped, negated, "entailment", "contrast-antonym")]
            continue
        if kind == 6:
            twins = _percent_twins(s, rng) or _amount_twins(s, rng)
            if twins:
                out += [_row(s, twins[0], "entailment", "contrast-amount"),
                        _row(s, twins[1], "contradiction", "contrast-amount")]
            continue
        if kind == 7:
            cmp = _comparison_twins(s)
            if cmp:
                if cmp[0]:
                    out.append(_row(s, cmp[0], "entailment", "contrast-comparison"))
                out.append(_row(s, cmp[1], "contradiction", "contrast-comparison"))
            modal = re.search(r"\b(may|might|could)\b", s)
            if modal:
                keep = _MODAL_KEEP[modal.group(1)]
                out += [_row(s, s[:modal.start()] + keep + s[modal.end():], "entailment", "contrast-modality"),
                        _row(s, s[:modal.start()] + "will" + s[modal.end():], "neutral", "contrast-modality")]
            continue
        if kind == 0:
            twins = _amount_twins(s, rng)
            if twins:
                out += [_row(s, twins[0], "entailment", "contrast-amount"),
                        _row(s, twins[1], "contradiction", "contrast-amount")]
        elif kind == 1:
            neg = _negated(s)
            if neg:
                # the negated sentence entails its own first clause, and contradicts the sentence as it was
                part = neg.split(",")[0] if "," in neg[neg.index(" not") + 4:] and " not" in neg.split(",")[0] else neg
                out += [_row(s, neg, "contradiction", "contrast-negation"),
                        _row(neg, part, "entailment", "contrast-negation"),
                        _row(neg, s, "contradiction", "contrast-negation")]
        elif kind == 2:
            words = re.findall(r"[a-z]+", s)
            found = [(w, by_word[w]) for w in words if w in by_word and len(w) > 3]
            if found:
                w, options = found[0]
                anto = rng.choice(options)
                swapped = re.sub(rf"\b{w}\b", anto, s, count=1)
                out.append(_row(s, swapped, "contradiction", "contrast-antonym"))
                # "is closed" for "is open" is contradicted; "is not closed" is not, where "not" scopes over it
                scoped = re.sub(rf"\b(is|are|was|were|be|been)\s+{anto}\b", rf"\1 not {anto}", swapped, count=1)
                if scoped != swapped:
                    out.append(_row(s, scoped, "entailment", "contrast-antonym"))
        else:
            follow = [t for t in sentences[k + 1:k + 40] if re.match(r"^(It|They)\s+(is|are|was|were|has|have)\b", t)]
            if follow:
                t = follow[0]
                neg = _negated(t)
                out.append(_row(s, t, "neutral", "contrast-other"))
                if neg:
                    out.append(_row(t, neg, "contradiction", "contrast-negation"))
    return out[:limit]


def build(per_kind: int, seed: int, contrast: int = 0) -> Iterator[dict]:
    rng = random.Random(seed)
    yield from factcg_rows(per_kind, rng)
    yield from ragtruth_rows(per_kind, rng)
    yield from contrast_rows(contrast or per_kind, rng)


def main(argv: Optional[list[str]] = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="runs/verifier-pairs.jsonl")
    ap.add_argument("--per-kind", type=int, default=4000, help="rows of each source (factcg, ragtruth, contrast)")
    ap.add_argument("--contrast", type=int, default=0, help="contrast rows (default: --per-kind)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    rows = list(build(args.per_kind, args.seed, args.contrast))
    out.write_text("".join(json.dumps(r) + "\n" for r in rows))
    counts: dict[str, int] = {}
    for r in rows:
        counts[f"{r['source']}:{r['label']}"] = counts.get(f"{r['source']}:{r['label']}", 0) + 1
    print(f"wrote {len(rows)} pairs to {out}: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))


if __name__ == "__main__":
    main()
