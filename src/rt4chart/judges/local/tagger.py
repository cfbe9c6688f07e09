"""The local judge's semantic stage: a MiniLM token tagger (fine-tuned from all-MiniLM-L6-v2 on RAGTruth train by
``python -m training.train_local_tagger``) that reads the evidence and the claims in one 512-token window and
gives every claim token P(inside a hallucinated span). The tree models only see which words occur in the evidence; the
tagger reads how they are put together, which is what a claim recombining true words into a false relation needs.

Input layout (the same code builds it for training and at run time, so they cannot drift):
``[CLS] question · evidence sentences [SEP] claim texts joined by spaces [SEP]``, token types 0 then 1. When the
evidence does not fit, the sentences sharing the rarest words with the claims are kept, in their original order.
Claim tokens beyond the window get no probability (``nan``); the trees alone decide for those words.

Runtime: onnxruntime and ``tokenizers`` (core dependencies). The model file is int8 (dynamic quantization, per output
channel), each layer's attention one ``com.microsoft.MultiHeadAttention`` node, and the last layer computed for the
claim tokens only (their positions are an input; ``training.tagger_graph``).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Optional, Sequence, Union

import numpy as np

from . import features as F
from ..runtime import cpu_session, plain_tokenizer

TAGGER_MODEL = "local_tagger.onnx"
TOKENIZER = "local_tagger_tokenizer.json"
MAX_LEN = 512
MAX_QUESTION = 64  # tokens of the question kept at most
MIN_EVIDENCE = 96  # tokens always left to the evidence: the claims are cut to make room
ROWS_INPUT = "positions"  # the graph input naming the rows (claim tokens) whose logits are wanted
_WORD = re.compile(r"[^\W_]+", re.UNICODE)


def claims_text(texts: Sequence[str]) -> tuple[str, list[int]]:
    """The claims joined by single spaces, and where each one starts in that text."""
    starts, pos = [], 0
    for t in texts:
        starts.append(pos)
        pos += len(t) + 1
    return " ".join(texts), starts


@dataclass(frozen=True)
class Encoded:
    """One tagger input: ``ids``/``types`` (int64), and for each claim-text token its position in ``ids`` and its
    ``(start, end)`` in the claims text."""

    ids: np.ndarray
    types: np.ndarray
    positions: np.ndarray
    offsets: np.ndarray  # (n, 2)


def _words(text: str) -> set[str]:
    return {w for w in (m.group().lower() for m in _WORD.finditer(text)) if len(w) > 2 or w.isdigit()}


@lru_cache(maxsize=8192)
def _sentence_words(sentence: str) -> frozenset[str]:
    """``_words`` of an evidence sentence (a context is read again for every answer to it)."""
    return frozenset(_words(sentence))


def select_sentences(sentences: Sequence[str], lengths: Sequence[int], claims: str, budget: int) -> list[int]:
    """Indices (in order) of the evidence sentences that fit in ``budget`` tokens: all of them when they fit, else
    greedily the ones sharing the most claim words, each shared word weighted by its rarity among the sentences."""
    if sum(lengths) <= budget:
        return list(range(len(sentences)))
    wanted = _words(claims)
    per = [_sentence_words(s) & wanted for s in sentences]
    df: dict[str, int] = {}
    for ws in per:
        for w in ws:
            df[w] = df.get(w, 0) + 1
    # summed in sorted order: a set's order changes with the hash seed, and ties must break the same every run
    score = [sum(1.0 / math.log(2.0 + df[w]) for w in sorted(ws)) for ws in per]
    order = sorted(range(len(sentences)), key=lambda i: (-score[i], i))
    keep, used = [], 0
    for i in order:
        if used + lengths[i] <= budget:
            keep.append(i)
            used += lengths[i]
    return sorted(keep)


class Encoder:
    """Builds tagger inputs with a ``tokenizers`` tokenizer (the model's own ``tokenizer.json``)."""

    def __init__(self, tokenizer_file: "str | Path", max_len: int = MAX_LEN) -> None:
        self.tok = plain_tokenizer(tokenizer_file)
        self.cls = self.tok.token_to_id("[CLS]")
        self.sep = self.tok.token_to_id("[SEP]")
        self.max_len = max_len
        # the token ids of an evidence text's sentences: a context is read again for every answer to it
        self._sentence_ids = lru_cache(maxsize=64)(self._encode_sentences)

    def _encode_sentences(self, sentences: tuple[str, ...]) -> tuple[tuple[int, ...], ...]:
        return tuple(tuple(e.ids) for e in self._ids(sentences, offsets=False))

    def _ids(self, texts: Sequence[str], offsets: bool = True) -> list[Any]:
        """Encodings of ``texts``; without ``offsets`` (their ids are all that is read), the faster path of
        tokenizers >= 0.20 when present: the same ids, no character offsets."""
        if not texts:
            return []
        encode = self.tok.encode_batch if offsets else getattr(self.tok, "encode_batch_fast", self.tok.encode_batch)
        return encode(list(texts), add_special_tokens=False)

    def encode_claims(self, question: Optional[str], evidence: Union[str, F.FeatureEvidence],
                      claims: Sequence[str]) -> tuple[Encoded, list[int]]:
        """Encode claim texts against an evidence text split as the features split it (its ``FeatureEvidence``'s
        sentences, or the text's); also where each claim starts in the claims text. The judge, and both training
        scripts, build their inputs here."""
        text, starts = claims_text(claims)
        sentences = evidence.index.texts if isinstance(evidence, F.FeatureEvidence) else \
            [s.text for s in F.sentences_of(evidence)]
        return self.encode(question, sentences, text), starts

    def encode(self, question: Optional[str], evidence_sentences: Sequence[str], text: str) -> Encoded:
        """Encode ``text`` (the claims text) against the evidence sentences and the question."""
        claim_enc = self._ids([text])[0]
        room = self.max_len - 3
        n_claim = min(len(claim_enc.ids), max(0, room - MIN_EVIDENCE))
        q_ids = self._ids([question], offsets=False)[0].ids[:MAX_QUESTION] if question and question.strip() else []
        sents = [s for s in evidence_sentences if s.strip()]
        encs = self._sentence_ids(tuple(sents))
        budget = room - n_claim - len(q_ids)
        keep = select_sentences(sents, [len(e) for e in encs], text, budget)
        first: list[int] = list(q_ids)
        for i in keep:
            first.extend(encs[i])
        if not keep and encs and budget > 0:  # one sentence longer than the budget: its beginning
            wanted = _words(text)
            first.extend(encs[max(range(len(sents)), key=lambda i: len(_sentence_words(sents[i]) & wanted))][:budget])
        first = first[: room - n_claim]
        ids = [self.cls, *first, self.sep, *claim_enc.ids[:n_claim], self.sep]
        types = [0] * (len(first) + 2) + [1] * (n_claim + 1)
        base = len(first) + 2
        return Encoded(ids=np.asarray(ids, dtype=np.int64), types=np.asarray(types, dtype=np.int64),
                       positions=np.arange(base, base + n_claim, dtype=np.int64),
                       offsets=np.asarray(claim_enc.offsets[:n_claim], dtype=np.int64).reshape(-1, 2))


#: the tree models of the semantic stage read, besides the word features, the tagger's probability of each word,
#: and besides the claim features, these aggregates of it (``MISSING`` where the tagger's window did not reach)
WORD_COLUMNS = ("w_tagger",)
CLAIM_COLUMNS = ("t_max", "t_mean", "t_n50", "a_t_max")
MISSING = -1.0


def word_column(t: np.ndarray) -> np.ndarray:
    """The ``w_tagger`` column of one claim's words."""
    return np.nan_to_num(np.asarray(t, dtype=np.float32), nan=MISSING).reshape(-1, 1)


def claim_columns(per_claim: Sequence[np.ndarray]) -> np.ndarray:
    """The ``CLAIM_COLUMNS`` of claims judged together (``a_t_max`` is over all of them: the answer)."""
    out = np.full((len(per_claim), len(CLAIM_COLUMNS)), MISSING, dtype=np.float32)
    for i, t in enumerate(per_claim):
        ok = np.asarray(t, dtype=np.float64)
        ok = ok[~np.isnan(ok)]
        if len(ok):
            out[i, :3] = (ok.max(), ok.mean(), float((ok >= 0.5).sum()))
    if len(per_claim):
        out[:, 3] = out[:, 0].max()
    return out


def word_probabilities(enc: Encoded, token_p: np.ndarray, claim_start: int,
                       words: Sequence[tuple[int, int]]) -> np.ndarray:
    """Per word ``(start, end)`` of one claim (claim-text offsets; the claim starts at ``claim_start`` in the claims
    text): the highest probability among the claim tokens overlapping it, ``nan`` when none is in the window."""
    out = np.full(len(words), np.nan)
    if not len(enc.offsets) or not len(words):
        return out
    w = np.asarray(words, dtype=np.int64).reshape(-1, 2) + claim_start
    hit = (enc.offsets[None, :, 0] < w[:, 1:]) & (enc.offsets[None, :, 1] > w[:, :1])  # (words, tokens)
    inside = hit.any(axis=1)
    out[inside] = np.where(hit, np.asarray(token_p, dtype=np.float64)[None, :], -np.inf).max(axis=1)[inside]
    return out


class Tagger:
    """The ONNX tagger and its encoder. ``probabilities`` gives P(hallucinated) per claims-text token."""

    def __init__(self, directory: Path, threads: Optional[int]) -> None:
        self.encoder = Encoder(directory / TOKENIZER)
        # one 512-token sequence is worth a few threads (the tree models take 1); the judge runs one pass at a time
        self.session = cpu_session(directory / TAGGER_MODEL, threads)

    @property
    def session(self) -> Any:
        return self._session

    @session.setter
    def session(self, session: Any) -> None:
        self._session = session
        # a graph built with ``tagger_graph.last_layer_rows`` takes the claim tokens' positions and computes its last
        # layer for those rows only; an older graph gives every token's logits
        self.rows_input = any(i.name == ROWS_INPUT for i in session.get_inputs())

    def probabilities(self, enc: Encoded) -> np.ndarray:
        if not len(enc.positions):
            return np.zeros(0)
        feed = {"input_ids": enc.ids[None, :], "token_type_ids": enc.types[None, :]}
        if self.rows_input:
            z = self.session.run(None, {**feed, ROWS_INPUT: enc.positions})[0][0].astype(np.float64)
        else:
            z = self.session.run(None, feed)[0][0][enc.positions].astype(np.float64)
        return 1.0 / (1.0 + np.exp(-(z[:, 1] - z[:, 0])))


def is_available(directory: Path) -> bool:
    """True when the tagger files and ``tokenizers`` are present."""
    if not ((directory / TAGGER_MODEL).exists() and (directory / TOKENIZER).exists()):
        return False
    try:
        import tokenizers  # noqa: F401
    except ImportError:
        return False
    return True
