"""The trained offline judge: a MiniLM cross-encoder over (claim, evidence sentences), run with onnxruntime.

The model (``models/local_judge.onnx`` + ``models/local_judge.json`` + ``models/tokenizer.json``) is fine-tuned
from all-MiniLM-L6-v2 on the RAGTruth train split only, by ``scripts/train_local_judge.py``. No model ships yet
(the first one trained was weaker than the lexical judge; docs/results.md), so ``is_available()`` is False and
``--judge auto`` falls back to the lexical judge until a model is placed there. It reads a claim and the few evidence sentences that
share the most content words with it (``select_evidence``; the same function builds the training inputs, so the model
sees at inference exactly what it saw in training) and outputs P(entailed), P(contradicted), P(baseless).

A claim is flagged when P(contradicted) + P(baseless) >= ``threshold`` (calibrated on a context-grouped validation
slice of RAGTruth train, stored in the model card); its label is then the likelier of the two. ``Judgment.score``
is that hallucination probability. Evidence quotes are the selected sentences the model read, best-matching first.
Needs ``onnxruntime`` and ``tokenizers`` (core dependencies); no torch at run time.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections import OrderedDict
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Optional, Sequence

import numpy as np

from ..errors import ConfigError, MissingDependencyError
from ..text.lexical import content_words
from ..text.segment import split_sentences
from ..types import Claim, Judgment, Label, Stage

MODEL_NAME = "local_judge"
LABELS = (Label.ENTAILED, Label.CONTRADICTED, Label.BASELESS)
EVIDENCE_CHARS = 900
MAX_SENTENCES = 6


def model_dir() -> Path:
    return Path(str(resources.files("rt4chart.judges") / "models"))


def is_available() -> bool:
    """True when the model files and the runtime packages are present."""
    d = model_dir()
    if not (d / f"{MODEL_NAME}.onnx").exists() or not (d / f"{MODEL_NAME}.json").exists():
        return False
    try:
        import onnxruntime  # noqa: F401
        import tokenizers  # noqa: F401
    except ImportError:
        return False
    return True


def select_evidence(claim: str, evidence: str, *, budget: int = EVIDENCE_CHARS,
                    max_sentences: int = MAX_SENTENCES) -> list[str]:
    """The evidence sentences the model reads for ``claim``: most shared content words first, within ``budget``.

    Ties keep document order. Sentences sharing no content word are used only if nothing else is available (the
    model must still see some context to call a claim baseless).
    """
    sentences = split_sentences(evidence)
    if not sentences:
        return []
    words = content_words(claim)
    scored = []
    for s in sentences:
        shared = len(words & content_words(s.text))
        scored.append((-shared, s.index, s.text))
    scored.sort()
    picked: list[str] = []
    used = 0
    for neg, _, text in scored:
        if len(picked) >= max_sentences:
            break
        if picked and neg == 0:
            break
        text = text if len(text) <= budget else text[:budget]
        if picked and used + len(text) > budget:
            continue
        picked.append(text)
        used += len(text) + 1
    return picked


def _relevant(claim: str, best_sentence: str, share: float = 0.3) -> bool:
    words = content_words(claim)
    return bool(words) and len(words & content_words(best_sentence)) >= max(1.0, share * len(words))


class _Model:
    """onnxruntime session + tokenizer + model card; inputs are (claim, evidence) pairs."""

    def __init__(self, directory: Path, threads: Optional[int] = None) -> None:
        try:
            import onnxruntime as ort
            from tokenizers import Tokenizer
        except ImportError as exc:  # pragma: no cover - is_available() guards the normal path
            raise MissingDependencyError(str(exc.name or "onnxruntime"), "local",
                                         hint="pip install onnxruntime tokenizers") from exc
        self.card = json.loads((directory / f"{MODEL_NAME}.json").read_text())
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads or int(self.card.get("threads", 2))
        opts.inter_op_num_threads = 1
        self.session = ort.InferenceSession(str(directory / f"{MODEL_NAME}.onnx"), opts,
                                            providers=["CPUExecutionProvider"])
        self.input_names = {i.name for i in self.session.get_inputs()}
        self.tokenizer = Tokenizer.from_file(str(directory / "tokenizer.json"))
        self.max_len = int(self.card["max_len"])
        self.max_claim = int(self.card.get("max_claim_tokens", 64))
        self.tokenizer.no_padding()
        self.tokenizer.no_truncation()

    def encode(self, pairs: Sequence[tuple[str, str]]) -> dict[str, np.ndarray]:
        cls_id = self.tokenizer.token_to_id("[CLS]")
        sep_id = self.tokenizer.token_to_id("[SEP]")
        rows = []
        for claim, evidence in pairs:
            a = self.tokenizer.encode(claim, add_special_tokens=False).ids[: self.max_claim]
            room = self.max_len - len(a) - 3
            b = self.tokenizer.encode(evidence, add_special_tokens=False).ids[: max(room, 0)]
            rows.append(([cls_id, *a, sep_id, *b, sep_id], len(a) + 2))
        width = max(len(ids) for ids, _ in rows)
        ids = np.zeros((len(rows), width), dtype=np.int64)
        mask = np.zeros_like(ids)
        types = np.zeros_like(ids)
        for i, (row, first) in enumerate(rows):
            ids[i, : len(row)] = row
            mask[i, : len(row)] = 1
            types[i, first: len(row)] = 1
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
        return {k: v for k, v in feeds.items() if k in self.input_names}

    def predict(self, pairs: Sequence[tuple[str, str]], batch: int = 16) -> np.ndarray:
        out = []
        for i in range(0, len(pairs), batch):
            # sort-free small batches: RT4CHART calls come per chunk with few claims
            logits = self.session.run(None, self.encode(pairs[i: i + batch]))[0]
            z = logits - logits.max(axis=1, keepdims=True)
            p = np.exp(z)
            out.append(p / p.sum(axis=1, keepdims=True))
        return np.concatenate(out) if out else np.zeros((0, 3))


@lru_cache(maxsize=4)
def _load(directory: str, threads: Optional[int]) -> _Model:
    return _Model(Path(directory), threads)


class LocalJudge:
    """Offline trained judge (see module docstring). Shares one loaded model per process."""

    name = "local"

    def __init__(self, *, threshold: Optional[float] = None, threads: Optional[int] = None,
                 directory: Optional[Path] = None, cache_size: int = 4096) -> None:
        self._model = _load(str(directory or model_dir()), threads)
        self.threshold = float(threshold if threshold is not None else self._model.card["threshold"])
        if not 0.0 < self.threshold < 1.0:
            raise ConfigError("threshold must be in (0, 1)")
        self._cache: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
        self._lock = threading.Lock()
        self._cache_size = cache_size

    @property
    def card(self) -> dict[str, Any]:
        """The model card: training data, metrics, threshold, versions."""
        return dict(self._model.card)

    def probabilities(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """P(entailed, contradicted, baseless) for (claim, evidence) pairs, with an LRU cache (local and global
        verification often select the same sentences for a claim)."""
        with self._lock:
            todo = [p for p in dict.fromkeys(pairs) if p not in self._cache]
        fresh = dict(zip(todo, self._model.predict(todo))) if todo else {}
        with self._lock:
            for pair, probs in fresh.items():
                self._cache[pair] = probs
                if len(self._cache) > self._cache_size:
                    self._cache.popitem(last=False)
            out = [fresh[p] if p in fresh else self._cache[p] for p in pairs]
            for p in pairs:
                if p in self._cache:
                    self._cache.move_to_end(p)
        return np.array(out).reshape(len(pairs), 3)

    async def judge(
        self,
        claims: Sequence[Claim],
        evidence: str,
        *,
        question: Optional[str],
        stage: Stage,
        local_labels: Optional[Sequence[Label]] = None,
        hints: Optional[Sequence[Optional[str]]] = None,
    ) -> list[Judgment]:
        version = f"{MODEL_NAME}@{self._model.card.get('version', '?')}"
        selections = [select_evidence(c.text, evidence) for c in claims]
        # Local stage: a chunk none of whose sentences shares a real part of the claim's content words cannot hold
        # its evidence; say so without running the model (the global pass reads the best sentences of all of C).
        skip = [not sel or (stage == "local" and not _relevant(c.text, sel[0])) for c, sel in zip(claims, selections)]
        todo = [i for i, s in enumerate(skip) if not s]
        # onnxruntime releases the GIL: run the model off the event loop so other records and requests go on
        probs_todo = await asyncio.to_thread(
            self.probabilities, [(claims[i].text, " ".join(selections[i])) for i in todo])
        probs: list = [None] * len(claims)
        for i, p in zip(todo, probs_todo):
            probs[i] = p
        out = []
        for sel, p in zip(selections, probs):
            if p is None:
                why = "the evidence text is empty" if not sel else "no sentence of this chunk is about the claim"
                out.append(Judgment(label=Label.BASELESS, reason=why, score=1.0, prompt_version=version))
                continue
            risk = float(p[1] + p[2])
            if risk >= self.threshold:
                label = Label.CONTRADICTED if p[1] >= p[2] else Label.BASELESS
            else:
                label = Label.ENTAILED
            reason = (f"P(entailed)={p[0]:.2f} P(contradicted)={p[1]:.2f} P(baseless)={p[2]:.2f} "
                      f"(threshold {self.threshold:.2f})")
            out.append(Judgment(label=label, evidence=tuple(sel[:2]) if label != Label.BASELESS else (),
                                reason=reason, score=round(risk, 4), prompt_version=version))
        return out
