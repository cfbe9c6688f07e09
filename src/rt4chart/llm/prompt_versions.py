"""The one registry of prompt versions: ``<judge>@<version>`` names (``PROMPT_VERSIONS``).

- ``llm@v2`` (the LLM judge's default; frozen; old spelling ``v2``): the paper's prompts (RT4CHART Table 2), the
  text as it is, step-by-step reasoning, verbatim evidence quotes;
- ``llm@v3`` (old spelling ``v3``): numbered sentences, evidence cited by number, a short reason;
- ``hybrid@v4`` (frozen; old spelling ``hybrid_supports.v4``): the hybrid judge's one-token "is the claim consistent
  with the document" prompt.

A name says whose prompts they are and which version; ``--prompt-version`` and ``LLMJudgeOptions.prompt_version``
take the LLM judge's names (the hybrid judge has one version and takes none). A frozen version's template files never
change (their sha256 are pinned by a test): a change is a new version. ``llm@v2`` is frozen because it is the paper's;
``hybrid@v4`` because the shipped combination (``judges/models/hybrid_combination.json``) was fitted on its replies.

Every verdict an LLM prompt made carries ``<name>/<template>`` as its ``prompt_version`` (``llm@v2/global_nic``,
``hybrid@v4/hybrid_supports``): the version, and which template of it asked (the file
``llm/prompts/<template>.<stable id>.txt``). The old spellings (``v2``, ``v3``) are still accepted, with a deprecation
message naming the new one. Results written before carry the template ids (``global_nic.v2``,
``hybrid_supports.v4``); they load as they are (``prompt_version`` is free text) and ``record_name`` reads both.

Each version keeps a stable id, the template files' version (``v2``, ``v3``, ``v4``): it is what the response cache
keys (``local.v2``, as before: caches written before stay valid) and the judge fingerprints hold, so renaming a
version changes neither a cached reply nor an ``audit --baseline`` match nor a calibration's judge.

The local and lexical judges have no prompts and are not in the namespace: the local judge's ``prompt_version`` is
its models' version (its model cards, ``+tagger@...``), the lexical judge writes none.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Mapping, Optional

from ..errors import ConfigError

__all__ = ["PromptVersion", "PROMPT_VERSIONS", "DEFAULT_LLM", "lookup", "names", "record_name", "resolve"]


@dataclass(frozen=True)
class PromptVersion:
    """One prompt version: ``name`` (``llm@v2``), the ``judge`` whose prompts they are, ``stable_id`` (the template
    files' version, ``llm/prompts/<template>.<stable_id>.txt``; in cache keys and fingerprints), ``frozen``, its
    ``legacy`` spellings, a one-line ``summary`` and the ``templates`` its verdicts come from."""

    name: str
    judge: str
    stable_id: str
    frozen: bool
    legacy: tuple[str, ...]
    summary: str
    templates: tuple[str, ...]

    def record(self, template: str) -> str:
        """What a verdict of ``template`` (``global_nic``) under this version carries: ``llm@v2/global_nic``."""
        return f"{self.name}/{template}"


#: the LLM judge's verdict templates (its decomposers' prompts, ``decompose_*.v2``, are the same in every version)
_LLM_TEMPLATES = ("local", "global_nic", "global_ent", "global_con", "local_batched", "global_batched")

PROMPT_VERSIONS: Mapping[str, PromptVersion] = {p.name: p for p in (
    PromptVersion("llm@v2", "llm", "v2", True, ("v2",),
                  "paper-exact (RT4CHART Table 2): the text as it is, step-by-step reasoning, verbatim evidence quotes",
                  _LLM_TEMPLATES),
    PromptVersion("llm@v3", "llm", "v3", False, ("v3",),
                  "numbered context sentences cited by number, a short reason: replies a small model can give",
                  _LLM_TEMPLATES),
    PromptVersion("hybrid@v4", "hybrid", "v4", True, ("hybrid_supports.v4",),
                  "the hybrid judge's one-token verdict: is the claim consistent with the document, Yes or No",
                  ("hybrid_supports",)),
)}

#: the LLM judge's default
DEFAULT_LLM = "llm@v2"

_LEGACY: Mapping[str, PromptVersion] = {old: p for p in PROMPT_VERSIONS.values() for old in p.legacy}


def names(judge: Optional[str] = None) -> list[str]:
    """The names in the registry (of ``judge``'s prompts only, when given), in registry order."""
    return [p.name for p in PROMPT_VERSIONS.values() if judge is None or p.judge == judge]


def lookup(name: str, *, judge: Optional[str] = None) -> tuple[PromptVersion, Optional[str]]:
    """The version ``name`` names, and the deprecation message when ``name`` is an old spelling (else None).
    ``ConfigError`` listing the known names for a name the registry does not have, or (``judge`` given) for
    another judge's version. Callers show the message their way (the CLI on stderr, the library as a
    ``DeprecationWarning``)."""
    entry = PROMPT_VERSIONS.get(name)
    message = None
    if entry is None and name in _LEGACY:
        entry = _LEGACY[name]
        message = f"prompt version {name!r} is now spelled {entry.name!r}; the old spelling will be removed"
    known = names(judge)
    if entry is None:
        old = ", ".join(p for p in _LEGACY if judge is None or _LEGACY[p].judge == judge)
        raise ConfigError(f"unknown prompt version {name!r}: known versions are {', '.join(known)}"
                          + (f" (old spellings: {old})" if old else ""))
    if judge is not None and entry.judge != judge:
        raise ConfigError(f"prompt version {entry.name} is the {entry.judge} judge's; the {judge} judge's are "
                          f"{', '.join(known)}")
    return entry, message


def resolve(name: str, *, judge: Optional[str] = None, stacklevel: int = 1) -> PromptVersion:
    """``lookup`` for the library: an old spelling gives a ``DeprecationWarning`` and its version. The warning points
    at the caller of ``resolve`` (``stacklevel`` 1), or of its caller (2), and so on."""
    version, deprecated = lookup(name, judge=judge)
    if deprecated:
        warnings.warn(deprecated, DeprecationWarning, stacklevel=stacklevel + 1)
    return version


def record_name(value: Optional[str]) -> Optional[str]:
    """A verdict's ``prompt_version`` in the namespace's spelling: ``llm@v2/global_nic`` as it is, and the template
    id that results written before carry (``global_nic.v2``, ``hybrid_supports.v4``) as ``llm@v2/global_nic``,
    ``hybrid@v4/hybrid_supports``. Any other value (None, the local judge's model version) is returned as it is."""
    template, _, stable = (value or "").rpartition(".")
    owner = next((p for p in PROMPT_VERSIONS.values() if p.stable_id == stable and template in p.templates), None)
    return owner.record(template) if owner is not None else value
