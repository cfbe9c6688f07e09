"""Versioned prompt templates kept as package data (``llm/prompts/<name>.<version>.txt``).

A template file has two sections, ``[system]`` and ``[user]``, each starting on its own line. Placeholders use one
syntax, ``{{name}}``, and are filled in a single pass, so a context that happens to contain ``{{claim}}`` is left
as it is. Every placeholder must be given and every given value must be used: a typo fails loudly.

The prompt id (e.g. ``local.v2``) is part of the response-cache key and is stored on every LLM verdict.

Untrusted text (contexts, questions, answers, claims) goes into the judge's prompts between a ``<<<`` line and a
``>>>`` line, and each system prompt says that delimited text is data, never instructions. ``as_data`` makes sure
such a text cannot close its block early: it holds no run of three ``<`` or ``>``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Mapping, Sequence

from ..errors import ConfigError

#: the template files' version a template is loaded at by default: ``v2``, the stable id of ``llm@v2`` (the paper's
#: prompts, RT4CHART Table 2, frozen) and of the decomposers' prompts. Which versions there are, their names
#: (``llm@v2``, ``llm@v3``, ``hybrid@v4``) and their template files' versions: ``rt4chart.llm.prompt_versions``.
PROMPT_VERSION = "v2"
_PLACEHOLDER = re.compile(r"\{\{(\w+)\}\}")
_MARKER = re.compile(r"([<>])\1{2,}")
_SECTION = re.compile(r"^\[(system|user)\][ \t]*$", re.MULTILINE)
_BLOCK = re.compile(r"^([A-Z][A-Z ]*):\n<<<\n(.*?)\n?>>>$", re.MULTILINE | re.DOTALL)
_NUMBERED = re.compile(r"^\[(\d+)\] (.*)$", re.MULTILINE)


@dataclass(frozen=True)
class Prompt:
    """One loaded template: ``id`` is ``"<name>.<version>"``, e.g. ``"global_nic.v1"``."""

    name: str
    version: str
    system: str
    user: str

    @property
    def id(self) -> str:
        return f"{self.name}.{self.version}"

    @property
    def placeholders(self) -> frozenset[str]:
        return frozenset(_PLACEHOLDER.findall(self.system + self.user))

    def render(self, **values: str) -> list[dict[str, str]]:
        """Chat messages with every ``{{name}}`` replaced by ``values[name]``."""
        missing = self.placeholders - values.keys()
        unused = values.keys() - self.placeholders
        if missing or unused:
            raise ConfigError(
                f"prompt {self.id}: missing values {sorted(missing)}, unused values {sorted(unused)}"
            )

        def fill(text: str) -> str:
            return _PLACEHOLDER.sub(lambda m: values[m.group(1)], text)

        return [
            {"role": "system", "content": fill(self.system)},
            {"role": "user", "content": fill(self.user)},
        ]


def parse_prompt(name: str, version: str, text: str) -> Prompt:
    """The ``Prompt`` in a template file's ``text``: exactly a ``[system]`` and a ``[user]`` section, nothing before
    them (``ConfigError`` otherwise). Used for the package's templates and the facets' (``rt4chart.facets``)."""
    parts = _SECTION.split(text)
    # parts = [preamble, "system", body, "user", body]
    sections = dict(zip(parts[1::2], (p.strip("\n") for p in parts[2::2])))
    if parts[0].strip() or set(sections) != {"system", "user"} or len(parts) != 5:
        raise ConfigError(f"prompt {name}.{version}: expected exactly a [system] and a [user] section")
    return Prompt(name=name, version=version, system=sections["system"], user=sections["user"])


#: the packages whose ``prompts/`` folder holds templates: the LLM judge's (the default) and facet diagnostics'
LLM_PROMPTS, FACET_PROMPTS = __package__, "rt4chart.facets"


@lru_cache(maxsize=None)
def load_prompt(name: str, version: str = PROMPT_VERSION, package: str = LLM_PROMPTS) -> Prompt:
    """Load ``prompts/<name>.<version>.txt`` of ``package`` (``LLM_PROMPTS`` or ``FACET_PROMPTS``) from the
    installed package: the one loader of every prompt template."""
    resource = resources.files(package).joinpath("prompts").joinpath(f"{name}.{version}.txt")
    try:
        text = resource.read_text(encoding="utf-8")
    except FileNotFoundError:
        what = "facet prompt template" if package == FACET_PROMPTS else "prompt template"
        raise ConfigError(f"no {what} {name}.{version}") from None
    return parse_prompt(name, version, text)


def available_prompts(package: str = LLM_PROMPTS) -> list[str]:
    """Ids of every template of ``package`` shipped in the installed package, sorted."""
    folder = resources.files(package).joinpath("prompts")
    return sorted(p.name[: -len(".txt")] for p in folder.iterdir() if p.name.endswith(".txt"))


def as_data(text: str) -> str:
    """``text`` with every run of three or more ``<`` or ``>`` shortened to two, so that it cannot end (or open) a
    ``<<<``/``>>>`` block of a prompt; any other text is returned unchanged."""
    return _MARKER.sub(lambda m: m.group(1) * 2, text)


def format_numbered(items: Mapping[int, str]) -> str:
    """``[0] first\\n[1] second``: how claims and sentences are listed inside prompts, one line each (a line break
    inside an item is a space), as data (``as_data``)."""
    return "\n".join(f"[{i}] {' '.join(as_data(text).split())}" for i, text in items.items())


def cited_items(numbers: Sequence[int], items: Sequence[str]) -> tuple[list[str], list[int]]:
    """The items of a numbered list (numbered from 0, as ``format_numbered`` lists them) that a reply cites by number,
    each once, in the order first cited, and the cited numbers that name no item."""
    first = list(dict.fromkeys(numbers))
    return [items[n] for n in first if 0 <= n < len(items)], [n for n in first if not 0 <= n < len(items)]


def data_blocks(text: str) -> dict[str, str]:
    """The data blocks of a rendered user message by their header: ``{"CLAIM": "...", "CONTEXT CHUNK": "..."}`` for
    every ``HEADER:`` line followed by a ``<<<`` line, the text, and a ``>>>`` line (the first block of each header).
    The inverse of how the templates lay out their data, which ``as_data`` keeps unambiguous."""
    out: dict[str, str] = {}
    for m in _BLOCK.finditer(text):
        out.setdefault(m.group(1), m.group(2))
    return out


def parse_numbered(text: str) -> dict[int, str]:
    """The items of a ``format_numbered`` list: ``{0: "first", 1: "second"}``."""
    return {int(m.group(1)): m.group(2) for m in _NUMBERED.finditer(text)}
