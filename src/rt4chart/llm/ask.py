"""One structured question to a ``ChatBackend``: ask, validate the JSON reply, re-ask once with the problems.

STYLE.md "Structured output, bounded retries": transient backend failures (the backend already retried them) and
requests that do not fit the model's context come back as ``failure``; configuration errors
(``BackendError.is_config_error``) raise. A reply cut off at the token cap (``finish_reason: length``) is never
echoed back: the re-ask is the first question again with a note that the reply was cut off, so a runaway reply
cannot push the conversation past the model's context. Used by the LLM judge and decomposers and by the facet
diagnostics.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Generic, Mapping, Optional, TypeVar

from pydantic import BaseModel

from ..errors import BackendError
from .schemas import ReplyError, parse_reply, schema_for

M = TypeVar("M", bound=BaseModel)

REASK = "Your reply could not be used: {problems}\nReply again with only the JSON object described above."
CUT_OFF = "the reply was cut off at the token limit (finish_reason: length)."
TRUNCATED = ("(Your previous reply to this message was cut off at the token limit before its JSON object was "
             "complete, and was discarded. Reply with only the JSON object described above and keep every field "
             "short.)")


@dataclass
class Asked(Generic[M]):
    """The outcome of one ask (+ at most one re-ask)."""

    reply: Optional[M] = None
    raw: Optional[str] = None
    problems: list[str] = field(default_factory=list)
    failure: Optional[str] = None

    @property
    def ok(self) -> bool:
        return self.reply is not None and not self.problems and self.failure is None

    def why(self) -> str:
        if self.failure is not None:
            return f"call failed: {self.failure}"
        return "reply unusable after one re-ask: " + " ".join(self.problems)


async def ask(backend: Any, prompt: Any, values: Mapping[str, str], model: type[M],
              check: Callable[[M], list[str]] = lambda r: [], *, reask: str = REASK) -> Asked[M]:
    """Render ``prompt`` with ``values``, ask ``backend`` for a ``model`` reply, re-ask once (``reask``, with a
    ``{problems}`` placeholder) if it is unusable."""
    messages = prompt.render(**values)
    schema = schema_for(model)
    out: Asked[M] = Asked()
    for round_ in range(2):
        try:
            completion = await backend.complete(messages, schema=schema, prompt_version=prompt.id)
        except BackendError as exc:
            if exc.is_config_error:
                raise
            out.failure = f"{exc} (after {exc.attempts} attempt(s))"
            out.raw = exc.raw if exc.raw is not None else out.raw
            return out
        out.raw = completion.text
        truncated = completion.finish_reason == "length"
        try:
            out.reply = parse_reply(completion.text, model)
            out.problems = check(out.reply)
        except ReplyError as exc:
            out.reply, out.problems = None, [str(exc)]
        if not out.problems:
            return out  # a reply that hit the cap after a complete, valid JSON object is still an answer
        if truncated:
            out.problems = [CUT_OFF, *out.problems]
        if round_ == 0 and truncated:
            *head, last = messages  # not echoed: the same question, noting that the reply was cut off
            messages = [*head, {**last, "content": f"{last['content']}\n\n{TRUNCATED}"}]
        elif round_ == 0:
            messages = [*messages, {"role": "assistant", "content": completion.text},
                        {"role": "user", "content": reask.format(problems=" ".join(out.problems))}]
    return out
