"""rt4chart_training.verifier: the verifier's training pairs (NLI loader, RAGTruth gold-span labels, synthetic
generators, the build end to end). No torch needed."""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path

import pytest


from rt4chart.errors import ConfigError, InputError
from rt4chart.eval.datasets import EvalRecord, GoldSpan, group_key
from rt4chart_training.verifier import build, nli, synthetic
from rt4chart_training.verifier.pairs import LABELS, Pair, read_pairs, summary, write_pairs
from rt4chart_training.verifier.ragtruth_pairs import checkable, claim_label, ragtruth_pairs
from rt4chart_training.verifier.synthetic import GENERATORS
from rt4chart_training.verifier.synthetic_source import Source

#: the WordNet lexicon of issue 41 gives the unshipped verifier's antonym generator other rivals ("rose" -> "set");
#: the verifier is to be retired (issue 43)
LEXICON = pytest.mark.xfail(strict=True, reason="issue 41's lexicon changed the antonym generator's rivals")


def _gen(name: str, sentence: str, premise: str | None = None, other: tuple[str, ...] = (), seed: int = 0):
    label, generate = GENERATORS[name]
    return label, generate(Source(sentence, premise or sentence, other), random.Random(seed))


# ---- synthetic generators --------------------------------------------------------------------------------------

@pytest.mark.parametrize("name, sentence, expected", [
    ("quantifier", "All users must register before logging in.", "No users must register before logging in."),
    ("quantifier", "Some users complained about the noise.", "No users complained about the noise."),
    ("quantifier", "The staff always greets guests at the door.", "The staff never greets guests at the door."),
    ("quantifier", "None of the rooms have a balcony here.", "All of the rooms have a balcony here."),
    ("negation", "The museum is open to the public on Sundays.", "The museum is not open to the public on Sundays."),
    ("negation", "Visitors can bring their own food inside.", "Visitors cannot bring their own food inside."),
    ("negation", "The museum is not open on Mondays at all.", "The museum is open on Mondays at all."),
    ("negation", "She never won the national title in tennis.", "She won the national title in tennis."),
    ("negation", "The shop won't accept returns after a month.", "The shop will accept returns after a month."),
    pytest.param("antonym", "Sales rose sharply during the final quarter.",
                 "Sales fell sharply during the final quarter.", marks=LEXICON),
    ("antonym", "The plant opened a private garden last year.", "The plant opened a public garden last year."),
    ("role_swap", "Yesterday Smith defeated Jones in the final round.",
     "Yesterday Jones defeated Smith in the final round."),
    ("temporal", "The guests arrived before the speech began.", "The guests arrived after the speech began."),
    ("copy", "The guests arrived before the speech began.", "The guests arrived before the speech began."),
    ("clause", "The hotel was renovated in 2010, and the pool is heated all year.", None),
    ("clause", "The committee approved the plan, citing its low cost.", "The committee approved the plan."),
    ("parenthetical", "The tower (built in 1889) is made of iron.", "The tower is made of iron."),
    ("binary_antonym", "The border crossing was closed for a week.", "The border crossing was open for a week."),
    ("negated_antonym", "The border crossing was closed for a week.", "The border crossing was not open for a week."),
    ("passive", "Barcelona defeated Real Madrid in the final on Sunday.",
     "Real Madrid was defeated by Barcelona in the final on Sunday."),
    ("passive_swap", "Barcelona defeated Real Madrid in the final on Sunday.",
     "Barcelona was defeated by Real Madrid in the final on Sunday."),
    ("adverb_drop", "Sales rose sharply during the final quarter.", "Sales rose during the final quarter."),
    ("number_words", "The team won 9 of its last games.", "The team won nine of its last games."),
])
def test_each_generator_edits_as_it_says(name, sentence, expected):
    label, hypothesis = _gen(name, sentence)
    assert label == GENERATORS[name][0]
    if expected is None:  # several clauses: one of the auditor's claims, as a sentence
        assert hypothesis in ("The hotel was renovated in 2010.", "The pool is heated all year.")
    else:
        assert hypothesis == expected


def test_the_labels_of_the_generators():
    assert {n for n, (lab, _) in GENERATORS.items() if lab == "contradiction"} == {
        "quantifier", "negation", "antonym", "role_swap", "wrong_entity", "number", "temporal", "lexical_negation",
        "binary_antonym", "passive_swap"}
    assert {n for n, (lab, _) in GENERATORS.items() if lab == "entailment"} == {
        "copy", "clause", "parenthetical", "negated_antonym", "managed", "passive", "adverb_drop", "number_words"}
    assert {n for n, (lab, _) in GENERATORS.items() if lab == "neutral"} == {"other_sentence", "added_clause"}


def test_only_x_becomes_all_or_not_only():
    seen = {_gen("quantifier", "The offer is available to only new users of the app.", seed=s)[1] for s in range(20)}
    assert seen == {"The offer is available to all users of the app.",
                    "The offer is available to not only new users of the app."}


def test_lexical_negation_negates_a_simple_past_without_not_either_way():
    sentence = "The spokesman commented on the report yesterday."
    made = {str(_gen("lexical_negation", sentence, seed=seed)[1]) for seed in range(12)}
    forward = {m for m in made if not m.startswith("(")}
    assert forward and forward <= {"The spokesman failed to comment on the report yesterday.",
                                   "The spokesman refused to comment on the report yesterday.",
                                   "The spokesman declined to comment on the report yesterday."}
    backward = [_gen("lexical_negation", sentence, seed=seed)[1] for seed in range(12)]
    backward = [b for b in backward if isinstance(b, tuple)]
    assert backward and all(h == sentence and p.endswith("to comment on the report yesterday.") for p, h in backward)
    assert _gen("managed", sentence)[1] in ("The spokesman managed to comment on the report yesterday.",
                                            "The spokesman went on to comment on the report yesterday.")


def test_number_change_gives_a_number_the_premise_lacks():
    label, h = _gen("number", "The bridge is 330 metres long and opened in 1932.")
    assert label == "contradiction"
    assert h != "The bridge is 330 metres long and opened in 1932."
    assert ("330" in h) != ("1932" in h)  # exactly one number changed
    assert _gen("number", "It opens at 10:30 on the 21st of May.")[1] is None  # a time and an ordinal


def test_wrong_entity_takes_a_name_of_another_document_of_as_many_words():
    other = ("The festival was held in Marseille in June.", "Critics praised Jean Dupont for the design.")
    label, h = _gen("wrong_entity", "The station was designed by Alice Warren in the west.", other=other)
    assert (label, h) == ("contradiction", "The station was designed by Jean Dupont in the west.")
    label, h = _gen("wrong_entity", "The match was played in Lisbon last week.", other=other)
    assert h == "The match was played in Marseille last week."


def test_neutral_generators_bring_content_from_another_document():
    premise = "The museum opened in 1921. It is open from 10:00 to 18:00."
    other = ("Critics praised the chef for her inventive seafood dishes.",)
    assert _gen("other_sentence", "The museum opened in 1921.", premise, other) == ("neutral", other[0])
    label, h = _gen("added_clause", "The museum opened in 1921.", premise, other)
    assert (label, h) == ("neutral",
                          "The museum opened in 1921, and critics praised the chef for her inventive seafood dishes.")


@pytest.mark.parametrize("name, sentence", [
    ("quantifier", "The museum opened in 1921 near the river."),
    ("quantifier", "She published a tell-all memoir last month."),
    ("quantifier", "She was only 18 months old at the time."),  # "only" before a number is no scope
    ("quantifier", "The only problem was the noise at night."),
    ("negation", "If the museum is open, we will visit it."),  # a condition states nothing
    ("negation", "The museum is not open and it cannot be visited."),  # two negations
    pytest.param("antonym", "The museum was built in 1921 near the river.", marks=LEXICON),
    ("role_swap", "Smith and Jones opened the museum together."),  # a list reads the same in any order
    ("role_swap", "The museum opened in 1921 near the river."),
    ("role_swap", "The museum of Boston opened in March."),  # a month is no name
    ("wrong_entity", "the museum opened in 1921 near the river."),
    ("number", "The museum opened long ago near the river."),
    ("temporal", "The museum was named after its founder."),
    ("clause", "The museum opened in 1921 near the river."),
    ("clause", "In 1921, the museum opened near the river."),  # no verb before the comma
    ("parenthetical", "The museum opened in 1921 near the river."),
    ("other_sentence", "The museum opened in 1921 near the river."),  # no other document
    ("added_clause", "The museum opened in 1921 near the river."),
    ("lexical_negation", "The museum did not open in 1921 near the river."),  # negated already
    ("lexical_negation", "They were glad to see the video released at last."),  # no simple past after a subject
    ("managed", "The museum was opened in 1921 near the river."),  # a passive
    ("binary_antonym", "The museum was built in 1921 near the river."),
    ("negated_antonym", "The museum was not open in 1921 near the river."),
    ("passive", "Cruz argued Thursday that the party must change."),  # a day is no name
    ("passive_swap", "The museum opened in 1921 near the river."),
    ("adverb_drop", "The museum only opened in 1921 near the river."),  # "only" carries what it says
    ("number_words", "The museum opens at 9 a.m. near the river."),  # a time
    ("number_words", "The museum opened in 1921 near the river."),
])
def test_a_generator_that_cannot_apply_returns_nothing(name, sentence):
    assert _gen(name, sentence)[1] is None


def test_prose_sentences_only():
    assert synthetic.prose("The museum opened in 1921 near the river.")
    assert not synthetic.prose("Short one.")
    assert not synthetic.prose('"name": "Apna Indian Kitchen", "city": "Santa Barbara".')
    assert not synthetic.prose("I loved it.\\n\\nThe staff were kind and quick.")  # a line break written out
    assert not synthetic.prose("is the museum open in the morning or not?")


def test_synthetic_pairs_are_seeded_capped_and_grouped_by_context():
    contexts = [
        "The museum opened in 1921 near the river. All visitors must buy a ticket before entering the hall. "
        "Smith founded the museum with help from Jones in the old town.",
        "The festival is held in Marseille every June for three days. Some artists perform in the main square. "
        "The mayor opened the event after a short speech by Dupont.",
    ]
    records = [EvalRecord(id=str(i), context=c, question=None, answer="x", task="summary",
                          group=group_key("summary", c), hallucinated=False) for i, c in enumerate(contexts)]
    caps = {name: 2 for name in GENERATORS}
    pairs = synthetic.synthetic_pairs(records, seed=3, caps=caps)
    assert pairs == synthetic.synthetic_pairs(records, seed=3, caps=caps)
    assert pairs != synthetic.synthetic_pairs(records, seed=4, caps=caps)
    counts: dict[str, int] = {}
    for p in pairs:
        counts[p.source] = counts.get(p.source, 0) + 1
        name = p.source.split("/", 1)[1]
        assert p.source.startswith("synthetic/") and p.label == GENERATORS[name][0]
        assert p.group in {r.group for r in records}
        sentences = contexts[[r.group for r in records].index(p.group)].split(". ")[:3]
        assert any(s in p.premise or s in p.hypothesis for s in sentences)
    assert counts and max(counts.values()) <= 2
    assert not synthetic.synthetic_pairs(records, seed=3, caps={})
    assert synthetic.default_caps(900)["negation"] == 900 // 10 and synthetic.default_caps(900)["copy"] == 900 // 8


# ---- RAGTruth gold-span labels ---------------------------------------------------------------------------------

def test_claim_label_from_gold_spans():
    conflict, baseless = GoldSpan(0, 20, "contradicted"), GoldSpan(20, 40, "baseless")
    assert claim_label(0, 40, [conflict]) == "contradiction"
    assert claim_label(0, 40, [baseless]) == "neutral"
    assert claim_label(0, 40, [conflict, baseless]) == "contradiction"
    assert claim_label(50, 90, [conflict, baseless]) == "entailment"
    assert claim_label(0, 100, [GoldSpan(95, 100, "baseless")]) is None  # touched, too little to count


def test_ragtruth_pairs_of_a_hand_made_record():
    context = ("The policy is available to new users. Only new users who have completed identity verification "
               "are eligible. The office in Boston opens at 9 AM.")
    answer = ("The policy applies to all users. The office is in Boston. It was founded by Alice Warren in 1990. "
              "Here is a summary of the passage:")
    spans = (GoldSpan(0, 32, "contradicted"), GoldSpan(answer.index("It was"), answer.index(" Here"), "baseless"))
    record = EvalRecord(id="r1", context=context, question=None, answer=answer, task="summary",
                        group=group_key("summary", context), hallucinated=True, spans=spans)
    out = ragtruth_pairs([record], other_share=0.0)
    assert [(p.hypothesis, p.label) for p in out.pairs] == [
        ("The policy applies to all users.", "contradiction"),
        ("The office is in Boston.", "entailment"),
        ("It was founded by Alice Warren in 1990.", "neutral"),
    ]
    assert out.skipped["nothing_to_check"] == 0  # the preamble is no claim at all (the decomposer drops it)
    assert all(p.source == "ragtruth/summary" and p.group == record.group for p in out.pairs)
    assert out.pairs[1].premise == "The office in Boston opens at 9 AM."
    assert out.pairs[0].premise.startswith("The policy is available to new users.")
    assert not checkable("Based on the given passages, here is the answer:") and checkable("Boston is big.")


def test_other_evidence_pairs_are_neutral_with_another_context():
    a = "Alice Warren founded the Hollis Museum in 1921. The museum is in Boston."
    b = "The Grand Hotel opened in Paris in 1890. It has 120 rooms."
    records = [EvalRecord(id=str(i), context=c, question=None, answer=ans, task="qa", group=group_key("qa", c),
                          hallucinated=False)
               for i, (c, ans) in enumerate([(a, "The Hollis Museum was founded in 1921."),
                                             (b, "The Grand Hotel has 120 rooms.")])]
    out = ragtruth_pairs(records, other_share=1.0)
    others = [p for p in out.pairs if p.source == "ragtruth/qa/other-evidence"]
    assert [(p.hypothesis, p.label) for p in others] == [("The Hollis Museum was founded in 1921.", "neutral"),
                                                         ("The Grand Hotel has 120 rooms.", "neutral")]
    # no word of the claim is in the other context: its first sentences
    assert others[0].premise == b and others[0].group == records[0].group
    assert others[1].premise == a


# ---- NLI loader ------------------------------------------------------------------------------------------------

def _write_set(folder: Path, name: str, split: str, rows: list[tuple[str, str, str]]) -> None:
    (folder / name).mkdir(parents=True, exist_ok=True)
    with gzip.open(folder / name / f"{split}.jsonl.gz", "wt", encoding="utf-8") as fh:
        for premise, hypothesis, label in rows:
            fh.write(json.dumps({"premise": premise, "hypothesis": hypothesis, "label": label, "source": name}) + "\n")


@pytest.fixture
def nli_folder(tmp_path) -> Path:
    nli_root = tmp_path / "nli"
    test = [(f"Premise {i}.", f"Hypothesis {i}{j}.", LABELS[j]) for i in range(10) for j in range(3)]
    _write_set(nli_root, "snli", "test", test)
    _write_set(nli_root, "snli", "dev", [("A dog runs.", "An animal runs.", "entailment"),
                                         ("A dog runs.", "An animal runs.", "entailment"),  # a duplicate
                                         ("A cat sits.", "A cat stands.", "contradiction"),
                                         ("A cat sits.", "A cat stands.", "neutral"),  # conflicting labels
                                         ("Premise 3.", "Something new.", "neutral")])
    for split in nli.TRAIN_SETS["cad_snli"][0]:
        _write_set(nli_root, "cad_snli", split, [(f"A new premise {i}.", f"Hypothesis {i}0.", "neutral")
                                                 for i in range(10)] if split == "revised_premise_test" else [])
    for name in ("conjnli", "fever_nli_dev", "breaking_nli"):
        for split in nli.TRAIN_SETS[name][0]:
            _write_set(nli_root, name, split, [(f"{name} {split} premise.", "A hypothesis.", "contradiction")])
    _write_set(nli_root, "sick", "test", [("Eval only.", "Never trained on.", "neutral")])
    return tmp_path


def test_nli_pairs_hold_out_snli_test_and_keep_to_train_licensed_sets(nli_folder):
    heldout = nli.heldout_snli(nli.nli_dir(nli_folder), n=7)
    assert len(heldout) == 7 and len({p.premise for p in heldout}) == 3  # whole premises first, the last in part
    out = nli.nli_pairs(nli_folder, heldout=7)
    assert out.heldout == heldout
    held_premises = {p.premise for p in heldout}
    held_hypotheses = {p.hypothesis for p in heldout}
    train_keys = [(p.premise, p.hypothesis) for p in out.train]
    assert len(train_keys) == len(set(train_keys))  # deduplicated
    assert not {(p.premise, p.hypothesis) for p in heldout} & set(train_keys)
    assert not any(p.premise in held_premises or p.hypothesis in held_hypotheses for p in out.train)
    assert ("A dog runs.", "An animal runs.") in train_keys and ("A cat sits.", "A cat stands.") not in train_keys
    assert out.dropped["duplicate"] == 1 and out.dropped["conflicting_labels"] == 2
    assert out.dropped["heldout_pair"] == 7
    # the rest of the last held-out premise, and SNLI dev's pair of a held-out premise
    rest = sum(p.premise in held_premises for p in nli.read_split(nli.nli_dir(nli_folder), "snli", "test")) - 7
    assert rest > 0 and out.dropped["heldout_premise"] == rest + ("Premise 3." in held_premises)
    # cad_snli's edits of held-out pairs (their hypothesis with a new premise)
    edited = sum(f"Hypothesis {i}0." in held_hypotheses for i in range(10))
    assert edited >= 3 and out.dropped["heldout_hypothesis"] == edited
    assert {p.source.split("/")[0] for p in out.train} <= set(nli.TRAIN_SETS)
    assert not any("sick" in p.source or p.premise == "Eval only." for p in out.train)
    assert {p.weight for p in out.train if p.source.startswith("breaking_nli")} == {nli.TRAIN_SETS["breaking_nli"][1]}
    assert all(p.group == p.premise for p in out.train)
    assert len(out.train) + sum(out.dropped.values()) == 30 + 5 + 10 + 2 + 1 + 1


def test_eval_only_sets_are_refused(nli_folder):
    with pytest.raises(ConfigError, match="not a train-licensed"):
        nli.read_split(nli.nli_dir(nli_folder), "sick", "test")
    with pytest.raises(ConfigError):
        nli.nli_pairs(nli_folder, sets=("snli", "healthver"))


def test_a_bad_nli_row_is_an_input_error(nli_folder):
    _write_set(nli_folder / "nli", "conjnli", "dev", [("P.", "H.", "not_entailment")])
    with pytest.raises(InputError, match="label"):
        nli.read_split(nli.nli_dir(nli_folder), "conjnli", "dev")


# ---- files and the build ---------------------------------------------------------------------------------------

def test_pair_files_round_trip_with_the_same_bytes(tmp_path):
    pairs = [Pair("P é.", "H.", "neutral", "x/y", "g", 0.5), Pair("P2.", "H2.", "entailment", "x/z", "g2")]
    write_pairs(tmp_path / "a.jsonl.gz", pairs)
    write_pairs(tmp_path / "b.jsonl.gz", pairs)
    assert (tmp_path / "a.jsonl.gz").read_bytes() == (tmp_path / "b.jsonl.gz").read_bytes()
    assert list(read_pairs(tmp_path / "a.jsonl.gz")) == pairs
    assert summary(pairs) == {"rows": 2, "labels": {"entailment": 1, "neutral": 1},
                              "sources": {"x/y": {"neutral": 1}, "x/z": {"entailment": 1}}}
    with pytest.raises(ValueError):
        write_pairs(tmp_path / "c.jsonl.gz", [Pair("P.", "H.", "unknown", "x", "g")])


def test_build_limit_50_end_to_end(nli_root, tmp_path):
    out = tmp_path / "verifier"
    assert build.main(["--out", str(out), "--limit", "50", "--data-dir", str(nli_root)]) == 0
    for stem in ("pairs-nli", "heldout-snli", "pairs-ragtruth", "pairs-synthetic"):
        rows = list(read_pairs(out / f"{stem}.jsonl.gz"))
        card = json.loads((out / f"{stem}.json").read_text())
        assert rows and card["rows"] == len(rows) and card["seed"] == 0 and "seconds" in card
        assert card["command"].startswith("python3 -m rt4chart_training.verifier.build")
        assert {p.label for p in rows} <= set(LABELS)
    heldout = list(read_pairs(out / "heldout-snli.jsonl.gz"))
    assert len(heldout) == nli.HELDOUT
    train = {(p.premise, p.hypothesis) for p in read_pairs(out / "pairs-nli.jsonl.gz")}
    assert not train & {(p.premise, p.hypothesis) for p in heldout}
    ragtruth = list(read_pairs(out / "pairs-ragtruth.jsonl.gz"))
    assert {p.source.split("/")[1] for p in ragtruth} == {"qa", "summary", "data2txt"}
    assert {p.group.split(":")[0] for p in ragtruth} == {"qa", "summary", "data2txt"}
    before = (out / "pairs-synthetic.jsonl.gz").read_bytes()
    build.main(["--out", str(out), "--limit", "50", "--data-dir", str(nli_root), "--parts", "synthetic"])
    assert (out / "pairs-synthetic.jsonl.gz").read_bytes() == before


def test_build_answers_help_and_refuses_bad_options(capsys):
    with pytest.raises(SystemExit) as done:
        build.main(["--help"])
    assert done.value.code == 0 and capsys.readouterr().out.startswith("usage:")
    with pytest.raises(SystemExit, match="--parts"):
        build.main(["--parts", "nli,sick"])
    with pytest.raises(SystemExit, match="--cap"):
        build.main(["--parts", "synthetic", "--cap", "nonsense=3"])  # refused before any data is read
