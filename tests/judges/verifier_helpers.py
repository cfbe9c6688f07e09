"""A tiny verifier model folder for the verifier's tests (``test_verifier.py``, ``test_verifier_judge.py``), built
with the ``onnx`` package: a token embedding table (plus a token-type table) averaged over the attention mask, then a
3-way MatMul. Chosen words push a label wherever they are read (by default "never" contradiction and "indeed"
entailment); every other token is small noise, and with none of them the bias makes it neutral."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any, Mapping, Optional

import numpy as np
import pytest

from rt4chart.judges import runtime
from rt4chart.judges.verifier import model as M

onnx = pytest.importorskip("onnx")

TOKENIZER = runtime.model_dir() / "local_tagger_tokenizer.json"  # the MiniLM WordPiece tokenizer, as shipped
HIDDEN = 8
ENTAILMENT, CONTRADICTION, NEUTRAL = range(3)
#: word -> the (entailment, contradiction, neutral) push of its token
PUSHES = {"never": (0.0, 40.0, 0.0), "indeed": (40.0, 0.0, 0.0)}


def token_ids(*words: str) -> list[int]:
    """The tokenizer's ids of single-token words."""
    tok = runtime.plain_tokenizer(TOKENIZER)
    return [tok.token_to_id(w) for w in words]


def tiny_model(pushes: Optional[Mapping[str, tuple[float, float, float]]] = None) -> Any:
    """The tiny verifier graph (IR 9, opset 17, as shipped files must be); ``pushes``: word -> the logits its token
    adds before averaging (default ``PUSHES``)."""
    helper, numpy_helper, tp = onnx.helper, onnx.numpy_helper, onnx.TensorProto
    pushes = PUSHES if pushes is None else pushes
    rng = np.random.default_rng(0)
    emb = rng.normal(0.0, 0.05, (30522, HIDDEN)).astype(np.float32)
    for word, push in pushes.items():
        [token] = token_ids(word)
        emb[token, :3] = push
    types = rng.normal(0.0, 0.05, (2, HIDDEN)).astype(np.float32)
    head = np.zeros((HIDDEN, 3), dtype=np.float32)
    head[:3] = np.eye(3)
    head[3:] = rng.normal(0.0, 0.5, (HIDDEN - 3, 3))
    bias = np.array([0.0, 0.0, 0.5], dtype=np.float32)
    inits = [numpy_helper.from_array(a, n) for a, n in [
        (emb, "emb"), (types, "types"), (head, "head"), (bias, "bias"),
        (np.array([1], np.int64), "seq_axis"), (np.array([-1], np.int64), "last_axis")]]
    nodes = [
        helper.make_node("Gather", ["emb", "input_ids"], ["tok"]),
        helper.make_node("Gather", ["types", "token_type_ids"], ["typ"]),
        helper.make_node("Add", ["tok", "typ"], ["x"]),
        helper.make_node("Cast", ["attention_mask"], ["mask_f"], to=tp.FLOAT),
        helper.make_node("Unsqueeze", ["mask_f", "last_axis"], ["m"]),
        helper.make_node("Mul", ["x", "m"], ["xm"]),
        helper.make_node("ReduceSum", ["xm", "seq_axis"], ["total"], keepdims=0),
        helper.make_node("ReduceSum", ["m", "seq_axis"], ["count"], keepdims=0),
        helper.make_node("Div", ["total", "count"], ["pooled"]),
        helper.make_node("MatMul", ["pooled", "head"], ["z"]),
        helper.make_node("Add", ["z", "bias"], ["logits"]),
    ]
    inputs = [helper.make_tensor_value_info(n, tp.INT64, ["batch", "seq"]) for n in M.INPUTS]
    output = helper.make_tensor_value_info("logits", tp.FLOAT, ["batch", 3])
    graph = helper.make_graph(nodes, "tiny_verifier", inputs, [output], initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 9
    onnx.checker.check_model(model)
    return model


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def write_card(folder: Path, **changes: Any) -> None:
    """The card of a folder's model and tokenizer (``changes`` replace or add fields)."""
    card = {"labels": list(M.LABELS), "max_length": 64, "layers": 0, "base": "tiny test graph",
            "files": {M.MODEL: sha(folder / M.MODEL), M.TOKENIZER: sha(folder / M.TOKENIZER)}}
    card.update(changes)
    (folder / M.CARD).write_text(json.dumps(card))


def write_folder(folder: Path, model_bytes: bytes, **card: Any) -> Path:
    """A verifier model folder in ``folder``: the serialised graph, the tokenizer and their card."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / M.MODEL).write_bytes(model_bytes)
    shutil.copyfile(TOKENIZER, folder / M.TOKENIZER)
    write_card(folder, **card)
    return folder
