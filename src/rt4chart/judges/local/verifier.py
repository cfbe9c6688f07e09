"""The claim verifier: all-MiniLM-L6-v2 fine-tuned as a cross-encoder on NLI pairs (``[CLS] premise [SEP] claim
[SEP]`` -> entailment / neutral / contradiction; ``python -m training.train_nli_verifier``), int8 ONNX. The
short-context calibrators read its probabilities (``COLUMNS``) when their card names them: a claim against a context
shorter than almost every RAGTruth context, read against the whole context. Longer contexts never run it.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any, Optional, Sequence

import numpy as np

from ..runtime import cpu_session, plain_tokenizer

VERIFIER_MODEL = "local_verifier.onnx"
VERIFIER_CARD = "local_verifier.json"
#: the tokenizer: the base model's, which the tagger ships too
TOKENIZER = "local_tagger_tokenizer.json"
#: the calibrator columns it gives, one per label, in the model's label order
COLUMNS = ("v_entailment", "v_neutral", "v_contradiction")
#: the graph's inputs: token ids, token types, attention mask
INPUTS = ("input_ids", "token_type_ids", "attention_mask")
MAX_LEN = 160
BATCH = 32


class PairEncoder:
    """``[CLS] premise [SEP] claim [SEP]`` token ids and token types: the claim keeps up to half of ``max_len``
    tokens, the premise what is left (cut at its end). Training builds its inputs here too."""

    def __init__(self, tokenizer_file: "str | Path", max_len: int = MAX_LEN) -> None:
        self.tok = plain_tokenizer(tokenizer_file)
        self.cls, self.sep = self.tok.token_to_id("[CLS]"), self.tok.token_to_id("[SEP]")
        self.max_len = max_len

    def encode(self, premises: Sequence[str], claims: Sequence[str]) -> list[tuple[list[int], list[int]]]:
        ps = self.tok.encode_batch(list(premises), add_special_tokens=False)
        cs = self.tok.encode_batch(list(claims), add_special_tokens=False)
        out = []
        for p, c in zip(ps, cs):
            c_ids = c.ids[: self.max_len // 2]
            p_ids = p.ids[: max(self.max_len - len(c_ids) - 3, 0)]
            types = [0] * (len(p_ids) + 2) + [1] * (len(c_ids) + 1)
            out.append(([self.cls, *p_ids, self.sep, *c_ids, self.sep], types))
        return out


def batch_arrays(encoded: Sequence[tuple[list[int], list[int]]], idx: Sequence[int]
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Ids, token types and attention mask of the pairs ``idx``, padded to the longest."""
    n = max(len(encoded[i][0]) for i in idx)
    x = np.zeros((len(idx), n), dtype=np.int64)
    t, m = np.zeros_like(x), np.zeros_like(x)
    for r, i in enumerate(idx):
        ids, types = encoded[i]
        x[r, :len(ids)], t[r, :len(ids)], m[r, :len(ids)] = ids, types, 1
    return x, t, m


def softmax(logits: np.ndarray) -> np.ndarray:
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


class Verifier:
    """The verifier's session (loaded on first use) and encoder; safe to use from threads."""

    def __init__(self, directory: Path, threads: Optional[int]) -> None:
        self.card = json.loads((directory / VERIFIER_CARD).read_text())
        self.encoder = PairEncoder(directory / TOKENIZER, int(self.card.get("max_len", MAX_LEN)))
        self._path, self._threads = directory / VERIFIER_MODEL, threads
        self._session: Any = None
        self._lock = threading.Lock()

    @property
    def session(self) -> Any:
        with self._lock:
            if self._session is None:
                self._session = cpu_session(self._path, self._threads)
            return self._session

    def probabilities(self, premises: Sequence[str], claims: Sequence[str]) -> np.ndarray:
        """P(entailment, neutral, contradiction) of each (premise, claim) pair, one row per pair."""
        if not claims:
            return np.zeros((0, len(COLUMNS)))
        encoded = self.encoder.encode(premises, claims)
        order = sorted(range(len(encoded)), key=lambda i: len(encoded[i][0]))
        out = np.zeros((len(encoded), len(COLUMNS)))
        for s in range(0, len(order), BATCH):
            idx = order[s:s + BATCH]
            x, t, m = batch_arrays(encoded, idx)
            out[idx] = softmax(self.session.run(None, dict(zip(INPUTS, (x, t, m))))[0].astype(np.float64))
        return out


def is_available(directory: Path) -> bool:
    return all((directory / f).exists() for f in (VERIFIER_MODEL, VERIFIER_CARD, TOKENIZER))
