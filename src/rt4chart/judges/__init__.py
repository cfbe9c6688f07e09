"""Judges: the lexical baseline, the trained offline judge and the LLM judge, peers behind one Protocol."""

from .base import Judge

__all__ = ["Judge"]
