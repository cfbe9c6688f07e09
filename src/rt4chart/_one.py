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
    id: Optional[Union[str, int]] = None,
    **options: Any,
) -> AuditResult:
    """Audit one answer against its context (RT4CHART). Synchronous; use ``Auditor`` inside an event loop.

    ``judge`` is a Judge object or a name (``auto``, ``lexical``, ``local``, ``llm``, ``hybrid``). ``options``: the
    audit's settings (``rt4chart.AuditConfig``'s fields: ``window``, ``overlap``, ``global_verification``,
    ``prefilter``) and, for a judge name, the judge's options (``rt4chart.judges.registry.build_auditor``; no
    environment variable is read: give the LLM judge ``base_url``, ``model`` and ``api_key``). Raises ``InputError``
    for an empty context or answer, ``ConfigError`` for an option that nothing here reads.
    """
    if isinstance(judge, str):
        from .judges.registry import build_auditor

        auditor = build_auditor(judge, **options)
        if decomposer is not None:  # a decomposer the fingerprint does not name: no fingerprint, never reused
            auditor.decomposer = decomposer
            auditor.fingerprint = None
    else:
        auditor = Auditor(judge=judge, decomposer=decomposer, **options)
    record = {"id": id if id is not None else "record", "context": context, "question": question, "answer": answer}
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(auditor.audit(record))
    raise RuntimeError("rt4chart.audit() cannot run inside an event loop; use `await Auditor(...).audit(record)`")
