"""Haystack 2: a component that audits a generator's replies against the retrieved documents and splits them into
grounded and not (``pip install 'rt4chart[haystack]'``)::

    pipe.add_component("guard", AuditGuard())
    pipe.connect("retriever.documents", "guard.documents")
    pipe.connect("llm.replies", "guard.replies")
    pipe.connect("guard.grounded_replies", "answers.replies")   # only grounded replies go on

``run(replies, documents, query=None)`` audits each reply (a string or a ``ChatMessage``) against the documents'
contents and returns ``audits`` (one ``AuditResult`` per reply), ``grounded_replies`` (every claim entailed) and
``ungrounded_replies`` (the others: contradicted, baseless, or unverified: a claim the judge could not check is
not grounded). The replies keep their type; the outputs are typed ``list[str]``, or ``list[ChatMessage]`` with
``AuditGuard(chat=True)`` (a chat generator's replies), so that they connect to the next component's input.
"""

from __future__ import annotations

import asyncio
from typing import Any, Optional, Union

from ..jobs.batch import run_sync
from ..errors import ConfigError
from ..judges.base import Judge
from ..types import AuditResult
from ._common import DEFAULT_JUDGE, grounded, make_auditor, missing, record

try:
    from haystack import Document, component, default_from_dict, default_to_dict
    from haystack.dataclasses import ChatMessage
except ImportError as exc:  # pragma: no cover - the extra is installed where this module is used
    raise missing("haystack-ai", "haystack") from exc

__all__ = ["AuditGuard"]


def _reply_text(reply: Any) -> Any:
    """A reply's text: a string, or a ``ChatMessage``'s ``text``."""
    return reply if isinstance(reply, str) else getattr(reply, "text", reply)


@component
class AuditGuard:
    """Audits replies against documents; outputs ``audits``, ``grounded_replies`` and ``ungrounded_replies``.

    ``judge``: a judge name (``"local"``, the offline default; ``"llm"``, ...) with its ``options``, or a Judge
    object (a pipeline with a Judge object cannot be serialised with ``to_dict``). ``chat``: the replies are
    ``ChatMessage`` objects (the outputs are typed ``list[ChatMessage]``, else ``list[str]``)."""

    def __init__(self, judge: Union[str, Judge] = DEFAULT_JUDGE, *, chat: bool = False, **options: Any) -> None:
        self.judge = judge
        self.chat = chat
        self.options = options
        self._auditor = make_auditor(judge, options)
        replies = list[ChatMessage] if chat else list[str]
        component.set_output_types(self, audits=list[AuditResult], grounded_replies=replies,
                                   ungrounded_replies=replies)

    def to_dict(self) -> dict[str, Any]:
        if not isinstance(self.judge, str):
            raise ConfigError("an AuditGuard with a Judge object cannot be serialised; give the judge by name")
        return default_to_dict(self, judge=self.judge, chat=self.chat, **self.options)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "AuditGuard":
        return default_from_dict(cls, data)

    def _records(self, replies: list[Any], documents: list[Document], query: Optional[str]) -> list[dict]:
        context = [d.content for d in documents if d.content]
        return [record(f"reply-{i}", context, _reply_text(reply), query) for i, reply in enumerate(replies)]

    @staticmethod
    def _split(replies: list[Any], audits: list[AuditResult]) -> dict[str, Any]:
        return {"audits": audits,
                "grounded_replies": [r for r, a in zip(replies, audits) if grounded(a)],
                "ungrounded_replies": [r for r, a in zip(replies, audits) if not grounded(a)]}

    def run(self, replies: list[Any], documents: list[Document], query: Optional[str] = None) -> dict[str, Any]:
        """Audit each reply against ``documents`` (``query``: the question, optional)."""
        return run_sync(self.run_async(replies, documents, query))

    async def run_async(self, replies: list[Any], documents: list[Document],
                        query: Optional[str] = None) -> dict[str, Any]:
        """``run`` for ``AsyncPipeline``."""
        audits = await asyncio.gather(*(self._auditor.audit(r) for r in self._records(replies, documents, query)))
        return self._split(replies, list(audits))
