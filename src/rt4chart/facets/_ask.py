"""One structured question to a ``ChatBackend``: ask, validate the JSON reply, re-ask once with the problems.

The same policy as the LLM judge (STYLE.md "Structured output, bounded retries"): transient backend failures
(the backend already retried them) come back as ``failure``; configuration errors (HTTP 4xx other than
408/409/425/429) raise ``BackendError``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Generic, Optional, TypeVar

from pydantic import BaseModel

from ..errors import BackendError

M = TypeVar("M", bound=BaseModel)

_RETRYABLE = frozenset({408, 409, 425, 429})
REASK = "Your reply could not be used: {problems}\nReply again with only the JSON object described above."


@dataclass
class Asked(Generic[M]):
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


async def ask(backend: object, prompt: object, values: dict[str, str], model: type[M],
              check: Callable[[M], list[str]] = lambda r: []) -> Asked[M]:
    """Render ``prompt`` with ``values``, ask ``backend`` for a ``model`` reply, re-ask once if it is unusable."""
    from ..llm.schemas import ReplyError, parse_reply, schema_for

    messages = prompt.render(**values)  # type: ignore[attr-defined]
    schema = schema_for(model)
    out: Asked[M] = Asked()
    for round_ in range(2):
        try:
            completion = await backend.complete(messages, schema=schema, prompt_version=prompt.id)  # type: ignore[attr-defined]
        except BackendError as exc:
            if exc.status is not None and exc.status < 500 and exc.status not in _RETRYABLE:
                raise
            out.failure = f"{exc} (after {exc.attempts} attempt(s))"
            out.raw = exc.raw if exc.raw is not None else out.raw
            return out
        out.raw = completion.text
        try:
            out.reply = parse_reply(completion.text, model)
            out.problems = check(out.reply)
        except ReplyError as exc:
            out.reply, out.problems = None, [str(exc)]
        if not out.problems:
            return out
        if round_ == 0:
            messages = [*messages, {"role": "assistant", "content": completion.text},
                        {"role": "user", "content": REASK.format(problems=" ".join(out.problems))}]
    return out
