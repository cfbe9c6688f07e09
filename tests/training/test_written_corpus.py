"""The written corpus (``training/data/written``): its README's counts are the files', and every item is whole."""

from __future__ import annotations

import pytest

pytest.importorskip("rapidfuzz")

from training import written_corpus as W  # noqa: E402


def test_the_readme_counts_are_the_files():
    assert W.readme_table() == W.table()


def test_every_item_is_whole_and_the_selection_domains_are_there():
    items = W.corpus()
    assert len(items) >= 2000
    for it in items:
        context = "\n\n".join(it["context"]) if isinstance(it["context"], list) else it["context"]
        pos = 0
        for s in it["sentences"]:
            assert s["label"] in W.LABELS, it["id"]
            at = it["answer"].find(s["text"], pos)
            assert at >= 0, (it["id"], s["text"])
            pos = at + len(s["text"])
            assert all(q in context for q in s.get("evidence", ())), it["id"]
    domains = {it["domain"] for it in items}
    assert len(domains) >= 40 and W.HELD_OUT & domains
    assert len({it["id"] for it in items}) == len(items)


def test_an_answer_label_is_the_and_join_of_its_sentences():
    item = {"sentences": [{"label": "none"}, {"label": "entailed"}, {"label": "baseless"}]}
    assert W.answer_label(item) == "baseless"
    item["sentences"].append({"label": "contradicted"})
    assert W.answer_label(item) == "contradicted"
    assert W.answer_label({"sentences": [{"label": "none"}, {"label": "entailed"}]}) == "entailed"
