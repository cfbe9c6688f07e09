"""How the LLM judge shows its evidence text and reads a verdict's evidence, by prompt version (``READINGS``).

- ``v2`` (the paper-exact replies): the chunk or the full context is shown as it is, as data; a verdict reasons step
  by step, quotes its evidence and gives its label, and an entailed or contradicted verdict needs at least one quote
  found in that text (``locate_quote``: whitespace, case and quote style aside).
- ``v3`` (replies a small model can give): the chunk or the full context is shown as numbered sentences (``[0] ...``,
  the sentences ``rt4chart.text.segment`` splits it into, the auditor's own splitter); a verdict gives a short reason,
  its label, then the numbers of the sentences it rests on (``CitedVerdict``), and those sentences' exact text
  becomes its evidence, so every evidence quote is in the context by construction. An entailed or contradicted
  verdict that cites no sentence, or a number that names none, is unusable like an ungrounded quote in ``v2``: re-asked
  once, then ``unverified``. A focus chunk (Table 2's location hint) is named by its sentence numbers, not repeated.

A baseless verdict has no evidence (RT4CHART Eq. 1): whatever it quotes or cites is dropped.

``quote_ids`` gives a verdict's quotes their sentence ids (``Judgment.evidence_ids``): those of the sentences of the
text shown (as the auditor splits it) that a quote lies in, when it occurs there exactly once; a quote found twice,
or re-flowed by the model, gets none and the auditor finds it by text.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Optional, Sequence

from pydantic import BaseModel

from ..errors import ConfigError
from ..text.align import quote_ids as _quote_ids
from ..text.segment import split_sentences
from ..types import Label, Sentence
from .schemas import BatchVerdictReply, CitedVerdict, VerdictReply, batch_cited_reply, locate_quote
from .templates import as_data, cited_items, format_numbered

__all__ = ["Shown", "Reading", "READINGS", "quote_ids", "reading"]

#: what a re-ask says after the problems, by prompt version
_REASK_QUOTES = ("Your reply could not be used: {problems}\n"
                 "Reply again with only the JSON object described above. Copy every evidence quote character for "
                 "character from the text you were given.")
_REASK_NUMBERS = ("Your reply could not be used: {problems}\n"
                  "Reply again with only the JSON object described above. Cite evidence by the numbers in square "
                  "brackets of the sentences you were given.")
_NO_HINT = "LOCAL baseless: no location hint; search the whole context from scratch."


@dataclass(frozen=True)
class Shown:
    """An evidence text (a chunk or the full context) as a prompt shows it: ``source`` as given, ``text`` as the
    prompt holds it, and (``v3``) the ``sentences`` of ``source`` that ``text`` numbers, with their offsets."""

    source: str
    text: str
    sentences: tuple[Sentence, ...] = ()


@dataclass(frozen=True)
class Reading:
    """One prompt version's way to show evidence and read a verdict's evidence (module docstring)."""

    version: str
    numbered: bool
    single: type[BaseModel]
    batch: Callable[[int], type[BaseModel]]
    reask: str

    def show(self, text: str) -> Shown:
        """``text`` as this version's prompts show it."""
        if not self.numbered:
            return Shown(text, as_data(text))
        sentences = tuple(split_sentences(text))
        numbered = format_numbered({i: s.text for i, s in enumerate(sentences)})
        return Shown(text, numbered or "(no sentences)", sentences)

    def evidence(self, verdict: Any, shown: Shown, where: str) -> tuple[tuple[str, ...], list[str]]:
        """The evidence quotes of one verdict of a reply (its quotes in ``v2``, the sentences it cites in ``v3``) and
        what is wrong with them (an entailed or contradicted verdict needs evidence that is in the text)."""
        if verdict.verdict == "baseless":
            return (), []
        if self.numbered:
            return _cited(verdict.verdict, verdict.sentences, shown, where)
        return _quoted(verdict.verdict, verdict.evidence, shown.source, where)

    def focus(self, shown: Shown, hint: str) -> Optional[dict[str, str]]:
        """The prompt values that point a global verdict at its focus chunk ``hint``: the chunk itself (``v2``), or
        the numbers of its sentences in the context (``v3``; None when ``hint`` is not found in it word for word)."""
        if not self.numbered:
            return {"focus": as_data(hint)}
        ids = _within(shown, hint)
        return None if ids is None else {"focus_sentences": ids}

    def local_results(self, labels: Sequence[Label], hints: Sequence[Optional[str]], shown: Shown
                      ) -> dict[str, str]:
        """The prompt values that list each claim's local result for the batched global call: its local label and
        focus chunk (``v2``: each focus chunk once, as ``F0``, ``F1`` ...; ``v3``: by its sentence numbers, and a
        focus chunk not found in the context is no hint, as ``focus`` makes it for a per-claim call)."""
        lines: list[str] = []
        focus_ids: dict[str, int] = {}
        for i, (label, hint) in enumerate(zip(labels, hints)):
            located = hint if hint is not None and label in (Label.ENTAILED, Label.CONTRADICTED) else None
            if located is not None and self.numbered:
                ids = _within(shown, located)
                lines.append(f"claim {i}: " + (_NO_HINT if ids is None else
                                               f"LOCAL {label.value}: focus sentences {ids}."))
            elif located is not None:
                fid = focus_ids.setdefault(located, len(focus_ids))
                lines.append(f"claim {i}: LOCAL {label.value}: focus chunk F{fid}.")
            else:
                lines.append(f"claim {i}: {_NO_HINT}")
        if self.numbered:
            return {"local_results": "\n".join(lines)}
        focus = "\n\n".join(f"F{fid}:\n<<<\n{as_data(text)}\n>>>" for text, fid in focus_ids.items()) or "(none)"
        return {"focus_chunks": focus, "local_results": "\n".join(lines)}


def quote_ids(quotes: Sequence[str], shown: Shown) -> tuple[tuple[int, ...], ...]:
    """Per quote, the ids of the sentences of ``shown.source`` it lies in (module docstring); () when no quote
    has any."""
    if not quotes:
        return ()
    sentences = shown.sentences or tuple(split_sentences(shown.source))
    ids = tuple(_quote_ids(q, shown.source, sentences) for q in quotes)
    return ids if any(ids) else ()


def _quoted(verdict: str, quotes: Sequence[str], text: str, where: str) -> tuple[tuple[str, ...], list[str]]:
    quotes = [q for q in quotes if q.strip()]
    if not quotes:
        return (), [f'a "{verdict}" verdict needs at least one evidence quote from the {where}.']
    located = [locate_quote(q, text) for q in quotes]
    missing = [q for q, hit in zip(quotes, located) if hit is None]
    if missing:
        return (), [f"these evidence quotes do not occur in the {where}: {json.dumps(missing, ensure_ascii=False)}."]
    return tuple(dict.fromkeys(hit for hit in located if hit is not None)), []


def _cited(verdict: str, numbers: Sequence[int], shown: Shown, where: str) -> tuple[tuple[str, ...], list[str]]:
    if not numbers:
        return (), [f'a "{verdict}" verdict needs the number of at least one sentence of the {where}.']
    texts, bad = cited_items(numbers, [s.text for s in shown.sentences])
    if bad:
        n = len(shown.sentences)
        have = f"they are numbered 0 to {n - 1}" if n else "it has none"
        return (), [f"the {where} has no sentence {', '.join(f'[{b}]' for b in bad)} ({have})."]
    return tuple(dict.fromkeys(texts)), []


def _within(shown: Shown, hint: str) -> Optional[str]:
    """``[a] to [b]``: the numbers of the sentences of ``shown`` that lie in the first occurrence of ``hint``."""
    start = shown.source.find(hint) if hint else -1
    if start < 0:
        return None
    end = start + len(hint)
    ids = [i for i, s in enumerate(shown.sentences) if start <= s.start and s.end <= end]
    if not ids:
        return None
    return f"[{ids[0]}]" if ids[0] == ids[-1] else f"[{ids[0]}] to [{ids[-1]}]"


#: the LLM judge's prompt versions: ``v2`` the paper-exact quotes, ``v3`` cited sentence numbers (module docstring)
READINGS: Mapping[str, Reading] = {
    "v2": Reading("v2", False, VerdictReply, lambda n: BatchVerdictReply, _REASK_QUOTES),
    "v3": Reading("v3", True, CitedVerdict, batch_cited_reply, _REASK_NUMBERS),
}


def reading(version: str) -> Reading:
    """The ``Reading`` of the LLM judge's prompt version ``version`` (``ConfigError`` for one it does not have)."""
    if version not in READINGS:
        raise ConfigError(f"the LLM judge's prompt version must be one of {', '.join(READINGS)}, got {version!r}")
    return READINGS[version]
