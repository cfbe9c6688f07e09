"""LangChain: audit a RAG chain's answers (``pip install 'rt4chart[langchain]'``).

``AuditRunnable`` takes what a retrieval chain returns, ``{"question" | "input" | "query", "context" |
"documents", "answer"}`` (a context as a string, strings or ``Document`` objects), and returns it with the
``AuditResult`` added under ``"audit"``; compose it after a chain with ``|``::

    chain = create_retrieval_chain(retriever, combine_docs_chain) | AuditRunnable()
    out = chain.invoke({"input": "How long is the trial?"})
    out["audit"].hallucinated

``AuditCallbackHandler`` (sync) and ``AsyncAuditCallbackHandler`` audit any chain they are attached to, without
changing it: they collect each run's retrieved documents (``on_retriever_end``) and, when the outermost run ends,
its answer (the run's output: a string, a message, or the ``answer``/``output``/``result``/``text`` of a dict;
else the last LLM output of the run) and question (the run's input: a string, or its ``question``/``input``/
``query``; else the retriever's query). Results are in ``results`` (in the order runs ended) and ``by_run``;
a run that retrieved nothing is in ``errors``. ``raise_on_hallucination=True`` raises ``HallucinationError``
out of the chain call when an answer is contradicted or baseless, and when no judge confirmed it (``unverified``,
``hallucinated`` None: a claim nobody checked is not grounded) unless ``allow_unverified=True``.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, Optional, Union
from uuid import UUID

from ..jobs.batch import run_sync
from ..errors import HallucinationError, InputError
from ..judges.base import Judge
from ..types import AuditResult
from ._common import DEFAULT_JUDGE, context_of, make_auditor, missing, record, table

try:
    from langchain_core.callbacks import AsyncCallbackHandler, BaseCallbackHandler
    from langchain_core.runnables import Runnable, RunnableConfig
except ImportError as exc:  # pragma: no cover - the extra is installed where this module is used
    raise missing("langchain-core", "langchain") from exc

__all__ = ["AsyncAuditCallbackHandler", "AuditCallbackHandler", "AuditRunnable"]

_QUESTION = ("question", "input", "query")
_CONTEXT = ("context", "documents")
_ANSWER = ("answer", "output", "result", "text")


def _first(data: Any, keys: tuple[str, ...]) -> Any:
    if isinstance(data, dict):
        for key in keys:
            if data.get(key) is not None:
                return data[key]
    return None


def _text(value: Any) -> Optional[str]:
    """A string, or the text of a message (``AIMessage.content`` as a string)."""
    if isinstance(value, str):
        return value
    content = getattr(value, "content", None)
    return content if isinstance(content, str) else None


class AuditRunnable(Runnable[dict, dict]):
    """A ``Runnable`` that audits a retrieval chain's output and returns it with the ``AuditResult`` under ``key``.

    ``judge``: a judge name (``"local"``, the offline default; ``"llm"``, ...) with its ``options``, or a Judge
    object. Raises ``InputError`` when the input has no context or no answer."""

    def __init__(self, judge: Union[str, Judge] = DEFAULT_JUDGE, *, key: str = "audit", **options: Any) -> None:
        self.judge = judge
        self.key = key
        self._auditor = make_auditor(judge, options)

    def _record(self, data: dict) -> dict:
        if not isinstance(data, dict):
            raise InputError(f"AuditRunnable takes a dict with context and answer, got {type(data).__name__}")
        context = _first(data, _CONTEXT)
        answer = _text(_first(data, _ANSWER))
        question = _first(data, _QUESTION)
        return record(data.get("id", "langchain"), context, answer, question if isinstance(question, str) else None)

    def _audit(self, data: dict) -> dict:
        return {**data, self.key: run_sync(self._auditor.audit(self._record(data)))}

    async def _aaudit(self, data: dict) -> dict:
        return {**data, self.key: await self._auditor.audit(self._record(data))}

    def invoke(self, input: dict, config: Optional[RunnableConfig] = None, **kwargs: Any) -> dict:
        return self._call_with_config(self._audit, input, config, run_type="chain")

    async def ainvoke(self, input: dict, config: Optional[RunnableConfig] = None, **kwargs: Any) -> dict:
        return await self._acall_with_config(self._aaudit, input, config, run_type="chain")


@dataclass
class _Run:
    inputs: Any = None
    documents: list[str] = field(default_factory=list)
    queries: list[str] = field(default_factory=list)
    llm_output: Optional[str] = None


class _Collector:
    """What both handlers keep: the outermost run of each run seen, and per outermost run its documents, its
    retriever queries and its last LLM output."""

    def _setup(self, judge: Union[str, Judge], raise_on_hallucination: bool, allow_unverified: bool,
               options: dict) -> None:
        self.judge = judge
        self.raise_on_hallucination = raise_on_hallucination
        self.allow_unverified = allow_unverified
        self.raise_error = raise_on_hallucination  # LangChain lets a handler's exception out only when set
        self.results: list[AuditResult] = []
        self.by_run: dict[UUID, AuditResult] = {}
        self.errors: list[InputError] = []
        self._auditor = make_auditor(judge, options)
        self._root: dict[UUID, UUID] = {}
        self._runs: dict[UUID, _Run] = {}
        self._lock = threading.Lock()  # sync handlers of an async chain run in worker threads

    def _start(self, run_id: UUID, parent_run_id: Optional[UUID], inputs: Any = None) -> Optional[_Run]:
        with self._lock:
            root = self._root.get(parent_run_id) if parent_run_id is not None else None
            if root is None:
                root = run_id
                self._runs[run_id] = _Run(inputs=inputs)
            self._root[run_id] = root
            return self._runs.get(root)

    def _run_of(self, run_id: UUID) -> Optional[_Run]:
        with self._lock:
            root = self._root.get(run_id)
            return self._runs.get(root) if root is not None else None

    def _retriever_start(self, query: str, run_id: UUID, parent_run_id: Optional[UUID]) -> None:
        run = self._start(run_id, parent_run_id, query)
        if run is not None and isinstance(query, str):
            run.queries.append(query)

    def _retriever_end(self, documents: Any, run_id: UUID) -> None:
        run = self._run_of(run_id)
        if run is not None:
            run.documents.extend(context_of(documents))

    def _llm_end(self, response: Any, run_id: UUID) -> None:
        run = self._run_of(run_id)
        generations = getattr(response, "generations", None)
        if run is not None and generations and generations[-1]:
            last = generations[-1][-1]
            run.llm_output = _text(getattr(last, "message", None)) or getattr(last, "text", None)

    def _finish(self, outputs: Any, run_id: UUID) -> Optional[dict]:
        """The record of an outermost run that just ended (None for an inner run or one that retrieved nothing)."""
        with self._lock:
            if self._root.get(run_id) != run_id:
                return None
            run = self._runs.pop(run_id)
            self._root = {k: v for k, v in self._root.items() if v != run_id}
        answer = _text(outputs) or _text(_first(outputs, _ANSWER)) or run.llm_output
        context = run.documents or _first(run.inputs, _CONTEXT)
        question = _text(run.inputs) or _text(_first(run.inputs, _QUESTION)) or next(iter(run.queries), None)
        if not context:
            self.errors.append(InputError("the run retrieved no documents", record=str(run_id), field="context"))
            return None
        return record(str(run_id), context, answer, question)

    def _done(self, result: AuditResult, run_id: UUID) -> None:
        self.results.append(result)
        self.by_run[run_id] = result
        unconfirmed = result.hallucinated is None and not self.allow_unverified
        if self.raise_on_hallucination and (result.hallucinated or unconfirmed):
            why = " (needs review: no judge confirmed it)" if result.hallucinated is None else ""
            raise HallucinationError(f"run {run_id}: the answer is {result.label.value}{why}\n{table(result)}",
                                     result=result)

    def _abandon(self, run_id: UUID) -> None:
        with self._lock:
            if self._root.get(run_id) == run_id:
                self._runs.pop(run_id, None)
                self._root = {k: v for k, v in self._root.items() if v != run_id}

    @property
    def last(self) -> Optional[AuditResult]:
        """The result of the run that ended last, or None."""
        return self.results[-1] if self.results else None


class AuditCallbackHandler(_Collector, BaseCallbackHandler):
    """Audits each outermost chain run it sees when the run ends (see the module docstring); for ``invoke`` and,
    run in LangChain's worker threads, ``ainvoke``. ``judge`` and ``options`` as for ``AuditRunnable``."""

    def __init__(self, judge: Union[str, Judge] = DEFAULT_JUDGE, *, raise_on_hallucination: bool = False,
                 allow_unverified: bool = False, **options: Any) -> None:
        BaseCallbackHandler.__init__(self)
        self._setup(judge, raise_on_hallucination, allow_unverified, options)

    def on_chain_start(self, serialized: Any, inputs: Any, *, run_id: UUID, parent_run_id: Optional[UUID] = None,
                       **kwargs: Any) -> None:
        self._start(run_id, parent_run_id, inputs)

    def on_llm_start(self, serialized: Any, prompts: Any, *, run_id: UUID, parent_run_id: Optional[UUID] = None,
                     **kwargs: Any) -> None:
        self._start(run_id, parent_run_id)

    def on_chat_model_start(self, serialized: Any, messages: Any, *, run_id: UUID,
                            parent_run_id: Optional[UUID] = None, **kwargs: Any) -> None:
        self._start(run_id, parent_run_id)

    def on_retriever_start(self, serialized: Any, query: str, *, run_id: UUID,
                           parent_run_id: Optional[UUID] = None, **kwargs: Any) -> None:
        self._retriever_start(query, run_id, parent_run_id)

    def on_retriever_end(self, documents: Any, *, run_id: UUID, **kwargs: Any) -> None:
        self._retriever_end(documents, run_id)

    def on_llm_end(self, response: Any, *, run_id: UUID, **kwargs: Any) -> None:
        self._llm_end(response, run_id)

    def on_chain_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        self._abandon(run_id)

    def on_chain_end(self, outputs: Any, *, run_id: UUID, **kwargs: Any) -> None:
        rec = self._finish(outputs, run_id)
        if rec is not None:
            self._done(run_sync(self._auditor.audit(rec)), run_id)


class AsyncAuditCallbackHandler(_Collector, AsyncCallbackHandler):
    """``AuditCallbackHandler`` for async chains (``ainvoke``, ``astream``): the audit is awaited on the chain's
    own event loop."""

    def __init__(self, judge: Union[str, Judge] = DEFAULT_JUDGE, *, raise_on_hallucination: bool = False,
                 allow_unverified: bool = False, **options: Any) -> None:
        AsyncCallbackHandler.__init__(self)
        self._setup(judge, raise_on_hallucination, allow_unverified, options)

    async def on_chain_start(self, serialized: Any, inputs: Any, *, run_id: UUID,
                             parent_run_id: Optional[UUID] = None, **kwargs: Any) -> None:
        self._start(run_id, parent_run_id, inputs)

    async def on_llm_start(self, serialized: Any, prompts: Any, *, run_id: UUID,
                           parent_run_id: Optional[UUID] = None, **kwargs: Any) -> None:
        self._start(run_id, parent_run_id)

    async def on_chat_model_start(self, serialized: Any, messages: Any, *, run_id: UUID,
                                  parent_run_id: Optional[UUID] = None, **kwargs: Any) -> None:
        self._start(run_id, parent_run_id)

    async def on_retriever_start(self, serialized: Any, query: str, *, run_id: UUID,
                                 parent_run_id: Optional[UUID] = None, **kwargs: Any) -> None:
        self._retriever_start(query, run_id, parent_run_id)

    async def on_retriever_end(self, documents: Any, *, run_id: UUID, **kwargs: Any) -> None:
        self._retriever_end(documents, run_id)

    async def on_llm_end(self, response: Any, *, run_id: UUID, **kwargs: Any) -> None:
        self._llm_end(response, run_id)

    async def on_chain_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        self._abandon(run_id)

    async def on_chain_end(self, outputs: Any, *, run_id: UUID, **kwargs: Any) -> None:
        rec = self._finish(outputs, run_id)
        if rec is not None:
            self._done(await self._auditor.audit(rec), run_id)
