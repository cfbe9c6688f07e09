"""Issue 42, item 9: `rt4chart serve` without the server extra exits 2 (a usage problem) with the install hint,
phrased for a clone of the repository too."""

from __future__ import annotations

import sys

from click.testing import CliRunner

from rt4chart.cli import main


def test_serve_without_the_server_extra_exits_2_with_the_hint(monkeypatch):
    monkeypatch.setitem(sys.modules, "uvicorn", None)  # `import uvicorn` raises ImportError, as when not installed
    res = CliRunner().invoke(main, ["serve", "--judge", "lexical"])
    assert res.exit_code == 2, res.output
    assert "uvicorn is not installed" in res.output
    assert "pip install -e '.[server]'" in res.output and "pip install 'rt4chart[server]'" in res.output
