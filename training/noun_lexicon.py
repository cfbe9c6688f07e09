"""Rebuild the concrete-noun list (``src/rt4chart/evidence/data/concrete.txt``) from WordNet 3.0::

    apt-get install -y wordnet-base                       # Debian: WordNet 3.0 in /usr/share/wordnet
    python3 -m training.noun_lexicon [--wordnet /usr/share/wordnet] [--out PATH]

One word a line: the one-word noun lemmas whose most frequent sense (the first in ``index.noun``) names a thing one
can point at (``CONCRETE``: an artifact, animal, plant, food, substance, body part or natural object).
``evidence.typed.subject`` reads it: a claim about a museum, a gym or a ferry that the context never mentions is
baseless, while abstract subjects ("the situation", "the event", "the aim") are often the answer's own paraphrase of
the context, and persons, groups and places often stand for a name the context has.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import rt4chart.evidence

OUT = Path(rt4chart.evidence.__file__).resolve().parent / "data" / "concrete.txt"
#: WordNet's noun lexicographer files (``lexnames``) whose nouns are concrete things
CONCRETE = {5: "noun.animal", 6: "noun.artifact", 8: "noun.body", 13: "noun.food", 17: "noun.object",
            20: "noun.plant", 27: "noun.substance"}
#: the fewest sense-tagged occurrences a noun needs (0: every noun WordNet has)
MIN_TAGGED = 0


def lexfile_of(data_noun: Path) -> dict[str, int]:
    """Synset offset -> its lexicographer file number, from ``data.noun``."""
    out = {}
    for line in data_noun.read_text(encoding="latin-1").splitlines():
        if line.startswith(" "):
            continue
        offset, lex, *_ = line.split(" ", 2)
        out[offset] = int(lex)
    return out


def concrete_nouns(wordnet: Path) -> list[str]:
    lexfile = lexfile_of(wordnet / "data.noun")
    words = []
    for line in (wordnet / "index.noun").read_text(encoding="latin-1").splitlines():
        if line.startswith(" "):
            continue
        parts = line.split()
        lemma, synset_cnt, p_cnt = parts[0], int(parts[2]), int(parts[3])
        tagged = int(parts[5 + p_cnt])
        offsets = parts[6 + p_cnt:6 + p_cnt + synset_cnt]
        if "_" in lemma or "-" in lemma or not lemma.isalpha() or len(lemma) < 3 or tagged < MIN_TAGGED:
            continue
        if lexfile[offsets[0]] in CONCRETE:
            words.append(lemma)
    return sorted(words)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--wordnet", default="/usr/share/wordnet", help="the WordNet 3.0 dict folder")
    ap.add_argument("--out", default=str(OUT), help="where to write the list")
    args = ap.parse_args()
    words = concrete_nouns(Path(args.wordnet))
    Path(args.out).write_text("# concrete nouns from WordNet 3.0 (see WORDNET_LICENSE): python3 -m training."
                              "noun_lexicon\n" + "\n".join(words) + "\n")
    print(f"wrote {len(words)} nouns to {args.out}")


if __name__ == "__main__":
    main()
