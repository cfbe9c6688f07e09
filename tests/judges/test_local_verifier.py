"""The claim verifier's inputs and outputs, and how the local judge's models name it (``judges.local.verifier``)."""

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from rt4chart.errors import ConfigError
from rt4chart.judges import local
from rt4chart.judges.local import models as M
from rt4chart.judges.local import rules as R
from rt4chart.judges.local import verifier as V


@pytest.fixture(scope="module")
def encoder():
    return V.PairEncoder(local.model_dir() / V.TOKENIZER, max_len=24)


def test_a_pair_is_cls_premise_sep_claim_sep_and_the_premise_is_cut_first(encoder):
    (ids, types), = encoder.encode(["The trial lasts fourteen days and costs nothing at all for new users " * 3],
                                   ["The trial lasts 14 days."])
    claim = encoder.tok.encode("The trial lasts 14 days.", add_special_tokens=False).ids
    assert len(ids) == 24 and ids[0] == encoder.cls and ids[-1] == encoder.sep
    assert ids[-len(claim) - 1:-1] == claim  # the claim is whole, the premise cut to fit
    assert types == [0] * (24 - len(claim) - 1) + [1] * (len(claim) + 1)


def _toy_model(path):
    """An ONNX graph with the verifier's inputs whose logits are (tokens, claim tokens, premise tokens) of each
    pair: enough to see that every probability row belongs to its own pair."""
    import onnx
    from onnx import TensorProto, helper

    inputs = [helper.make_tensor_value_info(n, TensorProto.INT64, ["b", "t"]) for n in
              ("input_ids", "token_type_ids", "attention_mask")]
    axes = helper.make_tensor("axes", TensorProto.INT64, [1], [1])
    nodes = [helper.make_node("Cast", ["attention_mask"], ["m"], to=TensorProto.FLOAT),
             helper.make_node("Cast", ["token_type_ids"], ["t"], to=TensorProto.FLOAT),
             helper.make_node("ReduceSum", ["m", "axes"], ["n"], keepdims=1),
             helper.make_node("ReduceSum", ["t", "axes"], ["c"], keepdims=1),
             helper.make_node("Sub", ["n", "c"], ["p"]),
             helper.make_node("Concat", ["n", "c", "p"], ["logits"], axis=1)]
    graph = helper.make_graph(nodes, "toy", inputs, [helper.make_tensor_value_info("logits", TensorProto.FLOAT,
                                                                                    ["b", 3])], [axes])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))


def test_the_verifier_gives_each_pair_its_own_row(tmp_path):
    pytest.importorskip("onnx")
    shutil.copy(local.model_dir() / V.TOKENIZER, tmp_path / V.TOKENIZER)
    _toy_model(tmp_path / V.VERIFIER_MODEL)
    (tmp_path / V.VERIFIER_CARD).write_text(json.dumps({"version": "toy", "max_len": 64}))
    assert V.is_available(tmp_path)
    verifier = V.Verifier(tmp_path, 1)
    premises = ["A long premise about the trial, its price and who may join it. " * 2, "Short.", "Two words here."]
    claims = ["It is free.", "The trial lasts fourteen days for every new user.", "Yes."]
    got = verifier.probabilities(premises, claims)
    for (ids, types), row in zip(verifier.encoder.encode(premises, claims), got):
        logits = np.array([len(ids), sum(types), len(ids) - sum(types)], dtype=float)
        assert np.allclose(row, np.exp(logits - logits.max()) / np.exp(logits - logits.max()).sum())
    assert verifier.probabilities([], []).shape == (0, 3)


def test_the_calibrator_reads_the_verifier_columns_its_card_names():
    matrix = np.arange(2 * len(local.features.CLAIM_MODEL_FEATURES), dtype=float).reshape(2, -1)
    verdicts = V.Verdicts(np.array([[0.7, 0.2, 0.1], [0.1, 0.3, 0.6]]), [(0,), ()], [(0,), ()])
    rows = M.calibrator_rows(np.array([0.4, 0.9]), matrix, ("claim_p", "c_found_frac", "v_contradiction"), verdicts)
    col = local.features.CLAIM_MODEL_FEATURES.index("c_found_frac")
    assert np.allclose(rows, [[0.4, matrix[0, col], 0.1], [0.9, matrix[1, col], 0.6]])


def test_a_short_context_calibrator_that_reads_a_missing_verifier_is_a_clear_error(tmp_path):
    from sklearn.ensemble import HistGradientBoostingClassifier

    from training.local_judge_onnx import export

    d = tmp_path / "models"
    shutil.copytree(local.model_dir(), d, ignore=shutil.ignore_patterns(V.VERIFIER_MODEL))
    rng = np.random.default_rng(0)
    x = rng.random((200, 2))
    fitted = HistGradientBoostingClassifier(max_iter=5).fit(x, (x[:, 0] > x[:, 1]).astype(int))
    export(fitted, 2, d / local.CALIBRATOR_SHORT)
    card = json.loads((d / local.CARD).read_text())
    card["short_calibrator"] = {"features": ["claim_p", "v_entailment"], "below_chars": 665}
    (d / local.CARD).write_text(json.dumps(card))
    with pytest.raises(ConfigError, match=V.VERIFIER_MODEL):
        local.LocalJudge(model_dir=d)


def test_a_claim_is_read_against_its_best_sentences_each_with_the_one_before_and_a_short_text_whole():
    long = ["A" * 300, "B" * 300, "C" * 300, "D" * 300]
    assert V.windows(long, [2, 0, 3, 1]) == [(1, 2), (0,), (2, 3)]  # the best three, each with the one before
    assert V.windows(long, [1, 0], k=1) == [(0, 1)]
    assert V.windows(["One.", "Two.", "Three."], [2]) == [(1, 2), (0, 1, 2)]  # short: the whole text as well
    assert V.windows(["One.", "Two."], []) == [(0, 1)]  # no sentence covers it: the first ones
    assert V.windows([], []) == []


class _Scripted:
    """A verifier whose P(entailment) is 0.9 for a premise holding "open" and a claim saying it opens, else 0.1;
    P(contradiction) 0.8 for a premise holding "closed"."""

    def probabilities(self, premises, claims):
        rows = []
        for p, c in zip(premises, claims):
            ent = 0.9 if "open" in p and "open" in c else 0.1
            con = 0.8 if "closed" in p else 0.05
            rows.append((ent, 1.0 - ent - con if ent + con < 1 else 0.0, con))
        return np.array(rows)


def test_the_window_of_highest_entailment_decides_and_contradiction_is_the_highest_of_any_window():
    texts = ["The museum is closed on Mondays." + " x" * 300, "Tickets cost 5 euros." + " y" * 300,
             "It is open on Sundays." + " z" * 300]
    got = V.read_windows(_Scripted(), texts, [[0, 2], [1]], ["The museum is open on Sundays.", "Tickets are free."])
    assert got.decided == [(1, 2), (0, 1)] and got.against[0] == (0,)
    assert np.allclose(got.columns[0], [0.9, 0.05, 0.8])  # entailed in (1, 2); sentence 0 says "closed"
    assert np.allclose(got.columns[1, [0, 2]], [0.1, 0.8])


def test_a_pair_reads_the_same_beside_others_as_alone(tmp_path):
    """An int8 graph quantizes activations over its whole batch; the toy graph's logits likewise read the longest
    pair of the batch, so they differ unless each pair runs alone."""
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper

    shutil.copy(local.model_dir() / V.TOKENIZER, tmp_path / V.TOKENIZER)
    inputs = [helper.make_tensor_value_info(n, TensorProto.INT64, ["b", "t"]) for n in
              ("input_ids", "token_type_ids", "attention_mask")]
    axes = helper.make_tensor("axes", TensorProto.INT64, [1], [1])
    nodes = [helper.make_node("Cast", ["attention_mask"], ["m"], to=TensorProto.FLOAT),
             helper.make_node("ReduceSum", ["m", "axes"], ["n"], keepdims=1),
             helper.make_node("ReduceMax", ["n"], ["top"], keepdims=1),
             helper.make_node("Div", ["n", "top"], ["r"]),
             helper.make_node("Concat", ["r", "n", "top"], ["logits"], axis=1)]
    graph = helper.make_graph(nodes, "batchwide", inputs,
                              [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["b", 3])], [axes])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(tmp_path / V.VERIFIER_MODEL))
    (tmp_path / V.VERIFIER_CARD).write_text(json.dumps({"version": "toy", "max_len": 64}))
    verifier = V.Verifier(tmp_path, 1)
    alone = verifier.probabilities(["Short."], ["Yes."])
    beside = verifier.probabilities(["Short.", "A much longer premise with many more words in it."],
                                    ["Yes.", "The claim is longer too."])
    assert np.allclose(beside[0], alone[0])


RECORDED = Path(__file__).parent / "data" / "verifier_recorded.json"


def test_the_shipped_verifier_gives_the_recorded_probabilities():
    """python3 -m training.verifier_probes --model-dir src/rt4chart/judges/models --record
    tests/judges/data/verifier_recorded.json wrote them with the shipped verifier; each pair is read alone, so
    onnxruntime's int8 kernels give the same numbers up to rounding on any x86 machine."""
    recorded = json.loads(RECORDED.read_text())
    verifier = V.Verifier(local.model_dir(), 1)
    assert verifier.card["version"] == recorded["version"]
    pairs = recorded["pairs"]
    got = verifier.probabilities([p["premise"] for p in pairs], [p["claim"] for p in pairs])
    assert np.allclose(got, [p["probabilities"] for p in pairs], atol=0.02)
    # the faithful twin of each recorded probe (even rows) is read as more entailed than its changed twin, where
    # the recording says so
    for faithful, changed, f_rec, c_rec in zip(got[::2], got[1::2], pairs[::2], pairs[1::2]):
        assert (faithful[0] > changed[0]) == (f_rec["probabilities"][0] > c_rec["probabilities"][0])


@pytest.mark.parametrize("entailment, quoted", [(0.9, True), (0.3, False)])
def test_an_entailed_claim_no_sentence_holds_takes_the_verifiers_window_as_evidence(entailment, quoted):
    from rt4chart.judges.local.judge import Scores
    from rt4chart.types import Claim, Label, Span

    judge = local.LocalJudge()
    context = "The library lends up to 8 books at a time. It is closed on Sundays."
    # a long answer (past the rules that decide a short one's unseen claims), its last claim in other words
    texts = ["The library lends up to 8 books at a time."] * (R.TYPED_MAX_CLAIMS + 1) + \
        ["Patrons may take home several volumes simultaneously."]
    claims = [Claim(text=t, index=i, sentence_index=i, answer_spans=(Span(start=0, end=len(t)),))
              for i, t in enumerate(texts)]
    ev = judge.evidence(context)
    rows = judge.rows(claims, ev, None)
    assert rows[-1].assessment is None or not rows[-1].assessment.order  # no sentence shares its words
    n = len(claims)
    verdicts = V.Verdicts(np.array([[0.9, 0.05, 0.05]] * (n - 1) + [[entailment, 0.05, 0.05]]), [(0,)] * n,
                          [(1,)] * n)
    scores = Scores(rows, [np.zeros(len(r.spans)) for r in rows], np.full(n, 0.05), np.zeros(n, dtype=bool),
                    tagged=False, verdicts=verdicts)
    judged = judge._judgments(claims, ev, scores)[-1]
    assert judged.label == Label.ENTAILED
    if quoted:
        assert judged.evidence == ("The library lends up to 8 books at a time.",) and judged.evidence_ids == ((0,),)
        assert "claim verifier reads it in the evidence (P(entailment)=0.90)" in judged.reason
    else:
        assert judged.evidence == () and "verifier" not in judged.reason


def test_one_reading_names_the_risk_columns_the_flag_kind_and_the_quoted_window():
    verdicts = V.Verdicts(np.array([[0.8, 0.1, 0.2], [0.1, 0.3, 0.6], [0.6, 0.3, 0.1]]), [(1, 2), (0,), ()],
                          [(0,), (3,), ()])
    assert np.allclose(verdicts.entailment, [0.8, 0.1, 0.6]) and np.allclose(verdicts.contradiction, [0.2, 0.6, 0.1])
    assert [verdicts.says_otherwise(i) for i in range(3)] == [False, True, False]
    # read in the evidence: P(entailment) at ENTAILS or above, and a window that decided (none: nothing to quote)
    assert [verdicts.reads_in(i) for i in range(3)] == [True, False, False]


def test_a_blended_short_calibrator_keeps_the_trees_risk_where_a_number_is_missing():
    short, trees = np.array([0.2, 0.2, 0.9]), np.array([0.6, 0.6, 0.1])
    got = M.blend_short(short, trees, 0.5, np.array([False, True, True]))
    assert np.allclose(got, [0.4, 0.6, 0.5])
    assert np.allclose(M.blend_short(short, trees, 1.0, np.array([False, True, False])), [0.2, 0.6, 0.9])
