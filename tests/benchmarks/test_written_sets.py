"""The fresh written sets (``benchmarks/data``): whole records, the sizes and shares their issues asked for."""

from __future__ import annotations

from benchmarks import written_sets as S


def _whole(items):
    for it in items:
        pos = 0
        for s in it["sentences"]:
            at = it["answer"].find(s["text"], pos)
            assert at >= 0 and s["label"] in ("entailed", "contradicted", "baseless", "none"), it["id"]
            pos = at + len(s["text"])


def test_fresh72_has_200_records_of_the_asked_shapes():
    items = S.load("fresh72")
    _whole(items)
    assert len(items) >= 199
    faithful = sum(S.answer_label(it) == "entailed" for it in items) / len(items)
    passages = sum(it["context_shape"] == "passages" for it in items) / len(items)
    long = sum(it["context_shape"] == "long" for it in items) / len(items)
    assert 0.35 <= faithful <= 0.45 and passages >= 0.3 and long >= 0.18


def test_fresh71_has_60_english_and_20_other_records():
    items = S.load("fresh71")
    _whole(items)
    languages = [it.get("language", "en") for it in items]
    assert languages.count("en") >= 60 and {"de", "es", "fr", "zh"} <= set(languages)
    assert sum(it["kind"] == "date" for it in items) >= 10


def test_the_summary_counts_a_filler_flag_and_a_citation_status():
    items = [{"id": "a", "kind": "filler", "context_shape": "passages", "answer": "Hi! It opens at 9 [2].",
              "sentences": [{"text": "Hi!", "label": "none"},
                            {"text": "It opens at 9 [2].", "label": "entailed", "citation": "misattributed"}]}]
    rows = [{"id": "a", "kind": "filler", "shape": "passages", "language": "en", "expected": "entailed",
             "label": "baseless", "right": False, "seconds": 0.01,
             "claims": [{"label": "baseless", "sentences": [0]}, {"label": "entailed", "sentences": [1]}],
             "citations": {"0": None, "1": "misattributed"}}]
    s = S.summarize(rows, items)
    assert s["faithful_flagged_at_none"] == 1 and s["citations"] == (1, 1) and s["misattributed"] == (1, 1)
