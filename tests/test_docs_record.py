"""The docs are the product's record: history is dated by day and commit, not by internal ticket or round
numbers, and the README's figures are the docs' figures."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]

# "issue 41", "(issue 40)", "issues 24 and 25", "session 12", "sessions 13 and 14", "session-3", "round 3",
# a branch name like `issue-36`. Unnumbered senses ("a known issue", "the session's judge", "the other way
# round") are not labels and pass.
LABEL = re.compile(r"\b(?:issues?|sessions?|rounds?)[ -]#?\d+", re.IGNORECASE)

RAGTRUTH_TEST = re.compile(
    r"On the RAGTruth test split it reaches answer-level F1 (?P<answer>\d\.\d+), span-level F1 (?P<span>\d\.\d+)"
    r"\s+and AUROC (?P<auroc>\d\.\d+)"
)


def test_no_history_labelled_by_ticket_session_or_round_number():
    found = []
    for page in PAGES:
        for number, line in enumerate(page.read_text().splitlines(), 1):
            for match in LABEL.finditer(line):
                found.append(f"{page.relative_to(ROOT)}:{number}: {match.group(0)!r}")
    assert not found, "say what was built and the day instead of:\n" + "\n".join(found)


def test_label_pattern_catches_numbered_labels_only():
    assert LABEL.search("the typed edits (issue 41)")
    assert LABEL.search("Sessions 13 and 14 (2026-11-30)")
    assert LABEL.search("branch `issue-36`")
    assert LABEL.search("round 3")
    assert not LABEL.search("a known issue; GitHub issues; the session's judge; the other way round")


def _ragtruth_test_figures(path: Path, section: str | None = None) -> dict[str, str]:
    text = path.read_text()
    if section is not None:
        start = text.index(section)
        text = text[start : text.index("\n\n", start)]
    match = RAGTRUTH_TEST.search(" ".join(text.split()))
    assert match, f"no 'On the RAGTruth test split it reaches ...' sentence in {path.relative_to(ROOT)}"
    return match.groupdict()


def test_readme_offline_figures_equal_the_offline_judge_page():
    readme = _ragtruth_test_figures(ROOT / "README.md", section="**Offline**")
    page = _ragtruth_test_figures(ROOT / "docs" / "offline-judge.md")
    assert readme == page


def test_readme_offline_figures_equal_the_results_headline_row():
    """The README's RAGTruth test figures are the results headline's row for today's local judge."""
    readme = _ragtruth_test_figures(ROOT / "README.md", section="**Offline**")
    head = (ROOT / "docs" / "results" / "_head.md").read_text()
    row = next(line for line in head.splitlines() if line.startswith("| **rt4chart, local judge today"))
    cells = [c.strip() for c in row.split("|")]
    answer = re.search(r"\*\*(\d\.\d+)\*\*", cells[2]).group(1)
    span = re.search(r"\*\*(\d\.\d+)\*\*", cells[3]).group(1)
    auroc = re.search(r"AUROC (\d\.\d+)", row).group(1)
    assert readme == {"answer": answer, "span": span, "auroc": auroc}


def test_results_page_is_todays_record_and_history_is_apart():
    """docs/results.md is assembled from today's sections and stays short enough to read; the dated history lives on
    docs/history.md, which the assembly does not read."""
    order = re.search(r"ORDER = \[(.*?)\]", (ROOT / "scripts" / "build_results_doc.py").read_text(), re.S).group(1)
    assert "history" not in order and (ROOT / "docs" / "history.md").is_file()
    lines = (ROOT / "docs" / "results.md").read_text().count("\n")
    assert lines <= 1500, f"docs/results.md has {lines} lines; move dated history to docs/history.md"
