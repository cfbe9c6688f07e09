"""Rebuild the README's picture (docs/img/report.png) from the Quick start, so that its counts are today's:

    python3 scripts/readme_picture.py            # needs the dev extras (playwright) and a chromium on PATH

It runs the Quick start's audit (``rt4chart audit examples/records.jsonl``) into a temporary folder, writes its
report (``rt4chart report``, the command in docs/server.md), opens it in headless Chromium, filters it to
contradicted answers, clicks the first contradicted claim (its label, reason and evidence show) and saves the
screenshot. Nothing is written in the clone but the picture.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--output", type=Path, default=ROOT / "docs" / "img" / "report.png")
    parser.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    args = parser.parse_args()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print("playwright is not installed: pip install -e '.[dev]'", file=sys.stderr)
        return 2
    if not Path(args.chromium).exists():
        print(f"no chromium at {args.chromium}: apt-get install -y chromium, or --chromium PATH", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        results, page_path = Path(tmp) / "results.jsonl", Path(tmp) / "report.html"
        cli = [sys.executable, "-c", "from rt4chart.cli import main; main()"]
        subprocess.run([*cli, "audit", str(ROOT / "examples" / "records.jsonl"), "-o", str(results), "-q"],
                       check=True, cwd=ROOT)
        subprocess.run([*cli, "report", str(results), "-o", str(page_path)], check=True, cwd=ROOT)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=args.chromium, headless=True, args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(page_path.as_uri())
            page.select_option("#f-label", "contradicted")
            page.locator(".claim-span.lab-contradicted").first.click()
            page.screenshot(path=str(args.output))
            browser.close()
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
