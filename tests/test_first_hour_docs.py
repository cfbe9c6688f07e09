"""Issue 42, item 9 (part): the Quick start's outputs are ignored by git, the docs extra has ruff (mkdocstrings
formats signatures with it), and docs/server.md installs the server extra as a clone does and names no README
section that does not exist."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.skipif(shutil.which("git") is None or not (ROOT / ".git").exists(), reason="not a git checkout")
@pytest.mark.parametrize("name", ["results.jsonl", "report.html"])
def test_quick_start_outputs_are_ignored(name):
    res = subprocess.run(["git", "check-ignore", "-q", name], cwd=ROOT)
    assert res.returncode == 0, f"{name} would show in git status"


def test_docs_extra_has_ruff():
    tomllib = pytest.importorskip("tomllib")
    docs = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["docs"]
    assert any(re.match(r"ruff\b", d) for d in docs)


def test_server_doc_install_line_and_readme_references():
    text = (ROOT / "docs" / "server.md").read_text()
    assert "pip install -e '.[server]'" in text
    headings = {line.lstrip("#").strip().lower() for line in (ROOT / "README.md").read_text().splitlines()
                if line.startswith("## ")}
    for section in re.findall(r"README, § ?([\w -]+)", text):
        assert any(h.startswith(section.strip().lower()) for h in headings), section


def test_the_api_reference_documents_rt4chart_audit_by_its_defining_module():
    import rt4chart
    from rt4chart import _one

    assert rt4chart.audit is _one.audit  # the path the reference names is the public function
    text = (ROOT / "docs" / "api" / "index.md").read_text()
    assert re.search(r"^::: rt4chart\._one\.audit$", text, re.MULTILINE)
