"""The verifier's training, export and evaluation (rt4chart_training.verifier.train / sampling / export /
evaluate).

The tests that train need torch and transformers (the training extra), which CI does not install: they skip there
(``pytest.importorskip``) and run where the training stack is installed. They train a tiny random BERT (2 layers,
hidden size 16, a WordPiece vocabulary of the test's own words) on 64 pairs written here, in a few seconds each.
The metric, schedule and sampling tests need numpy and scikit-learn only and run everywhere.
"""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path

import numpy as np
import pytest

from rt4chart_training.verifier.common import length_batches, lr_factor
from rt4chart_training.verifier.evaluate import kind_of, markdown, set_metrics
from rt4chart_training.verifier.sampling import Draws, label_caps, parse_caps, source_caps

WORDS = ("a the man woman dog cat is are not sleeping running eating outside inside red blue big small two three "
         "people some all none car house").split()


# -- without torch ------------------------------------------------------------------------------------------------
def test_the_schedule_copes_with_any_step_count():
    assert lr_factor(0, 1, 100) == 1.0  # one step: taken at the full rate (no division by zero)
    assert [lr_factor(s, 2, 100) for s in range(2)] == [0.5, 1.0]  # warm-up cut to total - 1 steps
    assert [lr_factor(s, 2, 0) for s in range(2)] == [1.0, 0.5]
    factors = [lr_factor(s, 100, 10) for s in range(100)]
    assert factors[:10] == pytest.approx([(s + 1) / 11 for s in range(10)])  # linear warm-up
    assert factors[10] == 1.0 and factors[-1] == pytest.approx(1 / 90)  # then linear decay, never 0 or negative
    assert all(a >= b for a, b in zip(factors[10:], factors[11:]))
    assert lr_factor(0, 0, 3) == 1.0 and lr_factor(5, 3, 0) == 0.0  # a zero total is one step; past the end: 0


def test_length_batches_group_similar_lengths_and_keep_every_pair():
    lengths = np.array([random.Random(i).randint(3, 200) for i in range(1000)])
    batches = length_batches(list(range(1000)), lengths, 16, random.Random(0))
    assert sorted(i for b in batches for i in b) == list(range(1000))
    spread = np.mean([lengths[b].max() - lengths[b].min() for b in batches])
    assert spread < 10  # within a pool of 50 batches the lengths are sorted
    assert batches == length_batches(list(range(1000)), lengths, 16, random.Random(0))


def test_draws_follow_the_weights_and_the_caps():
    weights = np.array([1.0] * 100 + [2.5] * 100 + [0.0] * 100)
    source_of = np.array([0] * 100 + [1] * 100 + [2] * 100)
    lengths = np.full(300, 10)
    draws = Draws(weights, source_of, [None, None, None], lengths, 8, seed=1)
    counts = np.bincount([i for b in draws.epoch(0) for i in b], minlength=300)
    assert (counts[:100] == 1).all() and set(counts[100:200]) <= {2, 3} and (counts[200:] == 0).all()
    assert abs(counts[100:200].sum() - 250) < 30
    capped = Draws(weights, source_of, [None, 40, None], lengths, 8, seed=1)
    counts = np.bincount([i for b in capped.epoch(0) for i in b], minlength=300)
    assert counts[100:200].sum() == 40 and counts[:100].sum() == 100
    assert draws.epoch(3) == Draws(weights, source_of, [None] * 3, lengths, 8, seed=1).epoch(3)  # seed and epoch
    assert draws.epoch(3) != draws.epoch(4)


def test_source_caps_take_the_longest_prefix():
    caps = source_caps(["ragtruth/qa", "ragtruth/qa/other-evidence", "snli/dev", "ragtruthx"], 500,
                       {"ragtruth": 100, "ragtruth/qa/other-evidence": 7})
    assert caps == {"ragtruth/qa": 100, "ragtruth/qa/other-evidence": 7, "snli/dev": 500, "ragtruthx": 500}


def test_label_caps_cut_one_label_of_a_source():
    caps = parse_caps(["ragtruth:entailment=30", "ragtruth/qa:entailment=5", "ragtruth=1000"])
    assert source_caps(["ragtruth/qa", "snli/dev"], None, caps) == {"ragtruth/qa": 1000, "snli/dev": None}
    assert label_caps(["ragtruth/qa", "ragtruth/summary", "snli/dev"], caps) == {
        "ragtruth/qa": {"entailment": 5}, "ragtruth/summary": {"entailment": 30}}
    with pytest.raises(SystemExit):
        parse_caps(["ragtruth:entailed=3"])
    weights = np.ones(200)
    source_of = np.array([0] * 100 + [1] * 100)
    labels = np.array([0, 1] * 100)  # each source: 50 entailment, 50 contradiction
    draws = Draws(weights, source_of, [None, 60], np.full(200, 10), 8, seed=2, labels=labels,
                  label_caps=[{0: 10}, {0: 20}])
    drawn = [i for b in draws.epoch(0) for i in b]
    first = [i for i in drawn if i < 100]
    assert sum(labels[i] == 0 for i in first) == 10 and sum(labels[i] == 1 for i in first) == 50
    second = [i for i in drawn if i >= 100]
    assert len(second) == 60 and sum(labels[i] == 0 for i in second) <= 20


def test_three_way_metrics_on_hand_made_probabilities():
    from sklearn.metrics import f1_score, roc_auc_score

    gold = ["entailment", "contradiction", "neutral", "contradiction", "entailment", "neutral"]
    probs = np.array([[0.8, 0.1, 0.1],   # e, right
                      [0.2, 0.7, 0.1],   # c, right
                      [0.5, 0.2, 0.3],   # n predicted e
                      [0.1, 0.3, 0.6],   # c predicted n
                      [0.6, 0.3, 0.1],   # e, right
                      [0.1, 0.1, 0.8]])  # n, right
    m = set_metrics(gold, probs)
    assert m["kind"] == "3way" and m["n"] == 6
    assert m["acc3"] == pytest.approx(4 / 6, abs=1e-4)
    pred = ["entailment", "contradiction", "entailment", "neutral", "entailment", "neutral"]
    assert m["macro_f1"] == pytest.approx(f1_score(gold, pred, average="macro"), abs=1e-4)
    is_c = [g == "contradiction" for g in gold]
    assert m["auroc_contradiction"] == pytest.approx(roc_auc_score(is_c, probs[:, 1]), abs=1e-4)
    assert m["auroc_entailment"] == pytest.approx(roc_auc_score([g == "entailment" for g in gold], probs[:, 0]),
                                                  abs=1e-4)
    assert m["confusion"]["contradiction"] == {"entailment": 0, "contradiction": 1, "neutral": 1}
    assert m["predicted"] == {"entailment": 0.5, "contradiction": 0.1667, "neutral": 0.3333}


def test_binary_set_metrics_say_what_they_measure():
    gold = ["entailment", "contradiction", "contradiction", "entailment"]
    probs = np.array([[0.5, 0.1, 0.4], [0.3, 0.4, 0.3], [0.2, 0.1, 0.7], [0.1, 0.2, 0.7]])
    m = set_metrics(gold, probs)
    assert m["kind"] == "ec"
    assert m["acc3"] == 0.5  # the two neutral predictions are wrong
    assert m["acc2"] == 0.5  # entailment vs contradiction: rows 0 and 1 right, 2 (0.1 < 0.2) and 3 wrong
    assert m["neutral_rate"] == 0.5
    assert m["auroc_contradiction"] == pytest.approx(0.625)  # c scores 0.4, 0.1 vs e scores 0.1, 0.2: 2.5 of 4
    assert "macro_f1" not in m
    rte = set_metrics(["entailment", "not_entailment", "not_entailment"],
                      np.array([[0.7, 0.2, 0.1], [0.2, 0.1, 0.7], [0.6, 0.3, 0.1]]))
    assert rte["kind"] == "e-vs-not" and rte["acc2"] == pytest.approx(2 / 3, abs=1e-4)
    assert rte["auroc_entailment"] == 1.0 and "auroc_contradiction" not in rte
    assert kind_of(["entailment", "entailment"]) == "ec"
    assert set_metrics(["contradiction"], np.array([[0.2, 0.5, 0.3]]))["auroc_contradiction"] is None
    table = markdown({"x/test": m, "rte/val": rte})
    assert table.count("\n") == 4 and "| x/test | ec | 4 | 0.500 | 0.500 | – | 0.625 | – |" in table


def test_set_metrics_refuse_mismatched_probabilities():
    with pytest.raises(ValueError):
        set_metrics(["entailment"], np.zeros((2, 3)))


# -- with torch (skipped in CI) -----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    """A tiny random BERT base folder (config and WordPiece tokenizer, no weights) and 64 toy pairs."""
    pytest.importorskip("torch", reason="training needs torch (the training extra)")
    pytest.importorskip("transformers", reason="training needs transformers (the training extra)")
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

    root = tmp_path_factory.mktemp("verifier")
    base = root / "base"
    base.mkdir()
    vocab = {t: i for i, t in enumerate(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS, "."])}
    tok = Tokenizer(models.WordPiece(vocab, unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.save(str(base / "tokenizer.json"))
    (base / "config.json").write_text(json.dumps({
        "model_type": "bert", "vocab_size": len(vocab), "hidden_size": 16, "num_hidden_layers": 2,
        "num_attention_heads": 2, "intermediate_size": 32, "max_position_embeddings": 64, "type_vocab_size": 2,
        "pad_token_id": 0}))
    rng = random.Random(0)
    with gzip.open(root / "pairs-toy.jsonl.gz", "wt", encoding="utf-8") as fh:
        for i in range(64):
            premise = " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 12)))
            label = ("entailment", "contradiction", "neutral")[i % 3]
            hypothesis = {"entailment": premise, "contradiction": "not " + premise,
                          "neutral": " ".join(rng.choice(WORDS) for _ in range(4))}[label]
            fh.write(json.dumps({"premise": premise, "hypothesis": hypothesis, "label": label,
                                 "source": f"toy/{i % 2}", "group": str(i), "weight": 1.0}) + "\n")
    return root


def _train(toy: Path, out: Path, *extra: str):
    from rt4chart_training.verifier import train

    return train.main(["--pairs", str(toy), "--base", str(toy / "base"), "--random-init", "--layers", "2",
                       "--max-length", "40", "--batch", "8", "--threads", "1", "--log-seconds", "1",
                       "--out", str(out), *extra])


def _card(run: Path) -> dict:
    return json.loads((run / "run.json").read_text())


def test_a_short_run_trains_exports_and_loads(toy, tmp_path):
    import onnxruntime as ort

    from rt4chart.judges.verifier import Verifier
    from rt4chart_training.verifier import evaluate, export

    run = tmp_path / "run"
    assert _train(toy, run, "--steps", "12", "--minutes", "1") == 0
    card = _card(run)
    assert card["status"] == "complete" and card["steps"] == 12 and card["pairs_seen"] == 96
    assert sum(card["seen"].values()) == 96 and not (run / "checkpoint.pt").exists()
    assert (run / "model.safetensors").is_file() and json.loads((run / "history.json").read_text())

    model = tmp_path / "model"
    assert export.main(["--run", str(run), "--out", str(model), "--threads", "1", "--check-n", "32"]) == 0
    meta = json.loads((model / "verifier.json").read_text())
    assert meta["labels"] == ["entailment", "contradiction", "neutral"] and meta["max_length"] == 40
    assert meta["onnx"]["ir_version"] <= 9 and meta["onnx"]["opset"] <= 17
    check = next(iter(meta["int8_check"].values()))
    assert check["pairs"] == 32 and check["max_abs_diff"] < 0.05

    session = ort.InferenceSession(str(model / "verifier.onnx"), providers=["CPUExecutionProvider"])
    assert [i.name for i in session.get_inputs()] == ["input_ids", "attention_mask", "token_type_ids"]
    verifier = Verifier(model, threads=1)
    pairs = [("the man is sleeping", "the man is not sleeping"), ("a dog", "two red cars are outside the house")] * 3
    probs = verifier.probs(pairs, batch_size=4)
    assert probs.shape == (6, 3) and np.allclose(probs.sum(1), 1.0)
    feed = {k: v for k, v in zip(("input_ids", "attention_mask", "token_type_ids"),
                                 (np.array([[2, 5, 3, 6, 3]]), np.ones((1, 5), dtype=np.int64),
                                  np.array([[0, 0, 0, 1, 1]])))}
    assert session.run(["logits"], feed)[0].shape == (1, 3)

    report = evaluate.main(["--model", str(model), "--sets", str(toy / "pairs-toy.jsonl.gz"), "--threads", "1",
                            "--out", str(tmp_path / "eval")])
    assert report == 0
    assert json.loads((tmp_path / "eval" / "evaluation.json").read_text())["sets"][str(toy / "pairs-toy.jsonl.gz")][
        "n"] == 64


def test_the_time_budget_stops_a_run_and_saves_it(toy, tmp_path):
    run = tmp_path / "run"
    assert _train(toy, run, "--minutes", "0.001") == 0  # less than the time it keeps for saving: one step
    card = _card(run)
    assert card["status"] == "stopped" and card["sessions"][-1]["stopped"] == "time"
    assert card["steps"] >= 1 and card["pairs_seen"] == 8 * card["steps"]
    assert (run / "model.safetensors").is_file() and (run / "checkpoint.pt").is_file()


def test_resume_continues_where_the_run_stopped(toy, tmp_path):
    from safetensors.numpy import load_file

    whole, parts = tmp_path / "whole", tmp_path / "parts"
    _train(toy, whole, "--steps", "10", "--minutes", "1")
    _train(toy, parts, "--steps", "10", "--minutes", "0.001")
    assert _card(parts)["status"] == "stopped" and _card(parts)["steps"] < 10
    with pytest.raises(SystemExit):
        _train(toy, parts, "--steps", "10")  # a run folder is not started over by accident
    from rt4chart_training.verifier import train

    assert train.main(["--out", str(parts), "--resume", "--minutes", "1", "--threads", "1"]) == 0
    card = _card(parts)
    assert card["status"] == "complete" and card["steps"] == 10 and len(card["sessions"]) == 2
    a, b = load_file(str(whole / "model.safetensors")), load_file(str(parts / "model.safetensors"))
    assert a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)  # the same as uninterrupted


def test_a_verifier_run_can_be_the_base_of_another(toy, tmp_path):
    """A run folder as ``--base`` gives its encoder (the next run starts from it), not its 3-way head."""
    from safetensors.torch import load_file

    first = tmp_path / "first"
    assert _train(toy, first, "--steps", "4", "--minutes", "1") == 0
    from rt4chart_training.verifier import train

    second = tmp_path / "second"
    assert train.main(["--pairs", str(toy), "--base", str(first), "--layers", "2", "--max-length", "40", "--batch", "8",
                       "--threads", "1", "--steps", "1", "--lr", "1e-12", "--minutes", "1", "--out", str(second)]) == 0
    a, b = load_file(str(first / "model.safetensors")), load_file(str(second / "model.safetensors"))
    key = "bert.embeddings.word_embeddings.weight"
    assert np.allclose(a[key].numpy(), b[key].numpy(), atol=1e-6)  # the encoder came from the first run
