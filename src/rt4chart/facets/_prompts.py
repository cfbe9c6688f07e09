"""Facet prompt templates, versioned package data in ``rt4chart/facets/prompts/<name>.<version>.txt``.

Same file format and placeholder syntax as ``rt4chart.llm.templates`` (a ``[system]`` and a ``[user]`` section,
``{{name}}`` placeholders), parsed by that module's ``parse_prompt`` into its ``Prompt``, so rendering and the
prompt id used in cache keys behave identically.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

from ..errors import ConfigError
from ..llm.templates import Prompt, parse_prompt


@lru_cache(maxsize=None)
def load_facet_prompt(name: str, version: str = "v1") -> Prompt:
    """Load ``facets/prompts/<name>.<version>.txt``."""
    resource = resources.files(__package__).joinpath("prompts").joinpath(f"{name}.{version}.txt")
    try:
        text = resource.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"no facet prompt template {name}.{version}") from None
    return parse_prompt(name, version, text)


def facet_prompt_ids() -> list[str]:
    """Ids of every facet template shipped in the package, sorted."""
    folder = resources.files(__package__).joinpath("prompts")
    return sorted(p.name[: -len(".txt")] for p in folder.iterdir() if p.name.endswith(".txt"))
