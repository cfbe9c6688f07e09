"""Retrieval relevance of chunks for facets: BM25 (bm25s) plus MiniLM cosine when the encoder is installed.

Terms are the package's content words with repeats (``rt4chart.evidence.content_terms``: lower-cased, stop
words dropped, lightly stemmed), so "relevant" and "content word" mean the same thing as in the lexical judge.

``bm25_norm`` puts BM25 on an absolute scale: the chunk's score divided by the facet's idf mass
``sum(idf(t) for t in facet terms) / (k1 + 1)`` (Lucene idf over the chunks; a term in no chunk gets the idf of
df=0), clipped to [0, 1]. A chunk that contains every facet term once at average length scores about 1; one that
shares no term scores 0. ``relevance = (bm25_norm + max(cosine, 0)) / 2`` with the encoder, ``bm25_norm`` without it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional, Sequence

import numpy as np

from ..evidence import content_terms
from ..errors import MissingDependencyError


@dataclass(frozen=True)
class RelevanceScores:
    """Scores ``[facet, chunk]``; ``cosine`` is None when the encoder is not used."""

    bm25: np.ndarray
    bm25_norm: np.ndarray
    cosine: Optional[np.ndarray]
    relevance: np.ndarray
    method: str


class Relevance:
    """Scores chunks for facets. ``encoder``: a ``MiniLMEncoder``, None to use BM25 only, or ``"auto"`` (the
    packaged encoder when installed, else BM25 only)."""

    def __init__(self, encoder: object = "auto", *, k1: float = 1.5, b: float = 0.75) -> None:
        try:
            import bm25s  # noqa: F401
        except ImportError:
            raise MissingDependencyError("bm25s", "facets") from None
        if encoder == "auto":
            from ..text.embed import encoder_available, get_encoder

            encoder = get_encoder() if encoder_available() else None
        self.encoder = encoder
        self.k1 = k1
        self.b = b

    @property
    def method(self) -> str:
        return "bm25+minilm" if self.encoder is not None else "bm25"

    def score(self, queries: Sequence[str], chunks: Sequence[str]) -> RelevanceScores:
        import bm25s

        nq, nc = len(queries), len(chunks)
        bm25 = np.zeros((nq, nc), dtype=np.float64)
        norm = np.zeros((nq, nc), dtype=np.float64)
        corpus = [content_terms(c) for c in chunks] if nq and nc else []
        # bm25s cannot index a corpus without a single term (a context in a script the term splitter does not
        # segment, such as Chinese or Japanese): then BM25 gives every chunk 0 and the embeddings alone rank them
        if any(corpus):
            retriever = bm25s.BM25(k1=self.k1, b=self.b, method="lucene")
            retriever.index(corpus, show_progress=False)
            df: dict[str, int] = {}
            for doc in corpus:
                for t in set(doc):
                    df[t] = df.get(t, 0) + 1
            for i, q in enumerate(queries):
                qt = list(dict.fromkeys(content_terms(q)))
                if not qt:
                    continue
                known = [t for t in qt if t in df]
                if known:
                    bm25[i] = np.asarray(retriever.get_scores(known), dtype=np.float64)
                mass = sum(math.log(1.0 + (nc - df.get(t, 0) + 0.5) / (df.get(t, 0) + 0.5)) for t in qt)
                # bm25s's Lucene BM25 has no (k1 + 1) factor: one occurrence at average length gives idf / (k1 + 1)
                norm[i] = np.clip(bm25[i] * (self.k1 + 1.0) / mass, 0.0, 1.0) if mass > 0 else 0.0
        cosine = None
        relevance = norm
        if self.encoder is not None:
            cosine = np.asarray(self.encoder.similarity(list(queries), list(chunks)), dtype=np.float64)  # type: ignore[attr-defined]
            relevance = (norm + np.clip(cosine, 0.0, None)) / 2.0
        return RelevanceScores(bm25=bm25, bm25_norm=norm, cosine=cosine, relevance=relevance, method=self.method)
