"""Facet prompt templates, versioned package data in ``rt4chart/facets/prompts/<name>.<version>.txt``.

Same file format and placeholder syntax as ``rt4chart.llm.templates`` (a ``[system]`` and a ``[user]`` section,
``{{name}}`` placeholders); the loaded object is that module's ``Prompt``, so rendering and the prompt id used in
cache keys behave identically.
"""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources

from ..errors import ConfigError

_SECTION = re.compile(r"^\[(system|user)\][ \t]*$", re.MULTILINE)


@lru_cache(maxsize=None)
def load_facet_prompt(name: str, version: str = "v1"):  # -> rt4chart.llm.templates.Prompt
    """Load ``facets/prompts/<name>.<version>.txt``."""
    from ..llm.templates import Prompt

    resource = resources.files(__package__).joinpath("prompts").joinpath(f"{name}.{version}.txt")
    try:
        text = resource.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"no facet prompt template {name}.{version}") from None
    parts = _SECTION.split(text)
    sections = dict(zip(parts[1::2], (p.strip("\n") for p in parts[2::2])))
    if parts[0].strip() or set(sections) != {"system", "user"} or len(parts) != 5:
        raise ConfigError(f"prompt {name}.{version}: expected exactly a [system] and a [user] section")
    return Prompt(name=name, version=version, system=sections["system"], user=sections["user"])


def facet_prompt_ids() -> list[str]:
    """Ids of every facet template shipped in the package, sorted."""
    folder = resources.files(__package__).joinpath("prompts")
    return sorted(p.name[: -len(".txt")] for p in folder.iterdir() if p.name.endswith(".txt"))
