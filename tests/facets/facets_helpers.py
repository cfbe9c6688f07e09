"""Helpers for facet tests that talk to the scripted OpenAI-compatible server (tests/llm/fake_openai.py)."""

from __future__ import annotations

import re
from typing import Optional

from fake_openai import ChatRequest


def schema_name(req: ChatRequest) -> Optional[str]:
    """The reply model the client asked for (``response_format.json_schema.name``), e.g. ``AnswerReply``."""
    fmt = req.response_format or {}
    return (fmt.get("json_schema") or {}).get("name")


_BLOCK = re.compile(r"<<<\n(.*?)\n>>>", re.DOTALL)


def judge_parts(req: ChatRequest) -> tuple[str, str]:
    """``(chunk, claim)`` of a local-verification request (prompt local.v1)."""
    chunk = _BLOCK.search(req.user).group(1)
    claim = re.search(r"^CLAIM: (.*)$", req.user, re.MULTILINE).group(1)
    return chunk, claim


def question_of(req: ChatRequest) -> str:
    return re.search(r"^(?:QUESTION|Question): (.*)$", req.user, re.MULTILINE).group(1).strip()
