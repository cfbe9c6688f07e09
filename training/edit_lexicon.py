"""Rebuild the typed-edit lexicon (``src/rt4chart/evidence/data/lexicon.txt``) from WordNet 3.0::

    apt-get install -y wordnet-base                       # Debian: WordNet 3.0 in /usr/share/wordnet
    python3 -m training.edit_lexicon [--wordnet /usr/share/wordnet] [--out PATH]

The lexicon is a list of classes of words that exclude each other in one place, one class a line, its groups of
words that say the same separated by ``|`` (the format of ``rt4chart.evidence.edit_words._CONTRASTS``):

- **antonyms**: WordNet's direct antonym pointers (``!``) between one-word lemmas of adjectives, verbs and adverbs
  (nouns are left out: "man"/"woman" and the like are already closed classes, and most noun antonyms are rare
  words), each lemma with its synonyms in the antonym's synset left out, and each verb with its inflected forms
  (WordNet's ``verb.exc`` and the regular endings: "rose" and "fell" for "rise" and "fall");
- **incompatible siblings**: the one-word hyponyms of a few WordNet synsets whose members exclude each other
  (``SIBLINGS``: colours and months), each hyponym synset one group, abbreviations left out;
- **domain words** WordNet lacks or files under another sense (``DOMAIN``).

Pairs whose words share a stem after a negating prefix are kept ("legal"/"illegal"); words that are stop words, of
two letters or fewer, or that also stand for another part of speech with no antonym are not filtered: the rules that
read the lexicon only fire when the two words stand in the same slot of an aligned claim and clause.
"""

from __future__ import annotations

import argparse
import re
from collections import defaultdict
from pathlib import Path

import rt4chart.evidence

#: the shipped lexicon, in the installed package (the repository's src/ with an editable install)
OUT = Path(rt4chart.evidence.__file__).resolve().parent / "data" / "lexicon.txt"
#: WordNet noun synsets whose direct (or second-level) one-word hyponyms exclude each other
SIBLINGS = ("chromatic_color", "achromatic_color", "gregorian_calendar_month")
#: hyponyms of those that do not exclude the others ("a pastel blue"), and words a sibling group must not hold:
#: abbreviations are filtered apart (a word that begins another word of its group: "jan", "sept"), and "may" is a verb
SIBLING_EXCLUDE = frozenset("pastel complementary may".split())
#: classes WordNet lacks, or files under senses the rules would not find
DOMAIN = (
    "open opened opens|closed close closes shut",
    "approved approve approves|rejected reject rejects denied refused",
    "accepted accept accepts|rejected reject rejects declined",
    "allowed permitted allow permit allows permits|prohibited banned forbidden prohibit ban forbid",
    "passed pass passes|failed fail fails",
    "won win wins|lost lose loses",
    "rose rise rises risen rising|fell fall falls fallen falling",
    "increased increase increases increasing|decreased decrease decreases decreasing declined",
    "gained gain gains|lost lose loses",
    "profit profits|loss losses",
    "cheaper|dearer",
    "cheapest|dearest",
    "winner winners|loser losers",
    "victory|defeat",
    "included includes include|excluded excludes exclude",
    "inside|outside",
    "indoor indoors|outdoor outdoors",
    "online|offline",
    "free|paid",
    "weekday weekdays|weekend weekends",
    "morning mornings|evening evenings|afternoon afternoons",
    "always|never|sometimes",
    "yes|no",
    "black|white|red|blue|green|yellow|orange|purple|pink|brown|grey gray",
    "monday mondays|tuesday tuesdays|wednesday wednesdays|thursday thursdays|friday fridays|saturday saturdays|"
    "sunday sundays",
)
_WORD = re.compile(r"^[a-z]+$")


def _read_data(path: Path) -> dict[str, tuple[list[str], list[tuple[str, str, str, str]]]]:
    """offset -> (lemmas, pointers as (symbol, offset, pos, source/target))."""
    out = {}
    for line in path.read_text(encoding="latin-1").splitlines():
        if line.startswith(" "):
            continue
        head = line.split(" | ")[0].split()
        offset, n = head[0], int(head[3], 16)
        lemmas = [re.sub(r"\(.*\)$", "", head[4 + 2 * k]).lower() for k in range(n)]
        at = 4 + 2 * n
        p_cnt = int(head[at])
        ptrs = [tuple(head[at + 1 + 4 * k:at + 5 + 4 * k]) for k in range(p_cnt)]
        out[offset] = (lemmas, ptrs)
    return out


def _verb_forms(wordnet: Path) -> dict[str, set[str]]:
    """base verb -> its inflected forms (``verb.exc``, and the regular endings)."""
    irregular: dict[str, set[str]] = defaultdict(set)
    for line in (wordnet / "verb.exc").read_text(encoding="latin-1").splitlines():
        parts = line.split()
        if len(parts) >= 2 and _WORD.match(parts[0]):
            for base in parts[1:]:
                irregular[base].add(parts[0])
    return irregular


def _regular(base: str) -> set[str]:
    if base.endswith("e"):
        return {base + "s", base + "d", base[:-1] + "ing"}
    if base.endswith("y") and base[-2:-1] not in "aeiou":
        return {base[:-1] + "ies", base[:-1] + "ied", base + "ing"}
    if base.endswith(("s", "sh", "ch", "x", "z")):
        return {base + "es", base + "ed", base + "ing"}
    return {base + "s", base + "ed", base + "ing"}


def antonyms(wordnet: Path) -> list[str]:
    irregular = _verb_forms(wordnet)
    classes = set()
    for pos, name in (("a", "adj"), ("v", "verb"), ("r", "adv")):
        data = _read_data(wordnet / f"data.{name}")
        for lemmas, ptrs in data.values():
            for symbol, offset, ppos, st in ptrs:
                if symbol != "!" or st == "0000":
                    continue
                src, dst = int(st[:2], 16) - 1, int(st[2:], 16) - 1
                target = data.get(offset) if ppos in (pos, "s") else None
                if target is None or src >= len(lemmas) or dst >= len(target[0]):
                    continue
                a, b = lemmas[src], target[0][dst]
                if not (_WORD.match(a) and _WORD.match(b)) or a == b or len(a) < 3 or len(b) < 3:
                    continue
                if pos == "v":
                    ga = {a} | (irregular.get(a) or _regular(a))
                    gb = {b} | (irregular.get(b) or _regular(b))
                    if irregular.get(a):
                        ga |= {f for f in _regular(a) if f.endswith("s") or f.endswith("ing")}
                    if irregular.get(b):
                        gb |= {f for f in _regular(b) if f.endswith("s") or f.endswith("ing")}
                    if ga & gb:
                        continue
                    groups = (" ".join(sorted(ga)), " ".join(sorted(gb)))
                else:
                    groups = (a, b)
                classes.add("|".join(sorted(groups)))
    return sorted(classes)


def siblings(wordnet: Path) -> list[str]:
    data = _read_data(wordnet / "data.noun")
    index = {}
    for line in (wordnet / "index.noun").read_text(encoding="latin-1").splitlines():
        if not line.startswith(" "):
            parts = line.split()
            index[parts[0]] = parts[-int(parts[2]):]
    out = []
    for root in SIBLINGS:
        offset = index[root][0]

        def hyponyms(off: str) -> list[str]:
            return [o for s, o, p, _ in data[off][1] if s == "~" and p == "n"]

        groups = []
        for h in hyponyms(offset):
            words = {w for w in data[h][0] if _WORD.match(w) and len(w) >= 3 and w not in SIBLING_EXCLUDE
                     and not w.endswith("ness")}
            words = sorted(w for w in words if not any(x != w and x.startswith(w) for x in words))
            if words:
                groups.append(" ".join(words))
        if len(groups) >= 2:
            out.append("|".join(groups))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--wordnet", default="/usr/share/wordnet", help="WordNet 3.0's dict folder [/usr/share/wordnet]")
    ap.add_argument("--out", default=str(OUT), help=f"the lexicon file [{OUT}]")
    args = ap.parse_args()
    wn = Path(args.wordnet)
    lines = ["# Typed-edit lexicon: classes of words that exclude each other in one place; groups of one class",
             "# separated by '|', words of one group (saying the same) by spaces. Rebuilt by",
             "# python3 -m training.edit_lexicon from WordNet 3.0 (see WORDNET_LICENSE beside this file:",
             "# WordNet 3.0 Copyright 2006 by Princeton University. All rights reserved.) and a few domain words.",
             "# antonyms (WordNet)"]
    lines += antonyms(wn)
    lines += ["# incompatible siblings (WordNet hyponyms of " + ", ".join(SIBLINGS) + ")"] + siblings(wn)
    lines += ["# domain words"] + list(DOMAIN)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{args.out}: {sum(not x.startswith('#') for x in lines)} classes")


if __name__ == "__main__":
    main()
