"""ExpertQA (Malaviya et al., NAACL 2024; MIT): expert questions with one system's cited answer and, per answer
sentence ("claim"), the expert's label of how its cited evidence supports it. Stored under
``<data>/expertqa/{split}.jsonl.gz`` (see that folder's PROVENANCE.md; only the validation split ``rand_val`` is
there).

Each claim becomes one :class:`CitedClaim`: the claim sentence with its markers as the answer, the answer's passages
as its context (marker n = the n-th passage; the release gives the text of cited passages only, so a passage no
claim cites is empty), and the expert's ``support`` (Complete / Incomplete / Partial / Missing / N/A).
"""

from __future__ import annotations

import ast
import os
import re
from dataclasses import dataclass
from typing import Optional

from rt4chart.errors import InputError

from ._files import iter_jsonl, jsonl_file, resolve_dir

_EVIDENCE = re.compile(r"\[(\d+)\][^\n]*\n\n(.*)", re.S)


@dataclass(frozen=True)
class CitedClaim:
    """One ExpertQA claim: its id (``<line>-<system>-<claim>``), question, the claim sentence with its markers, the
    answer's passages (numbered from 1 by position) and the expert's support label (None when the release has none)."""

    id: str
    question: str
    claim: str
    passages: tuple[str, ...]
    support: Optional[str]

    def to_record(self) -> dict:
        """The audit input record: the passages as a list context, the claim sentence as the answer."""
        return {"id": self.id, "context": list(self.passages), "question": self.question, "answer": self.claim}


def load_expertqa(split: str = "rand_val", *, root: "str | os.PathLike[str] | None" = None) -> list[CitedClaim]:
    """The claims of one ExpertQA split, in file order."""
    folder = resolve_dir(root, "expertqa", lambda p: p.is_dir())
    path = jsonl_file(folder, split, "ExpertQA")
    out: list[CitedClaim] = []
    for line, row in iter_jsonl(path):
        answers = row.get("answers")
        if isinstance(answers, str):
            answers = ast.literal_eval(answers)
        if not isinstance(answers, dict) or not answers:
            raise InputError("no answers", record=line, field="answers")
        for system, answer in sorted(answers.items()):
            texts: dict[int, str] = {}
            for claim in answer.get("claims", []):
                for ev in claim.get("evidence") or []:
                    m = _EVIDENCE.match(ev)
                    if m and len(m.group(2).strip()) > len(texts.get(int(m.group(1)), "")):
                        texts[int(m.group(1))] = m.group(2).strip()
            n = max([len(answer.get("attribution") or []), *texts])
            passages = tuple(texts.get(k, "") for k in range(1, n + 1))
            for k, claim in enumerate(answer.get("claims", [])):
                out.append(CitedClaim(id=f"{line}-{system}-{k}", question=row.get("question", ""),
                                      claim=claim["claim_string"], passages=passages, support=claim.get("support")))
    return out
