"""The repository's shape: small runtime modules, no import-path edits (the training code is a package run with
``python -m``; benchmarks and tests import installed packages)."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAX_LINES = 400


def _python_files(*folders: str) -> list[Path]:
    return sorted(p for f in folders for p in (ROOT / f).rglob("*.py"))


def test_no_runtime_module_is_over_400_lines():
    long = {str(p.relative_to(ROOT)): n for p in _python_files("src/rt4chart")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}


def _edits_sys_path(path: Path) -> bool:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Attribute) and node.attr == "path" and isinstance(node.value, ast.Name) \
                and node.value.id == "sys":
            return True
    return False


def test_nothing_edits_sys_path():
    assert [str(p.relative_to(ROOT)) for p in _python_files("src", "scripts", "benchmarks", "tests")
            if _edits_sys_path(p)] == []
