"""``python -m training.hybrid_combination fit ROWS``: the hybrid judge's combination card fitted on collected rows
and written with its metrics. The fitting itself is the package's (``rt4chart.eval.hybrid_card.fit_card``), which
``rt4chart calibrate --judge hybrid --card`` also uses to refit the card for a user's model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional

from rt4chart.eval.hybrid_card import fit_card, usable_rows
from rt4chart.judges.combine import CARD

#: the model the shipped card's rows were collected with (the collect command's llama-server, ``--alias judge``)
SHIPPED_MODEL = {"name": "Qwen2.5-Coder-1.5B-Instruct Q4_K_M",
                 "gguf": "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf", "model": "judge"}


def load_rows(path: Path) -> list[Any]:
    """The usable rows of a collect run (``rt4chart.eval.hybrid_card.usable_rows``)."""
    return usable_rows([json.loads(line) for line in path.read_text().splitlines() if line.strip()])


def fit(path: Path, card_path: Optional[Path], *, version: str,
        fitted_for: Optional[dict[str, Any]] = None) -> dict[str, Any]:
    rows = load_rows(path)
    sources = {r["source"] for r in rows}
    data = "; ".join((["RAGTruth train, validation slice (splits.validation_records)"]
                      if any(s.startswith("ragtruth") for s in sources) else [])
                     + (["NLI sets allowed for training (snli dev, cad_snli, conjnli, taxinli mnli_train, "
                         "fever_nli_dev)"] if any(not s.startswith("ragtruth") for s in sources) else []))
    card = fit_card(rows, version=version, fitted_for=fitted_for or SHIPPED_MODEL, rows_file=path.name, data=data)
    card["fitted_on"]["llm"] = f"{card['fitted_on']['llm']} (llama.cpp server)"
    if card_path is None:
        from rt4chart.judges.local import model_dir

        card_path = Path(model_dir()) / CARD
    card_path.write_text(json.dumps(card, indent=2) + "\n")
    print(json.dumps({k: card[k] for k in ("hallucinated", "contradicted", "metrics")}, indent=2))
    return card
