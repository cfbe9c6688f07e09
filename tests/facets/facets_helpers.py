"""Helpers for facet tests that talk to the scripted OpenAI-compatible server (``rt4chart.testing.openai_server``)."""

from __future__ import annotations

import importlib.util
import re
from typing import Optional

import pytest
from rt4chart.testing.openai_server import ChatRequest

BM25S_MISSING = "facet relevance needs bm25s: pip install 'rt4chart[facets]'"
#: for the tests that score relevance (the others run without the [facets] extra)
needs_bm25s = pytest.mark.skipif(importlib.util.find_spec("bm25s") is None, reason=BM25S_MISSING)


def schema_name(req: ChatRequest) -> Optional[str]:
    """The reply model the client asked for (``response_format.json_schema.name``), e.g. ``AnswerReply``."""
    fmt = req.response_format or {}
    return (fmt.get("json_schema") or {}).get("name")


_BLOCK = re.compile(r"<<<\n(.*?)\n>>>", re.DOTALL)


def judge_parts(req: ChatRequest) -> tuple[str, str]:
    """``(chunk, claim)`` of a local-verification request (prompt local.v2)."""
    chunk = _BLOCK.search(req.user).group(1)
    claim = req.block("CLAIM:")
    return chunk, claim


def question_of(req: ChatRequest) -> str:
    return re.search(r"^(?:QUESTION|Question): (.*)$", req.user, re.MULTILINE).group(1).strip()
