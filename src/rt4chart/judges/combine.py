"""The hybrid judge's fitted combination: two logistic models over the LLM's one-token P(supported) and the local
judge's score and features. The first gives each claim its risk of being hallucinated; the second, for a claim
found hallucinated, its probability of being contradicted rather than baseless.

The coefficients, the threshold and how they were fitted are a model card, ``models/hybrid_combination.json``,
written by ``python -m training.hybrid_combination`` (docs/results/hybrid.md says on what and what it
measures) or, for a user's own model, by ``rt4chart calibrate --judge hybrid --card`` (``rt4chart.eval.hybrid_card``).
A card's ``fitted_for`` names the model it was fitted for (``same_model``). Reading a card needs nothing but the
standard library.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence

from ..errors import ConfigError
from ..types import Judgment, Label

__all__ = ["Combination", "FEATURES", "features", "CARD", "model_names", "same_model"]

#: the shipped card's file name, beside the local judge's models
CARD = "hybrid_combination.json"
_CLIP = 6.0

#: the feature names, in the order of the card's coefficients
FEATURES = ("llm", "local", "local_entailed", "local_contradicted", "local_baseless", "local_evidence",
            "claim_words", "document_words", "llm_x_document", "local_x_document")


#: model names that do not identify a model: the alias rt4chart's own llama-server answers to whatever GGUF it loaded
#: (``rt4chart.llm.managed.MODEL_ALIAS``)
ALIASES = frozenset({"judge"})


def model_names(*names: Optional[str]) -> frozenset[str]:
    """The names that identify a model, compared case-insensitively: a GGUF file's name without its folder and
    its ``.gguf`` suffix, or an endpoint's model id; empty names and ``ALIASES`` are left out."""
    out = set()
    for name in names:
        key = str(name or "").strip().replace("\\", "/").rsplit("/", 1)[-1].lower() if name else ""
        key = key[:-5] if key.endswith(".gguf") else key
        if key and key not in ALIASES:
            out.add(key)
    return frozenset(out)


def same_model(fitted_for: Optional[Mapping[str, Any]], served: frozenset[str]) -> Optional[bool]:
    """Whether the model a card was fitted for (its ``fitted_for``: ``gguf`` file name and endpoint ``model`` id)
    is the model serving now (its ``model_names``): True when a name is shared, False when both sides have names
    and share none, None when either side has none (the card records no model, or the model in use answers only
    to an alias and reports no file)."""
    if not fitted_for:
        return None
    fitted = model_names(fitted_for.get("gguf"), fitted_for.get("model"))
    if not fitted or not served:
        return None
    return bool(fitted & served)


def _logit(p: Optional[float]) -> float:
    if p is None:
        return 0.0
    p = min(max(p, 1e-6), 1 - 1e-6)
    return max(-_CLIP, min(_CLIP, math.log(p / (1 - p))))


def features(p_supported: float, local: Judgment, claim: str, document: str) -> list[float]:
    """One claim's features (``FEATURES``): the LLM's and the local judge's log-odds (the local one of its risk),
    the local label and whether it brought evidence, and the claim's and the document's length in words (log), with
    the two scores read against the document's length (the small model is worth less on long documents)."""
    doc = math.log1p(len(document.split()))
    z = -_logit(p_supported)  # log-odds of "not supported", so that both scores point the same way
    r = _logit(local.score)
    return [z, r, float(local.label is Label.ENTAILED), float(local.label is Label.CONTRADICTED),
            float(local.label is Label.BASELESS), float(bool(local.evidence)), math.log1p(len(claim.split())),
            doc, z * doc, r * doc]


@dataclass(frozen=True)
class Logistic:
    """``sigmoid(intercept + coef . features)``, decided at ``threshold``."""

    coef: tuple[float, ...]
    intercept: float
    threshold: float

    @classmethod
    def of(cls, part: Mapping[str, Any]) -> "Logistic":
        return cls(coef=tuple(float(part["coef"][name]) for name in FEATURES), intercept=float(part["intercept"]),
                   threshold=float(part["threshold"]))

    def __call__(self, values: Sequence[float]) -> float:
        s = self.intercept + sum(c * v for c, v in zip(self.coef, values))
        return 1.0 / (1.0 + math.exp(-max(-40.0, min(40.0, s))))


@dataclass(frozen=True)
class Combination:
    """The fitted card: ``hallucinated`` gives a claim's risk (hallucinated at or above its threshold), and
    ``contradicted`` a hallucinated claim's P(contradicted) (contradicted at or above its threshold, else
    baseless)."""

    hallucinated: Logistic
    contradicted: Logistic
    version: str
    card: Mapping[str, Any]

    @property
    def threshold(self) -> float:
        return self.hallucinated.threshold

    @property
    def fitted_for(self) -> Optional[Mapping[str, Any]]:
        """The model the card was fitted for (``name``, ``gguf`` file name, endpoint ``model`` id), None when the
        card does not say."""
        found = self.card.get("fitted_for") if isinstance(self.card, Mapping) else None
        return found if isinstance(found, Mapping) else None

    @classmethod
    def load(cls, path: Optional[Path] = None) -> "Combination":
        """The card at ``path`` (default: the shipped one)."""
        if path is None:
            from .local import model_dir

            path = Path(model_dir()) / CARD
        try:
            card = json.loads(Path(path).read_text())
            return cls(hallucinated=Logistic.of(card["hallucinated"]), contradicted=Logistic.of(card["contradicted"]),
                       version=str(card["version"]), card=card)
        except FileNotFoundError:
            raise ConfigError(f"no hybrid combination card at {path}; fit one for your model with "
                              "rt4chart calibrate LABELLED --judge hybrid --card -o CARD.json") from None
        except (KeyError, TypeError, ValueError) as exc:
            raise ConfigError(f"the hybrid combination card {path} is not valid ({exc!r})") from None
