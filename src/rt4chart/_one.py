"""``rt4chart.audit``: one answer, synchronously. It lives here, not in the package's ``__init__``, so that the API
reference can name it by this path (``rt4chart.audit`` is also the subpackage of the same name, which the docs'
static analysis resolves first)."""

from __future__ import annotations

import asyncio
from typing import Any, Optional, Union

from .audit.auditor import Auditor
from .audit.decompose import Decomposer
from .judges.base import Judge
from .types import AuditResult


def audit(
    context: Union[str, list[str]],
    answer: str,
    question: Optional[str] = None,
    *,
    judge: Union[str, Judge] = "auto",
    decomposer: Optional[Decomposer] = None,
    window: int = 25,
    overlap: int = 10,
    global_verification: bool = True,
    prefilter: bool = False,
    id: Optional[Union[str, int]] = None,
    **judge_options: Any,
) -> AuditResult:
    """Audit one answer against its context (RT4CHART). Synchronous; use ``Auditor`` inside an event loop.

    ``judge`` is a Judge object or a name (``auto``, ``lexical``, ``local``, ``llm``); ``judge_options`` go to
    the named judge's factory (``rt4chart.judges.registry.build_auditor``; no environment variable is read: give
    the LLM judge ``base_url``, ``model`` and ``api_key``). Raises ``InputError`` for an empty context or answer.
    """
    if isinstance(judge, str):
        from .judges.registry import build_auditor

        auditor = build_auditor(judge, window=window, overlap=overlap, global_verification=global_verification,
                                prefilter=prefilter, **judge_options)
        if decomposer is not None:  # a decomposer the fingerprint does not name: no fingerprint, never reused
            auditor.decomposer = decomposer
            auditor.fingerprint = None
    else:
        auditor = Auditor(judge=judge, decomposer=decomposer, window=window, overlap=overlap,
                          global_verification=global_verification, prefilter=prefilter)
    record = {"id": id if id is not None else "record", "context": context, "question": question, "answer": answer}
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(auditor.audit(record))
    raise RuntimeError("rt4chart.audit() cannot run inside an event loop; use `await Auditor(...).audit(record)`")
