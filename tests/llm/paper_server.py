"""A scripted judge for the paper's running example (RT4CHART Figure 1, Table 1, W=2, O=1).

It answers every prompt the LLM judge and decomposer send, in both granularities, from a fixed table: the
per-chunk labels of Table 1 and the final labels after global verification. Requests are classified by the
section headers of the prompt templates, as a person reading the prompt would.
"""

from __future__ import annotations

import re

from rt4chart.testing.openai_server import ChatRequest

S = [
    "The free trial described in this policy is available to new users of the Pro plan.",
    "Only new users who have completed identity verification are eligible for the free trial.",
    "The free trial lasts 14 days from the date of activation.",
    "Eligible users may request one seven-day extension of the trial.",
]
CONTEXT = " ".join(S)
QUESTION = "Who is eligible for the free trial, and how long does it last?"
ANSWER = (
    "The policy applies to all users and verification is not required. The free trial lasts 14 days. "
    "Verified new users can receive a one-time 7-day extension of the free trial. "
    "The trial includes priority email support."
)
RECORD = {"id": "paper-figure-1", "context": CONTEXT, "question": QUESTION, "answer": ANSWER}

C1 = "The policy applies to all users."
C2 = "Verification is not required for the free trial."
C3 = "The free trial lasts 14 days."
C4 = "Verified new users can receive a one-time 7-day extension of the free trial."
C5 = "The trial includes priority email support."
DECOMPOSITION = {
    "The policy applies to all users and verification is not required.": [C1, C2],
    "The free trial lasts 14 days.": [C3],
    "Verified new users can receive a one-time 7-day extension of the free trial.": [C4],
    "The trial includes priority email support.": [C5],
}
E, C, N = "entailed", "contradicted", "baseless"
# Table 1: chunk labels for Chk0={s0,s1}, Chk1={s1,s2}, Chk2={s2,s3}, then the final label and its evidence.
TABLE = {
    C1: ([C, C, N], C, [S[1]]),
    C2: ([C, C, N], C, [S[1]]),
    C3: ([N, E, E], E, [S[2]]),
    C4: ([N, N, N], E, [S[0], S[1], S[3]]),
    C5: ([N, N, N], N, []),
}
LOCAL_EVIDENCE = {C: [S[1]], E: [S[2]], N: []}


def section(text: str, header: str) -> str:
    """The text between ``<<<`` and ``>>>`` after ``header``."""
    m = re.search(re.escape(header) + r"\n<<<\n(.*?)\n>>>", text, re.DOTALL)
    assert m, f"no {header} section"
    return m.group(1)


def chunk_index(chunk: str) -> int:
    return min(i for i, s in enumerate(S) if s in chunk)


def verdict(label: str, evidence: list[str], **extra) -> dict:
    return {**extra, "reasoning": "scripted", "evidence": evidence, "verdict": label, "reason": f"scripted {label}"}


def listed_claims(user: str) -> list[str]:
    return re.findall(r"^\[(\d+)\] (.+)$", section(user, "CLAIMS:"), re.MULTILINE)


def paper_judge(req: ChatRequest) -> dict:
    user = req.user
    if "SENTENCE TO DECOMPOSE:" in user:
        return {"claims": DECOMPOSITION[section(user, "SENTENCE TO DECOMPOSE:")]}
    if "ANSWER SENTENCES:" in user:
        numbered = re.findall(r"^\[(\d+)\] (.+)$", section(user, "ANSWER SENTENCES:"), re.MULTILINE)
        return {"claims": [{"sentence": int(i), "claim": c} for i, s in numbered for c in DECOMPOSITION[s]]}
    if "CONTEXT CHUNK:" in user:
        k = chunk_index(section(user, "CONTEXT CHUNK:"))
        if "CLAIMS:" in user:
            return {"verdicts": [
                verdict(TABLE[c][0][k], LOCAL_EVIDENCE[TABLE[c][0][k]], claim=int(i)) for i, c in listed_claims(user)
            ]}
        label = TABLE[section(user, "CLAIM:")][0][k]
        return verdict(label, LOCAL_EVIDENCE[label])
    assert "FULL CONTEXT:" in user, user
    if "CLAIMS:" in user:
        return {"verdicts": [verdict(TABLE[c][1], TABLE[c][2], claim=int(i)) for i, c in listed_claims(user)]}
    claim = section(user, "CLAIM:")
    return verdict(TABLE[claim][1], TABLE[claim][2])


def kind(req: ChatRequest) -> str:
    """decompose | local | global_nic | global_ent | global_con | local_batched | global_batched."""
    user = req.user
    if "SENTENCE TO DECOMPOSE:" in user or "ANSWER SENTENCES:" in user:
        return "decompose"
    batched = "CLAIMS:" in user
    if "CONTEXT CHUNK:" in user:
        return "local_batched" if batched else "local"
    if batched:
        return "global_batched"
    if "FOCUS CHUNK:" not in user:
        return "global_nic"
    return "global_ent" if "looked entailed" in user else "global_con"
