"""One-token verdicts: a Yes/No question whose answer is read from the first generated token's log-probabilities.

The request asks for one token with ``logprobs`` and no response format (a grammar or a JSON schema distorts the
label probabilities); ``P(yes) = p(Yes) / (p(Yes) + p(No))``, summed over the case and space variants of each word
among the top tokens. A server that returns no log-probabilities still answers with one word: "Yes" reads as 1.0,
"No" as 0.0. Anything else is unusable (``Answer.failure``), never a guess.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping, Optional, Sequence

from ..errors import BackendError

__all__ = ["Answer", "ask_yes_no", "first_token_logprobs", "yes_probability", "TOP_LOGPROBS"]

#: how many alternatives of the first token are asked for (OpenAI's maximum is 20)
TOP_LOGPROBS = 20
_YES = "yes"
_NO = "no"


def first_token_logprobs(choice: Mapping[str, Any]) -> tuple[tuple[str, float], ...]:
    """The first generated token's ``top_logprobs`` of a chat-completion choice, as (token, logprob) pairs (OpenAI,
    llama.cpp's server, vLLM and Ollama share this shape); empty when the reply carries none."""
    try:
        first = (choice.get("logprobs") or {}).get("content")[0]
        return tuple((str(t["token"]), float(t["logprob"])) for t in first.get("top_logprobs") or ())
    except (TypeError, KeyError, IndexError, AttributeError, ValueError):
        return ()


def _word(token: str) -> str:
    return token.strip().strip(".,:;!\"'").lower()


def yes_probability(top: Sequence[tuple[str, float]], text: str = "") -> Optional[float]:
    """P(yes) renormalised over the two answer words among ``top`` (token, logprob) pairs; without pairs, the
    generated ``text``'s first word (1.0 or 0.0); None when neither answer word is there."""
    yes = sum(math.exp(lp) for t, lp in top if _word(t) == _YES)
    no = sum(math.exp(lp) for t, lp in top if _word(t) == _NO)
    if yes + no > 0:
        return yes / (yes + no)
    if top:
        return None
    words = text.split()
    first = _word(words[0]) if words else ""
    return 1.0 if first == _YES else 0.0 if first == _NO else None


@dataclass(frozen=True)
class Answer:
    """One Yes/No question's outcome: ``p_yes`` in [0, 1], or None and why not (``failure``; ``call_failed`` when
    the backend gave up on the call, rather than the reply being neither Yes nor No)."""

    p_yes: Optional[float]
    failure: str = ""
    cached_tokens: int = 0
    call_failed: bool = False

    @property
    def ok(self) -> bool:
        return self.p_yes is not None


async def ask_yes_no(backend: Any, messages: Sequence[Mapping[str, str]], *, prompt_version: str) -> Answer:
    """Ask ``backend`` one Yes/No question (``messages``, the answer word expected first) for one token.

    Transient failures the backend gave up on come back as a failed ``Answer``; configuration errors raise."""
    try:
        completion = await backend.complete(messages, prompt_version=prompt_version, logprobs=TOP_LOGPROBS)
    except BackendError as exc:
        if exc.is_config_error:
            raise
        return Answer(None, f"call failed: {exc}"[:300], call_failed=True)
    p = yes_probability(completion.top_logprobs, completion.text)
    if p is None:
        seen = ", ".join(repr(t) for t, _ in completion.top_logprobs[:3]) or repr(completion.text[:40])
        return Answer(None, f"reply is neither Yes nor No ({seen})")
    return Answer(p, cached_tokens=completion.usage.cached_tokens)
