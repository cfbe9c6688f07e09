"""``rt4chart.eval.hybrid_card.fit_card``: the one fitting code of the hybrid judge's combination card (the training
script's and ``calibrate --card``'s) fits both models when the rows tell contradicted from baseless, records the
model, and refuses rows it cannot fit."""

from __future__ import annotations

import json
import random

import pytest

from rt4chart.errors import InputError
from rt4chart.eval.hybrid_card import fit_card
from rt4chart.judges.combine import FEATURES, Combination

MODEL = {"name": "tiny.gguf", "gguf": "tiny.gguf", "model": "judge"}


def _rows(n: int = 60, kinds: bool = True) -> list[dict]:
    rnd = random.Random(0)
    rows = []
    for i in range(n):
        gold = ["entailed", "contradicted", "baseless"][i % 3] if kinds else ["entailed", "hallucinated"][i % 2]
        bad = gold != "entailed"
        values = [rnd.gauss(2.0 if bad else -2.0, 1.0)] + [rnd.gauss(0, 1) for _ in FEATURES[1:]]
        values[3] = float(gold == "contradicted") + rnd.gauss(0, 0.3)
        rows.append({"record": f"r{i}", "source": "labelled", "unit": "answer", "group": f"g{i % 10}",
                     "claims": 1, "gold": gold, "features": values})
    return rows


def test_fit_card_fits_both_models_and_records_the_model(tmp_path):
    card = fit_card(_rows(), version="t", fitted_for=MODEL, rows_file="rows.jsonl", data="synthetic")
    assert card["fitted_for"] == MODEL and "contradicted_out_of_fold" in card["metrics"]
    assert card["metrics"]["auroc_out_of_fold"] > 0.9 and card["threshold_rule"] == "maximises answer F1, out of fold"
    path = tmp_path / "card.json"
    path.write_text(json.dumps(card))
    assert Combination.load(path).fitted_for == MODEL


def test_fit_card_keeps_the_base_contradicted_model_without_kinds():
    card = fit_card(_rows(kinds=False), version="t", fitted_for=MODEL, rows_file="r", data="d")
    assert card["contradicted"] == Combination.load().card["contradicted"] and "contradicted_kept" in card["metrics"]


def test_fit_card_refuses_one_class():
    rows = [r for r in _rows() if r["gold"] == "entailed"]
    with pytest.raises(InputError, match="claims of both kinds"):
        fit_card(rows, version="t", fitted_for=MODEL, rows_file="r", data="d")
