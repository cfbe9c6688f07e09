"""Sentence offsets and sliding chunks."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rt4chart import ConfigError, make_chunks, split_sentences
from rt4chart.text.segment import record_lines


def _check_offsets(text):
    sents = split_sentences(text)
    last_end = 0
    for i, s in enumerate(sents):
        assert s.index == i
        assert text[s.start:s.end] == s.text
        assert s.text == s.text.strip() and s.text
        assert s.start >= last_end
        last_end = s.end
    return sents


def test_abbreviations_and_decimals_do_not_split():
    text = "Dr. Smith paid $3.5 million in 2020. It was a lot! See e.g. the U.S. report."
    assert [s.text for s in _check_offsets(text)] == [
        "Dr. Smith paid $3.5 million in 2020.", "It was a lot!", "See e.g. the U.S. report."]


def test_bullets_and_newlines_are_separate_sentences():
    text = "Features:\n- fast search\n- 3.5 GB of storage\n\nPricing starts at $10. Cancel anytime."
    got = [s.text for s in _check_offsets(text)]
    assert got == ["Features:", "- fast search", "- 3.5 GB of storage", "Pricing starts at $10.", "Cancel anytime."]


def test_json_context_lines():
    text = json.dumps({"name": "Blue Harbor", "rating": 4.5, "hours": {"Mon": "Closed"}}, indent=2)
    sents = _check_offsets(text)
    assert any('"rating": 4.5' in s.text for s in sents)


RECORD = {"name": "Piranha, Sushi & Bar", "hours": None, "open": True,
          "attributes": {"parking": {"garage": False, "street": True}, "wifi": "free"},
          "reviews": [{"stars": 4.0, "text": "Good fish. We'd go back, [really] {yes}."},
                      {"stars": 2.0, "text": "Slow."}]}


def _fields(text):
    return [s.text.replace("'", '"').replace("None", "null").replace("True", "true").replace("False", "false")
            for s in _check_offsets(text)]


def test_a_record_on_one_line_splits_into_the_fields_its_indented_json_has():
    indented = json.dumps(RECORD, indent=2)
    lines = _fields(indented)
    assert '"name": "Piranha, Sushi & Bar",' in lines and '"garage": false,' in lines
    # json.dumps on one line and Python's repr of the same record: the same field units as the indented JSON
    # (string contents, commas and brackets inside them, and escaped quotes are never cut)
    assert _fields(json.dumps(RECORD)) == lines
    assert _fields(repr(RECORD)).count('"garage": false,') == 1
    assert len(_fields(repr(RECORD))) == len(lines)
    assert any("We" in u and "[really] {yes}" in u for u in _fields(repr(RECORD)))


def test_record_lines_count_a_one_line_record_as_its_fields():
    indented = record_lines(json.dumps(RECORD, indent=2))
    assert indented == [ln.strip() for ln in json.dumps(RECORD, indent=2).splitlines()]
    assert len(record_lines(repr(RECORD))) == len(record_lines(json.dumps(RECORD))) == len(indented)
    assert record_lines("Prose line one.\n\n  {not: a record}  \n") == ["Prose line one.", "{not: a record}"]


def test_prose_with_brackets_is_not_a_record():
    for text in ("[1, 2, 3] are the ids. {See: the appendix}", "{a, b} and [c, d]",
                 "{'only': 1, 'two': 2} keys is too few to be a record"):
        assert len(_check_offsets(text)) <= 2, text


def test_long_paragraph_is_linear_and_exact():
    text = " ".join(f"Item {i} costs 3.5 dollars." for i in range(3000))
    sents = _check_offsets(text)
    assert len(sents) == 3000


def test_empty_and_whitespace():
    assert split_sentences("") == []
    assert split_sentences("  \n\n ") == []
    with pytest.raises(TypeError):
        split_sentences(None)


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=300))
def test_offsets_property(text):
    _check_offsets(text)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(["The cat sat.", "Mr. Lee paid 3.5 USD!", "- item", "Why?", "\n", "  ", "e.g. this"]),
                max_size=30))
def test_offsets_property_sentencey(parts):
    _check_offsets(" ".join(parts))


def _chunks(n, w, o):
    text = " ".join(f"Sentence number {i}." for i in range(n))
    return make_chunks(split_sentences(text), text, w, o), text


def test_chunks_cover_everything_with_overlap():
    chunks, text = _chunks(60, 25, 10)
    assert [(c.first, c.last) for c in chunks] == [(0, 24), (15, 39), (30, 54), (45, 59)]
    for c in chunks:
        assert text[c.start:c.end] == c.text


def test_window_larger_than_sentences():
    chunks, text = _chunks(3, 25, 10)
    assert len(chunks) == 1 and (chunks[0].first, chunks[0].last) == (0, 2)


def test_overlap_w_minus_1():
    chunks, _ = _chunks(5, 3, 2)
    assert [(c.first, c.last) for c in chunks] == [(0, 2), (1, 3), (2, 4)]


def test_paper_table1_chunking():
    chunks, _ = _chunks(4, 2, 1)
    assert [(c.first, c.last) for c in chunks] == [(0, 1), (1, 2), (2, 3)]


def test_no_sentences_no_chunks():
    assert make_chunks([], "", 25, 10) == []


@pytest.mark.parametrize("w,o", [(0, 0), (5, 5), (5, 7), (-1, 0), (3, -1), (2.5, 1), (True, 0)])
def test_invalid_window(w, o):
    with pytest.raises(ConfigError):
        make_chunks([], "", w, o)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 80), st.integers(1, 30), st.data())
def test_chunks_property(n, w, data):
    o = data.draw(st.integers(0, w - 1))
    chunks, _ = _chunks(n, w, o)
    covered = set()
    for prev, cur in zip(chunks, chunks[1:]):
        assert cur.first == prev.first + (w - o)
        assert cur.last > prev.last
    for c in chunks:
        assert c.last - c.first + 1 <= w
        covered |= set(c.sentence_ids)
    assert covered == set(range(n))


def test_pysbd_is_called_one_text_at_a_time(monkeypatch):
    """pysbd's Segmenter keeps the text it is splitting on itself, and the judges segment in worker threads: two
    threads inside one Segmenter get each other's sentences. A stand-in segmenter fails the test if calls overlap."""
    import threading
    import time
    from concurrent.futures import ThreadPoolExecutor

    from rt4chart.text import segment

    inside, overlaps = [0], []
    guard = threading.Lock()

    class Recording:
        def segment(self, text):
            with guard:
                inside[0] += 1
                if inside[0] > 1:
                    overlaps.append(text)
            time.sleep(0.02)
            with guard:
                inside[0] -= 1
            return [text]

    monkeypatch.setattr(segment, "_pysbd", lambda: Recording())
    texts = [f"Dr. Smith met Mr. Jones {i}. They spoke about item {i}. It was fine." for i in range(16)]
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(segment._segment_cached.__wrapped__, texts))
    assert not overlaps
