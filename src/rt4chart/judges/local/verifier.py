"""The claim verifier: all-MiniLM-L6-v2 fine-tuned as a cross-encoder on NLI and RAG-like pairs (``[CLS] premise
[SEP] claim [SEP]`` -> entailment / neutral / contradiction; ``python -m training.train_nli_verifier``), int8 ONNX.
A calibrator whose card names its columns (``COLUMNS``) reads them for each claim it decides: the claim against
**windows** of the evidence (``windows``: each of the claim's best-covering sentences with the sentence before it,
and the whole text when it is short), the window of highest P(entailment) deciding (``Verdicts``).
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any, NamedTuple, Optional, Sequence

import numpy as np

from ..runtime import cpu_session, plain_tokenizer

VERIFIER_MODEL = "local_verifier.onnx"
VERIFIER_CARD = "local_verifier.json"
#: the tokenizer: the base model's, which the tagger ships too
TOKENIZER = "local_tagger_tokenizer.json"
#: the calibrator columns it gives: P(entailment) and P(neutral) in the window of highest P(entailment), and the
#: highest P(contradiction) over the windows
COLUMNS = ("v_entailment", "v_neutral", "v_contradiction")
#: windows per claim: its best-covering sentences, each with the one before it
WINDOWS = 3
#: an evidence text this short (characters) is one more window of its own
WHOLE_TEXT = 600
#: the graph's inputs: token ids, token types, attention mask
INPUTS = ("input_ids", "token_type_ids", "attention_mask")
MAX_LEN = 160


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
        out = np.zeros((len(encoded), len(COLUMNS)))
        # one pair a run: the int8 graph quantizes its activations over the whole batch (padding included), so a pair
        # read beside others would get another reading than alone
        for i in range(len(encoded)):
            x, t, m = batch_arrays(encoded, [i])
            out[i] = softmax(self.session.run(None, dict(zip(INPUTS, (x, t, m))))[0].astype(np.float64))[0]
        return out


def windows(texts: Sequence[str], order: Sequence[int], k: int = WINDOWS) -> list[tuple[int, ...]]:
    """The sentence numbers of each window a claim is read against: each of its ``k`` best-covering sentences
    (``order``, best first) with the sentence before it, and all the sentences when the text is under
    ``WHOLE_TEXT`` characters; at least one window (the first sentences) when ``order`` is empty."""
    out: list[tuple[int, ...]] = []
    for i in list(order)[:k]:
        w = (i - 1, i) if i > 0 else (i,)
        if w not in out:
            out.append(w)
    whole = tuple(range(len(texts)))
    if texts and sum(len(t) + 1 for t in texts) <= WHOLE_TEXT and whole not in out:
        out.append(whole)
    if not out and texts:
        out.append(tuple(range(min(2, len(texts)))))
    return out


class Verdicts(NamedTuple):
    """The verifier's reading of claims against their windows, one reading per claim set: what the short-context
    calibrator reads for the risk (``column``) and what says which kind of flag a flagged claim gets
    (``says_otherwise``) and which window an entailed claim quotes (``reads_in``). ``columns``: one row per claim
    (``COLUMNS``); ``decided``: the sentence numbers of the window that decided each (highest P(entailment));
    ``against``: those of the window most against it (highest P(contradiction))."""

    columns: np.ndarray
    decided: list[tuple[int, ...]]
    against: list[tuple[int, ...]]

    def column(self, name: str) -> np.ndarray:
        """One of ``COLUMNS`` for every claim (``v_entailment``, ``v_neutral``, ``v_contradiction``)."""
        return self.columns[:, COLUMNS.index(name)]

    @property
    def entailment(self) -> np.ndarray:
        """P(entailment) of each claim in its deciding window."""
        return self.column("v_entailment")

    @property
    def contradiction(self) -> np.ndarray:
        """The highest P(contradiction) of each claim over its windows."""
        return self.column("v_contradiction")

    def says_otherwise(self, i: int) -> bool:
        """True when claim ``i``'s windows read the evidence as saying otherwise (``CONTRADICTS``): a flagged claim
        is then contradicted, quoting ``against[i]``."""
        return says_otherwise(self.columns[i])

    def reads_in(self, i: int) -> bool:
        """True when claim ``i``'s deciding window reads it in the evidence (P(entailment) at least ``ENTAILS``): an
        entailed claim no sentence holds word for word then quotes ``decided[i]``."""
        return bool(self.decided[i]) and float(self.entailment[i]) >= ENTAILS


def read_windows(verifier: "Verifier", texts: Sequence[str], orders: Sequence[Sequence[int]],
                 claims: Sequence[str]) -> Verdicts:
    """Each claim against its ``windows`` of ``texts`` in one batch; the max over windows decides."""
    spans = [windows(texts, order) for order in orders]
    premises = [" ".join(texts[i] for i in w) for ws in spans for w in ws]
    repeated = [c for c, ws in zip(claims, spans) for _ in ws]
    probs = verifier.probabilities(premises, repeated)
    columns, decided, against, at = np.full((len(claims), len(COLUMNS)), np.nan), [], [], 0
    for k, ws in enumerate(spans):
        p = probs[at:at + len(ws)]
        at += len(ws)
        if not len(p):
            decided.append(())
            against.append(())
            continue
        best, worst = int(np.argmax(p[:, 0])), int(np.argmax(p[:, 2]))
        columns[k] = (p[best, 0], p[best, 1], p[worst, 2])
        decided.append(ws[best])
        against.append(ws[worst])
    return Verdicts(columns, decided, against)


#: a flagged claim is contradicted, not baseless, when a window's P(contradiction) reaches this and its best window's
#: P(neutral)
CONTRADICTS = 0.5
#: a claim's best window at or above this P(entailment) is the verifier reading it in the evidence
ENTAILS = 0.5


def says_otherwise(columns: np.ndarray) -> bool:
    """True when a claim's verifier ``columns`` read a window of the evidence as saying otherwise."""
    con = float(columns[COLUMNS.index("v_contradiction")])
    return con >= CONTRADICTS and con >= float(columns[COLUMNS.index("v_neutral")])


def is_available(directory: Path) -> bool:
    return all((directory / f).exists() for f in (VERIFIER_MODEL, VERIFIER_CARD, TOKENIZER))
