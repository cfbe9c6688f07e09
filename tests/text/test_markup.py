"""Citation markers and markdown in an assistant's answer (``text.markup``): the markers found with the passages
they name, blanked without moving an offset, dropped from a claim's text with emphasis and bullets, trimmed off a
claim's span; markdown lines told apart and a table row read with its header's names."""

import pytest

from rt4chart.text.markup import (blank_markers, citation_markers, claim_text, markdown_line, table_cells,
                                  table_row_claim, trim_span)


@pytest.mark.parametrize("text, marker, passages", [
    ("Refunds take 14 days [1].", "[1]", (1,)),
    ("Refunds take 14 days [1, 3].", "[1, 3]", (1, 3)),
    ("Refunds take 14 days [1-3].", "[1-3]", (1, 2, 3)),
    ("Refunds take 14 days [2–4].", "[2–4]", (2, 3, 4)),
    ("Refunds take 14 days [^1].", "[^1]", (1,)),
    ("Refunds take 14 days 【1】.", "【1】", (1,)),
    ("Refunds take 14 days 【4†source】.", "【4†source】", (4,)),
    ("Refunds take 14 days (Source 2).", "(Source 2)", (2,)),
    ("Refunds take 14 days [Passage 3].", "[Passage 3]", (3,)),
    ("Refunds take 14 days [doc1].", "[doc1]", (1,)),
    ("Refunds take 14 days [1 and 3].", "[1 and 3]", (1, 3)),
])
def test_each_marker_form_is_found_with_its_passages(text, marker, passages):
    (found,) = citation_markers(text)
    assert found.marker == marker
    assert text[found.start:found.end] == marker
    assert found.passages == passages


def test_adjacent_markers_are_two_markers_in_order():
    text = "Exchanges are free [2][3]."
    found = citation_markers(text)
    assert [m.marker for m in found] == ["[2]", "[3]"]
    assert [m.passages for m in found] == [(2,), (3,)]
    assert found[0].end == found[1].start == text.index("[3]")


@pytest.mark.parametrize("text", ["It opened in [2020].", "It takes (2 days).", "See note [a].", "Call (555) now."])
def test_brackets_that_are_not_markers(text):
    assert citation_markers(text) == []
    assert blank_markers(text) == text


def test_blank_markers_keeps_every_offset():
    text = "The pool opens at 7 am [1][2]. Lockers cost $2 (Source 3). Towels are free 【4】."
    blanked = blank_markers(text)
    assert len(blanked) == len(text)
    for m in citation_markers(text):
        assert blanked[m.start:m.end] == " " * len(m.marker)
    assert blanked.replace(" ", "") == text.replace(" ", "").replace("[1][2]", "").replace("(Source3)", "") \
        .replace("【4】", "")
    assert citation_markers(blanked) == []


@pytest.mark.parametrize("text, expected", [
    ("Refunds take 14 days [1].", "Refunds take 14 days."),
    ("Exchanges are free [2][3].", "Exchanges are free."),
    ("The pool opens at 9 [1], and closes at 5 [2].", "The pool opens at 9, and closes at 5."),
    ("The fee is $5 (Source 2).", "The fee is $5."),
    ("- **Refunds** take _14_ days [1].", "Refunds take 14 days."),
    ("1. The `pool` opens at *9 am* [2][3].", "The pool opens at 9 am."),
    ("* Children   pay   $5.", "Children pay $5."),
])
def test_claim_text_drops_markers_emphasis_and_bullets(text, expected):
    assert claim_text(text) == expected


def test_claim_text_keeps_underscores_and_stars_inside_words():
    assert claim_text("Use snake_case and 2*3 here") == "Use snake_case and 2*3 here"


def test_trim_span_drops_bullet_emphasis_and_closing_marker():
    text = "- **Refunds take 14 days** [1]."
    start, end = trim_span(text, 0, len(text))
    assert text[start:end] == "Refunds take 14 days"


def test_trim_span_keeps_a_marker_with_words_after_it():
    text = "The pool opens at 9 [1], and closes at 5 [2]."
    start, end = trim_span(text, 0, len(text))
    assert (start, end) == (0, len(text))


def test_trim_span_of_a_plain_sentence_drops_only_outer_space():
    text = "  Lockers cost $2.  "
    start, end = trim_span(text, 0, len(text))
    assert text[start:end] == "Lockers cost $2."


@pytest.mark.parametrize("line, next_line, kind", [
    ("## Plans", None, "heading"),
    ("# Opening hours", "The museum opens at 10.", "heading"),
    ("|---|:--:|", None, "table-separator"),
    ("| --- | --- |", None, "table-separator"),
    ("| Plan | Price |", "|---|---|", "table-header"),
    ("| Basic | $9 |", "| Pro | $19 |", "table-row"),
    ("| Basic | $9 |", None, "table-row"),
    ("The museum opens at 10.", None, "text"),
    ("#hashtag is not a heading", None, "text"),
    ("---", None, "text"),
    ("- a bullet", None, "text"),
])
def test_markdown_line_kinds(line, next_line, kind):
    assert markdown_line(line, next_line) == kind


def test_table_cells_drop_emphasis():
    assert table_cells("| **Basic** | $9/month | 50 GB |") == ["Basic", "$9/month", "50 GB"]


def test_table_row_claim_with_header_names_each_cell():
    header = table_cells("| Plan | Price | Storage |")
    assert table_row_claim(["Basic", "$9/month", "50 GB"], header) == "Basic: price $9/month, storage 50 GB"


def test_table_row_claim_skips_an_empty_cell():
    assert table_row_claim(["Basic", "", "50 GB"], ["Plan", "Price", "Storage"]) == "Basic: storage 50 GB"


def test_table_row_claim_with_a_blank_column_name_keeps_the_cell_alone():
    assert table_row_claim(["Basic", "$9"], ["Plan", ""]) == "Basic: $9"


@pytest.mark.parametrize("header", [None, [], ["Plan", "Price"]])
def test_table_row_claim_without_a_fitting_header_joins_the_cells(header):
    assert table_row_claim(["Basic", "$9/month", "50 GB"], header) == "Basic, $9/month, 50 GB"
