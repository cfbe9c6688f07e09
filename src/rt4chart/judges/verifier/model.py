"""The verifier's model: an ONNX cross-encoder over (premise, hypothesis) = (evidence text, claim) pairs giving
P(entailment), P(contradiction), P(neutral).

A model folder holds ``verifier.onnx`` (inputs ``input_ids``, ``attention_mask``, ``token_type_ids``, int64
``[batch, seq]``; output ``logits``, float32 ``[batch, 3]``), ``verifier_tokenizer.json`` (a ``tokenizers`` file) and
the card ``verifier.json`` (``labels``, ``max_length``, and the sha256 of each file under ``files``, checked on load).
The shipped model lies in the judges' models folder (``runtime.model_dir()``) beside the local judge's files.
Pairs are encoded ``[CLS] premise [SEP] hypothesis [SEP]`` (token types 0 then 1) by ``encode_pairs``, which training
uses too, so the model is trained on the inputs it is run on. Runtime: numpy, onnxruntime and tokenizers only.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Optional, Sequence

import numpy as np

from ...errors import ConfigError, MissingDependencyError
from ..runtime import cpu_session, model_dir, plain_tokenizer

MODEL = "verifier.onnx"
TOKENIZER = "verifier_tokenizer.json"
CARD = "verifier.json"
#: the output columns of ``logits`` and of ``Verifier.probs``, in this order
LABELS = ("entailment", "contradiction", "neutral")
INPUTS = ("input_ids", "attention_mask", "token_type_ids")
OUTPUT = "logits"
#: the longest input the MiniLM encoder takes (its position embeddings)
MAX_POSITIONS = 512
RETRAIN = "the rt4chart_training.verifier modules (python3 -m rt4chart_training.verifier.<module>)"


def sha256_of(path: Path) -> str:
    """The hex sha256 of a file's bytes (what the card's ``files`` hold)."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def read_card(directory: Path) -> dict[str, Any]:
    """The card of the model folder ``directory``, checked: the three files present, each file the card lists
    matching its sha256 (the model and the tokenizer must be listed), ``labels`` in ``LABELS`` order, ``max_length``
    an integer from 8 to ``MAX_POSITIONS``. Anything else is a ``ConfigError`` naming the folder and the file."""
    missing = [name for name in (CARD, MODEL, TOKENIZER) if not (directory / name).is_file()]
    if missing:
        raise ConfigError(f"the verifier folder {directory} has no {', '.join(missing)}; "
                          f"train and export one with {RETRAIN}")
    try:
        card = json.loads((directory / CARD).read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigError(f"{directory / CARD} is not a JSON file: {exc}") from exc
    if not isinstance(card, dict):
        raise ConfigError(f"{directory / CARD} holds {type(card).__name__}, not a JSON object")
    labels = card.get("labels")
    if labels != list(LABELS):
        raise ConfigError(f"{directory / CARD} gives the labels {labels!r}; the verifier's output columns must be "
                          f"{list(LABELS)!r}, in that order")
    max_length = card.get("max_length")
    if isinstance(max_length, bool) or not isinstance(max_length, int) or not 8 <= max_length <= MAX_POSITIONS:
        raise ConfigError(f"{directory / CARD}: max_length must be an integer from 8 to {MAX_POSITIONS}, "
                          f"got {max_length!r}")
    files = card.get("files")
    if not isinstance(files, dict):
        raise ConfigError(f"{directory / CARD} has no 'files' object (each file's sha256)")
    unlisted = [name for name in (MODEL, TOKENIZER) if name not in files]
    if unlisted:
        raise ConfigError(f"{directory / CARD} gives no sha256 for {', '.join(unlisted)}")
    for name, want in files.items():
        path = directory / name
        if not path.is_file():
            raise ConfigError(f"the verifier folder {directory} has no {name}, which its card {CARD} lists")
        got = sha256_of(path)
        if got != want:
            raise ConfigError(f"{path} does not match its card {CARD}: sha256 {got}, the card says {want!r}; "
                              f"the files of {directory} are not the ones exported together")
    return card


def encode_pairs(tokenizer: Any, pairs: Sequence[tuple[str, str]], max_length: int) -> list[tuple[list[int], int]]:
    """Each ``(premise, hypothesis)`` pair's token ids ``[CLS] premise [SEP] hypothesis [SEP]`` and where the
    hypothesis part starts (token types are 0 before it, 1 from it on). At most ``max_length`` tokens: the premise is
    cut (its end dropped) to make room; the hypothesis is kept whole unless it alone does not fit, and then its end is
    dropped too (the premise is then empty). ``tokenizer`` is a ``tokenizers.Tokenizer`` with ``[CLS]`` and ``[SEP]``
    (its own truncation, padding and special tokens are not used)."""
    if max_length < 3:
        raise ConfigError(f"max_length must be at least 3 (the special tokens), got {max_length}")
    if not pairs:
        return []
    cls, sep = tokenizer.token_to_id("[CLS]"), tokenizer.token_to_id("[SEP]")
    if cls is None or sep is None:
        raise ConfigError("the verifier's tokenizer has no [CLS] or [SEP] token")
    encode = getattr(tokenizer, "encode_batch_fast", tokenizer.encode_batch)  # ids only: no character offsets
    premises = encode([p for p, _ in pairs], add_special_tokens=False)
    hypotheses = encode([h for _, h in pairs], add_special_tokens=False)
    room = max_length - 3
    out = []
    for p, h in zip(premises, hypotheses):
        hyp = h.ids[:room]
        prem = p.ids[:room - len(hyp)]
        out.append(([cls, *prem, sep, *hyp, sep], len(prem) + 2))
    return out


def batch_arrays(encoded: Sequence[tuple[list[int], int]], pad_id: int) -> dict[str, np.ndarray]:
    """The graph inputs of encoded pairs (``encode_pairs``), padded with ``pad_id`` to the longest of them."""
    width = max(len(ids) for ids, _ in encoded)
    ids = np.full((len(encoded), width), pad_id, dtype=np.int64)
    mask = np.zeros((len(encoded), width), dtype=np.int64)
    types = np.zeros((len(encoded), width), dtype=np.int64)
    for row, (token_ids, second) in enumerate(encoded):
        n = len(token_ids)
        ids[row, :n] = token_ids
        mask[row, :n] = 1
        types[row, second:n] = 1
    return {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}


def softmax(logits: np.ndarray) -> np.ndarray:
    """Row-wise softmax in float64."""
    z = np.asarray(logits, dtype=np.float64)
    z = np.exp(z - z.max(axis=1, keepdims=True))
    return z / z.sum(axis=1, keepdims=True)


class Verifier:
    """The verifier model of a folder (``MODEL``, ``TOKENIZER``, ``CARD``; the card is checked on load,
    ``read_card``). ``threads`` sizes onnxruntime's intra-op pool (default: the CPU count, at most 4).
    ``probs`` is safe to call from several threads."""

    def __init__(self, directory: Path, *, threads: Optional[int] = None) -> None:
        directory = Path(directory)
        self.directory = directory
        self.card = read_card(directory)
        self.max_length: int = self.card["max_length"]
        self.tokenizer = plain_tokenizer(directory / TOKENIZER)
        pad = self.tokenizer.token_to_id("[PAD]")
        self.pad_id = 0 if pad is None else pad
        try:
            self.session = cpu_session(directory / MODEL, threads)
        except MissingDependencyError:
            raise
        except Exception as exc:  # onnxruntime's errors (a file it cannot parse or run) derive from Exception alone
            raise ConfigError(f"onnxruntime cannot load {directory / MODEL}: {exc}") from exc
        names = [i.name for i in self.session.get_inputs()]
        unknown = [n for n in names if n not in INPUTS]
        if unknown or "input_ids" not in names:
            raise ConfigError(f"{directory / MODEL} takes the inputs {names}; a verifier takes {list(INPUTS)}")
        self.inputs = tuple(names)
        outputs = [o.name for o in self.session.get_outputs()]
        if OUTPUT not in outputs:
            raise ConfigError(f"{directory / MODEL} has the outputs {outputs}, not {OUTPUT!r}")

    def __repr__(self) -> str:
        return f"Verifier({str(self.directory)!r}, max_length={self.max_length})"

    def encode(self, pairs: Sequence[tuple[str, str]]) -> list[tuple[list[int], int]]:
        """``encode_pairs`` with this model's tokenizer and ``max_length``."""
        return encode_pairs(self.tokenizer, pairs, self.max_length)

    def probs(self, pairs: Sequence[tuple[str, str]], *, batch_size: int = 16) -> np.ndarray:
        """An ``(n, 3)`` float64 array: each ``(premise, hypothesis)`` pair's P(entailment), P(contradiction),
        P(neutral), in input order. Pairs are run ``batch_size`` at a time, sorted by length and each batch padded to
        its longest (so a short pair is not padded to a long one)."""
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise ConfigError(f"batch_size must be a positive integer, got {batch_size!r}")
        out = np.zeros((len(pairs), len(LABELS)), dtype=np.float64)
        if not len(pairs):
            return out
        encoded = self.encode(pairs)
        order = np.argsort([len(ids) for ids, _ in encoded], kind="stable")
        for start in range(0, len(order), batch_size):
            rows = order[start:start + batch_size]
            feed = batch_arrays([encoded[i] for i in rows], self.pad_id)
            logits = self.session.run([OUTPUT], {name: feed[name] for name in self.inputs})[0]
            if logits.shape != (len(rows), len(LABELS)):
                raise ConfigError(f"{self.directory / MODEL} gave logits of shape {logits.shape} for "
                                  f"{len(rows)} pairs; a verifier gives ({len(rows)}, {len(LABELS)})")
            out[rows] = softmax(logits)
        return out


def is_available(directory: Optional[Path] = None) -> bool:
    """True when ``directory`` (default: the shipped models folder, ``runtime.model_dir()``) holds the verifier's
    three files (their card is checked only by ``Verifier``)."""
    d = Path(directory) if directory is not None else model_dir()
    return all((d / name).is_file() for name in (CARD, MODEL, TOKENIZER))
