"""Facet-level diagnostics (Facet tracing, Elchafei et al. 2026): question facets, the Facet x Chunk matrix, three
generation modes and the failure taxonomy. ``rt4chart diagnose`` is the command line; docs/facets.md the rules."""

from ._model import (
    CATEGORIES, FACET_TYPES, MODES, AnswerDiagnosis, Cell, ChunkRef, ClaimRef, Diagnosis, Facet, FacetDiagnosis,
    GenerationDiagnosis, ModeAnswer,
)
from .question_facets import FacetDecomposer, LLMFacetDecomposer, RuleFacetDecomposer, facet_type, question_shape
from .diagnose import Diagnoser
from .relevance import Relevance
from .run import run_diagnoses
from .taxonomy import answer_category, generation_category

__all__ = [
    "CATEGORIES", "FACET_TYPES", "MODES", "AnswerDiagnosis", "Cell", "ChunkRef", "ClaimRef", "Diagnosis", "Facet",
    "FacetDiagnosis", "GenerationDiagnosis", "ModeAnswer", "FacetDecomposer", "LLMFacetDecomposer",
    "RuleFacetDecomposer", "facet_type", "question_shape", "Diagnoser", "Relevance", "run_diagnoses",
    "answer_category", "generation_category",
]
