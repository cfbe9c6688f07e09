"""Without Ray installed, rt4chart works and the Ray engine says which extra to install (runs without Ray too)."""

import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "records.jsonl"


def test_without_ray_the_engine_names_the_extra(tmp_path):
    code = ("import sys; sys.modules['ray'] = None\n"  # as if Ray were not installed
            "from click.testing import CliRunner\n"
            "from rt4chart.cli import main\n"
            f"r = CliRunner().invoke(main, ['audit', {str(EXAMPLES)!r}, '-o', {str(tmp_path / 'out.jsonl')!r},"
            " '--engine', 'ray', '-q'])\n"
            "print(r.exit_code); print(' '.join(r.output.split()))\n"
            "try:\n    import rt4chart.ray\nexcept ImportError as exc:\n    print(type(exc).__name__, exc)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    lines = out.splitlines()
    assert lines[0] == "2" and "pip install 'rt4chart[ray]'" in lines[1], out
    assert lines[2].startswith("MissingDependencyError") and "rt4chart[ray]" in lines[2]
