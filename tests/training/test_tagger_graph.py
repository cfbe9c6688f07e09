"""training.tagger_graph: the attention fusion that the tagger's export applies before quantizing."""

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from training.tagger_graph import fuse_attention, last_layer_rows

HEADS, DIM = 2, 4
HIDDEN = HEADS * DIM


def attention_model(*, scale_op: str = "Mul", softmax_axis: int = -1, probs_out: bool = False) -> onnx.ModelProto:
    """A one-layer self-attention written as the PyTorch export writes it: projections, then Reshape/Transpose per
    head, MatMul, scale, Softmax, MatMul, Transpose, Reshape (the head shape built from the input's shape)."""
    rng = np.random.RandomState(0)
    inits = [numpy_helper.from_array(rng.randn(HIDDEN, HIDDEN).astype(np.float32), f"W{n}") for n in "qkv"]
    inits += [numpy_helper.from_array(rng.randn(HIDDEN).astype(np.float32), f"b{n}") for n in "qkv"]
    inits += [numpy_helper.from_array(np.array([0], dtype=np.int64), "zero"),
              numpy_helper.from_array(np.array([1], dtype=np.int64), "one"),
              numpy_helper.from_array(np.array([HEADS, DIM], dtype=np.int64), "heads"),
              numpy_helper.from_array(np.array([HIDDEN], dtype=np.int64), "hidden")]
    s = 1 / np.sqrt(DIM)
    nodes = [helper.make_node("Shape", ["x"], ["shape"]),
             helper.make_node("Gather", ["shape", "zero"], ["batch"], axis=0),
             helper.make_node("Gather", ["shape", "one"], ["length"], axis=0),
             helper.make_node("Concat", ["batch", "length", "heads"], ["split"], axis=0),
             helper.make_node("Concat", ["batch", "length", "hidden"], ["merge"], axis=0),
             helper.make_node("Constant", [], ["scale"], value=helper.make_tensor(
                 "scale", TensorProto.FLOAT, [], [s if scale_op == "Mul" else 1 / s]))]
    for n in "qkv":
        nodes += [helper.make_node("MatMul", ["x", f"W{n}"], [f"{n}m"]),
                  helper.make_node("Add", [f"b{n}", f"{n}m"], [f"{n}a"]),
                  helper.make_node("Reshape", [f"{n}a", "split"], [f"{n}r"]),
                  helper.make_node("Transpose", [f"{n}r"], [f"{n}t"], perm=[0, 2, 3, 1] if n == "k" else [0, 2, 1, 3])]
    nodes += [helper.make_node("MatMul", ["qt", "kt"], ["scores"]),
              helper.make_node(scale_op, ["scores", "scale"], ["scaled"]),
              helper.make_node("Softmax", ["scaled"], ["probs"], axis=softmax_axis),
              helper.make_node("MatMul", ["probs", "vt"], ["ctx"]),
              helper.make_node("Transpose", ["ctx"], ["ctxt"], perm=[0, 2, 1, 3]),
              helper.make_node("Reshape", ["ctxt", "merge"], ["attn"]),
              helper.make_node("Add", ["attn", "x"], ["y"])]
    outputs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, None, HIDDEN])]
    if probs_out:
        outputs.append(helper.make_tensor_value_info("probs", TensorProto.FLOAT, None))
    graph = helper.make_graph(nodes, "attention", [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                                                [1, None, HIDDEN])], outputs, inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def run(model: onnx.ModelProto, x: np.ndarray) -> np.ndarray:
    s = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return s.run(["y"], {"x": x})[0]


@pytest.mark.parametrize("scale_op", ["Mul", "Div"])
def test_fused_attention_computes_what_the_plain_ops_compute(scale_op):
    x = np.random.RandomState(1).randn(1, 7, HIDDEN).astype(np.float32)
    model = attention_model(scale_op=scale_op)
    want = run(model, x)
    assert fuse_attention(model, HEADS) == 1
    ops = [n.op_type for n in model.graph.node]
    assert ops.count("MultiHeadAttention") == 1
    # the per-head plumbing and the shape arithmetic that only fed it are gone; the projections stay
    assert not {"Softmax", "Transpose", "Reshape", "Concat", "Gather", "Shape", "Constant"} & set(ops)
    assert ops.count("MatMul") == 3 and ops.count("Add") == 4
    assert {i.name for i in model.graph.initializer} == {"Wq", "Wk", "Wv", "bq", "bk", "bv"}
    np.testing.assert_allclose(run(model, x), want, atol=1e-5)


def test_a_pattern_it_cannot_replace_exactly_is_left_alone():
    x = np.random.RandomState(2).randn(1, 5, HIDDEN).astype(np.float32)
    for model in (attention_model(softmax_axis=2), attention_model(probs_out=True)):
        before = model.SerializeToString()
        assert fuse_attention(model, HEADS) == 0
        assert model.SerializeToString() == before
        run(model, x)


def test_the_last_layer_computes_the_rows_asked_for_and_nothing_else_changes():
    x = np.random.RandomState(3).randn(1, 9, HIDDEN).astype(np.float32)
    model = attention_model()
    assert fuse_attention(model, HEADS) == 1
    full = run(model, x)
    last_layer_rows(model)
    onnx.checker.check_model(model)
    assert [i.name for i in model.graph.input] == ["x", "positions"]
    s = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    for rows in ([0, 4, 8], [7, 2], [5]):
        pos = np.array(rows, dtype=np.int64)
        # the keys and values still read every token: each asked-for row is the full graph's row
        np.testing.assert_allclose(s.run(["y"], {"x": x, "positions": pos})[0], full[:, pos], atol=1e-5)


def test_the_row_cut_needs_a_fused_attention():
    with pytest.raises(ValueError, match="fuse the attention first"):
        last_layer_rows(attention_model())


def _logits_model(rows: bool) -> bytes:
    """A stand-in tagger: logits (1, n, 2) = (ids / 10000, token type), the second graph with a ``positions`` input that
    picks rows, as the shipped tagger's last layer does."""
    nodes = [helper.make_node("Cast", ["input_ids"], ["f"], to=TensorProto.FLOAT),
             helper.make_node("Cast", ["token_type_ids"], ["t"], to=TensorProto.FLOAT),
             helper.make_node("Div", ["f", "scale"], ["z0"]),
             helper.make_node("Unsqueeze", ["z0", "axes"], ["a"]), helper.make_node("Unsqueeze", ["t", "axes"], ["b"]),
             helper.make_node("Concat", ["a", "b"], ["all" if rows else "logits"], axis=2)]
    inputs = [helper.make_tensor_value_info(n, TensorProto.INT64, [1, None]) for n in ("input_ids", "token_type_ids")]
    if rows:
        nodes.append(helper.make_node("Gather", ["all", "positions"], ["logits"], axis=1))
        inputs.append(helper.make_tensor_value_info("positions", TensorProto.INT64, [None]))
    inits = [numpy_helper.from_array(np.array(10000.0, dtype=np.float32), "scale"),
             numpy_helper.from_array(np.array([2], dtype=np.int64), "axes")]
    graph = helper.make_graph(nodes, "logits", inputs, [helper.make_tensor_value_info("logits", TensorProto.FLOAT,
                                                                                     None)], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString()


def test_the_tagger_reads_the_claim_rows_from_either_kind_of_graph():
    from rt4chart.judges.local import LocalJudge

    tagger = LocalJudge()._models.tagger
    shipped = tagger.session
    enc = tagger.encoder.encode(None, ["The trial lasts 14 days."], "It lasts 30 days.")
    try:
        got = []
        for rows in (False, True):
            tagger.session = ort.InferenceSession(_logits_model(rows), providers=["CPUExecutionProvider"])
            assert tagger.rows_input is rows
            got.append(tagger.probabilities(enc))
    finally:
        tagger.session = shipped
    want = 1 / (1 + np.exp(-(enc.types[enc.positions] - enc.ids[enc.positions] / 10000)))
    assert len(want) == 5 and want.std() > 0.01
    np.testing.assert_allclose(got[0], want, atol=1e-6)
    np.testing.assert_allclose(got[1], want, atol=1e-6)
    assert tagger.rows_input


def test_the_shipped_tagger_runs_fused_attention_and_its_last_layer_for_the_claim_rows():
    from rt4chart.judges.local import model_dir
    from rt4chart.judges.local.tagger import ROWS_INPUT, TAGGER_MODEL

    model = onnx.load(str(model_dir() / TAGGER_MODEL))
    ops = [n.op_type for n in model.graph.node]
    assert ops.count("MultiHeadAttention") == 6 and "Softmax" not in ops
    assert [i.name for i in model.graph.input] == ["input_ids", "token_type_ids", ROWS_INPUT]
