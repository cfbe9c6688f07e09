"""The options of the offline judges, one dataclass each: every field is an option (``rt4chart.options.option``:
its help, its flag and whether it changes verdicts), and the judge is built from the whole object
(``LexicalJudge.from_options``, ``LocalJudge.from_options``, ``HybridJudge``'s factory in the registry). The LLM
judge's are ``rt4chart.llm.settings.LLMJudgeOptions`` and ``Endpoint``."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Optional, Union

from ..options import option

__all__ = ["HybridOptions", "LexicalOptions", "LocalOptions"]


@dataclasses.dataclass(frozen=True)
class LexicalOptions:
    """The lexical judge's options (None: ``LexicalJudge``'s default)."""

    support: Optional[float] = option(
        None, "lexical judge: the share of a claim's content words the evidence must hold (default 0.5)",
        low=0.0, high=1.0)
    match: Optional[float] = option(
        None, "lexical judge: how much of the best number-stating sentence a claim must cover for a number "
        "mismatch to count as a contradiction (default 0.05)",
        low=0.0, high=1.0)


@dataclasses.dataclass(frozen=True)
class LocalOptions:
    """The trained local judge's options."""

    threshold: Optional[float] = option(
        None, "claim threshold of the local judge (default: calibrated, in its model card)")
    no_tagger: bool = option(
        False, "local judge: skip its MiniLM tagger (trees only; about 4x faster, lower F1)")
    model_dir: Optional[Union[str, Path]] = option(
        None, "local judge: a models folder you trained (the training scripts' --out-dir; default: the shipped one)",
        path="dir")
    #: a resource, not a choice: the Ray engine sets it for every named judge, and another judge ignores it
    threads: Optional[int] = option(
        None, "local judge: the onnxruntime threads of its tagger (default: the CPU count, at most 4)", flag=None,
        shared=True, verdict=False)


@dataclasses.dataclass(frozen=True)
class HybridOptions(LocalOptions):
    """The hybrid judge's options: its local judge's and these. Its endpoint is an ``Endpoint``; its prompts are its
    own (one-token verdicts)."""

    floor: Optional[float] = option(
        None, "hybrid judge: claims the local judge scores under this are not sent to the LLM (default 0: every "
        "claim is asked)", low=0.0, high=1.0)
    combination: Optional[Union[str, Path]] = option(
        None, "hybrid judge: a combination card refitted for your model (rt4chart calibrate LABELLED --judge hybrid "
        "--card -o CARD; default: the shipped one, fitted for Qwen2.5-Coder-1.5B-Instruct Q4_K_M)", path="file")
