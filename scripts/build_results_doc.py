#!/usr/bin/env python3
"""Assemble docs/results.md (today's figures) from its head and the per-area sections in docs/results/ (fixed order).

Older measurements and removed experiments live in docs/history.md, which is written by hand and not assembled here."""

from pathlib import Path

DOCS = Path(__file__).resolve().parents[1] / "docs"
ORDER = ["eval", "lexical", "local_judge", "shape", "typed_edits", "meaning3", "assistant", "written_sets",
         "calibration",
         "claim_verifier", "citations",
         "gate", "llm", "hybrid", "ablation", "facets", "server", "mlflow", "engine", "generalization"]


def main() -> None:
    parts = [(DOCS / "results" / "_head.md").read_text().rstrip() + "\n"]
    for name in ORDER:
        text = (DOCS / "results" / f"{name}.md").read_text().rstrip()
        parts.append("\n---\n\n" + text + "\n")
    (DOCS / "results.md").write_text("".join(parts))
    print(f"wrote {DOCS / 'results.md'}")


if __name__ == "__main__":
    main()
