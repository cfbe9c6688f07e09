"""``VerifierJudge`` (``--judge verifier``) on the tiny ONNX verifier of ``verifier_helpers``, with pushes that make
its outcome controllable: a premise or claim holding "indeed" reads entailed, one holding "never" contradicted (it
outweighs "indeed"), any other pair neutral (the bias). No torch."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner
from verifier_helpers import tiny_model, write_card, write_folder

from rt4chart import Label
from rt4chart.audit.relation import violations
from rt4chart.cli import main
from rt4chart.errors import ConfigError
from rt4chart.evidence import EvidenceIndex, premise_sentences, premise_text
from rt4chart.judges.registry import build_auditor, make_judge
from rt4chart.judges.verifier import VerifierJudge
from rt4chart.judges.verifier import judge as J
from rt4chart.types import AuditResult, Claim, Span

E, C, N, U = Label.ENTAILED, Label.CONTRADICTED, Label.BASELESS, Label.UNVERIFIED
PUSHES = {"never": (0.0, 400.0, 0.0), "indeed": (200.0, 0.0, 0.0)}

MUSEUM = "The museum is indeed open daily. Tickets cost ten euros. The park is large."


@pytest.fixture(scope="module")
def model_bytes() -> bytes:
    return tiny_model(PUSHES).SerializeToString()


@pytest.fixture
def folder(tmp_path: Path, model_bytes: bytes) -> Path:
    return write_folder(tmp_path / "verifier", model_bytes)


class Counting:
    """Wraps a judge's ``Verifier.probs``: the pairs of each call, and the thread each ran in."""

    def __init__(self, judge: VerifierJudge) -> None:
        self.inner = judge.verifier.probs
        self.calls: list[list[tuple[str, str]]] = []
        self.threads: list[int] = []
        judge.verifier.probs = self  # type: ignore[method-assign]

    def __call__(self, pairs: Any, **kw: Any) -> np.ndarray:
        self.calls.append(list(pairs))
        self.threads.append(threading.get_ident())
        return self.inner(pairs, **kw)

    @property
    def pairs(self) -> list[tuple[str, str]]:
        return [p for call in self.calls for p in call]


@pytest.fixture
def judge(folder: Path) -> VerifierJudge:
    return VerifierJudge(folder, threads=1)


def claims_of(*texts: str) -> list[Claim]:
    return [Claim(index=i, text=t, sentence_index=i, answer_spans=()) for i, t in enumerate(texts)]


def checked(judgments: list, evidence: str) -> list:
    """Every entailed or contradicted judgment quotes exact sentences of ``evidence``; the others quote none."""
    texts = EvidenceIndex(evidence).texts
    for j in judgments:
        if j.label in (E, C):
            assert j.evidence and all(q in texts for q in j.evidence), j
        else:
            assert j.evidence == (), j
    return judgments


def test_local_labels_entailed_contradicted_baseless(judge: VerifierJudge):
    got = checked(judge.judge_all(["The museum is open daily.", "The museum never opens.",
                                   "Tickets cost ten euros."], MUSEUM), MUSEUM)
    assert [j.label for j in got] == [E, C, N]
    assert got[0].evidence == got[1].evidence == ("The museum is indeed open daily.",)


def test_a_chunk_sharing_no_word_is_baseless_without_a_model_pass(judge: VerifierJudge):
    counting = Counting(judge)
    [j] = judge.judge_all(["Dogs bark loudly at night."], MUSEUM)
    assert (j.label, j.score, j.evidence) == (N, 1.0, ())
    assert counting.pairs == []


@pytest.mark.parametrize("claim", [
    "Here is a summary of the passage:",
    "Sure, I can help you with that!",
    "Based on the passages, I cannot find any information about parking.",
    "It is.",
    "If you have any further questions, feel free to ask.",
])
def test_nothing_to_check_is_unverified_with_a_reason_and_no_model_pass(judge: VerifierJudge, claim: str):
    counting = Counting(judge)
    [j] = judge.judge_all([claim], MUSEUM)
    assert j.label == U and j.reason and j.score is None and j.evidence == ()
    assert counting.pairs == []


def test_a_remark_sharing_words_with_the_evidence_is_judged(judge: VerifierJudge):
    [j] = judge.judge_all(["The passages say the museum is open daily:"], MUSEUM)
    assert j.label == E


def test_the_question_decides_nothing(judge: VerifierJudge):
    claims = claims_of("The museum is open daily.", "Tickets cost ten euros.", "Here is a summary:")

    async def run(question: Any) -> list:
        return await judge.judge(claims, MUSEUM, question=question, stage="local")

    assert asyncio.run(run(None)) == asyncio.run(run("Is the museum open daily, and what do tickets cost?"))


def test_scores_are_one_minus_p_entailment_of_the_pass(judge: VerifierJudge):
    claims = ["The museum is open daily.", "The museum never opens.", "Tickets cost ten euros."]
    got = judge.judge_all(claims, MUSEUM)
    index = EvidenceIndex(MUSEUM)
    premises = [premise_text(index, premise_sentences(index, c, max_words=judge.max_words)) for c in claims]
    p = judge.verifier.probs(list(zip(premises, claims)))
    assert [j.score for j in got] == [round(1.0 - float(pe), 4) for pe in p[:, 0]]
    assert got[0].score < 0.5 < got[2].score <= got[1].score


def test_evidence_is_the_strongly_related_premise_sentences_in_context_order(judge: VerifierJudge):
    ctx = ("The museum is indeed open daily. Visitors love the museum garden. The garden is open daily in summer. "
           "Parking is free.")
    [j] = judge.judge_all(["The museum is indeed open daily and its garden too."], ctx)
    index = EvidenceIndex(ctx)
    ids = premise_sentences(index, "The museum is indeed open daily and its garden too.")
    assert 1 in ids  # in the premise, but only half as related as the best: not evidence
    assert j.label == E and j.evidence == (index.texts[0], index.texts[2])
    assert J.VerifierJudge.evidence(index, "Parking is free.", (3,)) == ("Parking is free.",)


def test_one_edit_is_a_contradiction_whatever_the_model_says(judge: VerifierJudge):
    evidence = "The Eiffel Tower is indeed in Paris. It was built in 1889."
    claim = "The Eiffel Tower is indeed in London."
    [j] = checked(judge.judge_all([claim], evidence), evidence)  # the model alone reads "indeed": entailed
    assert j.label == C and j.evidence == ("The Eiffel Tower is indeed in Paris.",)
    assert j.spans == (Span(start=claim.index("London"), end=claim.index("London") + 6),)
    assert "London" in j.reason and "Paris" in j.reason and j.score == 0.5  # raised to 1 - entailment threshold


@pytest.mark.parametrize("probs, thresholds, label", [
    ((0.3, 0.6, 0.1), {}, C),
    ((0.45, 0.5, 0.05), {}, C),  # reaches its threshold and beats entailment
    ((0.5, 0.5, 0.0), {}, E),  # does not beat entailment, which reaches its threshold
    ((0.2, 0.4, 0.4), {}, N),
    ((0.2, 0.4, 0.4), {"contradiction": 0.3}, C),
    ((0.4, 0.3, 0.3), {}, N),
    ((0.4, 0.3, 0.3), {"entailment": 0.4}, E),
])
def test_decisions_from_probabilities_and_thresholds(folder: Path, probs: tuple, thresholds: dict, label: Label):
    judge = VerifierJudge(folder, thresholds=thresholds)
    index = EvidenceIndex(MUSEUM)
    j = judge.decide("The museum opens daily.", index, (0,), np.array(probs))
    assert j.label == label and j.score == round(1.0 - probs[0], 4)
    assert j.evidence == (() if label == N else (index.texts[0],))


def test_thresholds_come_from_the_card_and_the_constructor_overrides(folder: Path):
    assert VerifierJudge(folder).thresholds == {"entailment": 0.5, "contradiction": 0.5}
    write_card(folder, thresholds={"entailment": 0.7, "contradiction": 0.6})
    assert VerifierJudge(folder).thresholds == {"entailment": 0.7, "contradiction": 0.6}
    assert VerifierJudge(folder, thresholds={"entailment": 0.4}).thresholds == {"entailment": 0.4,
                                                                               "contradiction": 0.6}
    for bad in ({"entailment": 1.0}, {"contradiction": 0}, {"entailment": "0.5"}, {"neutral": 0.5}):
        with pytest.raises(ConfigError, match="threshold"):
            VerifierJudge(folder, thresholds=bad)
    with pytest.raises(ConfigError, match="max_words"):
        VerifierJudge(folder, max_words=0)


def test_a_missing_model_folder_says_what_is_missing_and_how_to_make_it(tmp_path: Path):
    with pytest.raises(ConfigError, match=r"verifier\.onnx, verifier_tokenizer\.json, verifier\.json.*"
                                          r"rt4chart_training\.verifier\.train.*rt4chart_training\.verifier\.export"):
        VerifierJudge(tmp_path)
    with pytest.raises(ConfigError, match=rf"no verifier model in {tmp_path}"):
        make_judge("verifier", model_dir=str(tmp_path))


HINTED = ("Visitors say it is indeed open. The park is large. The lake is deep. "
          "The museum is open daily in summer.")
CLAIM = "The museum is open daily."


def test_global_a_hint_leads_the_premise_and_no_hint_reads_the_whole_context(folder: Path):
    judge = VerifierJudge(folder, max_words=8)
    counting = Counting(judge)
    index = EvidenceIndex(HINTED)
    focus = "Visitors say it is indeed open. The park is large."  # a chunk of the context
    assert judge.hint_sentences(index, CLAIM, focus) == (0,)
    [hinted] = judge.judge_all([CLAIM], HINTED, hints=[focus])
    [plain] = judge.judge_all([CLAIM], HINTED, hints=[None])
    assert [p for p, _ in counting.pairs] == [index.texts[0], index.texts[3]]  # within 8 words: one sentence each
    assert (hinted.label, hinted.evidence) == (E, (index.texts[0],))
    assert plain.label == N


def test_a_hint_not_found_verbatim_is_mapped_by_sentence_text(judge: VerifierJudge):
    index = EvidenceIndex(HINTED)
    # the chunk's premise sentences, in the chunk's order (what premise_sentences puts first)
    hint = "The museum is open daily in summer.\n\nThe park is large. Visitors say it is indeed open."
    assert judge.hint_sentences(index, CLAIM, hint) == (3, 0)
    assert judge.hint_sentences(index, CLAIM, "Nothing of the context.") == ()


def test_hints_are_read_at_global_verification_only(folder: Path):
    judge = VerifierJudge(folder, max_words=8)
    focus = ["Visitors say it is indeed open."]

    async def run(stage: Any) -> Label:
        [j] = await judge.judge(claims_of(CLAIM), HINTED, question=None, stage=stage, hints=focus)
        return j.label

    assert asyncio.run(run("global")) == E
    assert asyncio.run(run("local")) == N
    with pytest.raises(ConfigError, match="one per claim"):
        asyncio.run(judge.judge(claims_of(CLAIM, CLAIM), HINTED, question=None, stage="global", hints=focus))


def test_the_auditor_gives_the_focus_chunk_as_hint_table_2(folder: Path):
    auditor = build_auditor("verifier", model_dir=str(folder), window=2, overlap=0)
    auditor.judge = VerifierJudge(folder, max_words=8)
    result = asyncio.run(auditor.audit({"id": 1, "context": HINTED, "answer": CLAIM}))
    [verdict] = result.claims
    assert verdict.chunk_labels == (E, N) and verdict.local_label == E and verdict.focus_chunk == 0
    assert verdict.label == E and [ev.text for ev in verdict.evidence] == ["Visitors say it is indeed open."]
    assert [ev.sentence_ids for ev in verdict.evidence] == [(0,)]


def test_a_one_chunk_record_runs_each_pair_once(judge: VerifierJudge):
    counting = Counting(judge)
    answer = "The museum is open daily. The museum never opens. Tickets cost ten euros. Dogs bark."
    auditor = build_auditor("lexical")
    auditor.judge = judge
    result = asyncio.run(auditor.audit({"id": 1, "context": MUSEUM, "answer": answer}))
    assert result.config["chunks"] == 1
    assert [c.label for c in result.claims] == [E, C, N, N]
    assert len(counting.calls) == 1 and len(counting.pairs) == 3  # the global pass found all three in the memo
    assert len(set(counting.pairs)) == 3


def test_the_memo_is_bounded_and_a_repeated_pair_runs_once(judge: VerifierJudge):
    judge.memo = J.PairMemo(size=2)
    counting = Counting(judge)
    pairs = [("The museum is indeed open.", "It is open."), ("A cat.", "A dog."), ("A cat.", "A dog.")]
    first = judge.probs(pairs)
    np.testing.assert_array_equal(first[1], first[2])
    assert counting.pairs == pairs[:2] and len(judge.memo) == 2
    judge.probs([("Parking is free.", "It is free.")])
    assert len(judge.memo) == 2
    np.testing.assert_array_equal(judge.probs(pairs[1:2]), first[1:2])  # still kept: the most recent two
    judge.probs(pairs[:1])
    assert counting.calls[-1] == pairs[:1]  # the oldest was dropped


def test_the_model_runs_off_the_event_loop(judge: VerifierJudge):
    counting = Counting(judge)

    async def run() -> tuple[list, int]:
        got = await judge.judge(claims_of("The museum is open daily."), MUSEUM, question=None, stage="local")
        return got, threading.get_ident()

    got, loop_thread = asyncio.run(run())
    assert got[0].label == E and counting.threads and loop_thread not in counting.threads


def test_concurrent_records_share_one_judge(judge: VerifierJudge):
    auditor = build_auditor("lexical", concurrency=4)
    auditor.judge = judge
    records = [{"id": i, "context": MUSEUM, "answer": a} for i, a in enumerate(
        ["The museum is open daily.", "The museum never opens.", "Tickets cost ten euros.", "Dogs bark."] * 3)]

    async def run() -> list:
        return [r async for r in auditor.audit_many(enumerate(records))]

    labels = {i: res.label for i, res, _ in asyncio.run(run())}
    assert [labels[i] for i in range(len(records))] == [E, C, N, N] * 3


def test_a_full_audit_through_the_registry_is_well_formed(folder: Path):
    auditor = build_auditor(judge="verifier", model_dir=str(folder))
    assert isinstance(auditor.judge, VerifierJudge) and auditor.judge.name == "verifier"
    ctx = MUSEUM + " The Eiffel Tower is indeed in Paris."
    answer = ("Here is a summary:\nThe museum is open daily. The museum never opens. "
              "The Eiffel Tower is indeed in London. Tickets cost ten euros.")
    result = asyncio.run(auditor.audit({"id": "r", "context": ctx, "question": "Q?", "answer": answer}))
    assert isinstance(result, AuditResult) and result.judge == "verifier" and violations(result) == []
    assert result.label == C and result.hallucinated
    by_text = {c.text: c for c in result.claims}
    assert "Here is a summary:" not in by_text  # a preamble is no claim
    assert by_text["The museum is open daily."].label == E
    assert by_text["The museum never opens."].label == C
    assert by_text["Tickets cost ten euros."].label == N and by_text["Tickets cost ten euros."].evidence == ()
    london = by_text["The Eiffel Tower is indeed in London."]
    assert london.label == C and [ev.text for ev in london.evidence] == ["The Eiffel Tower is indeed in Paris."]
    assert answer[london.flagged_spans[0].start:london.flagged_spans[0].end] == "London"
    for c in result.claims:
        for ev in c.evidence:
            assert ctx[ev.start:ev.end] == ev.text
        assert c.label != E or c.score is not None and c.score < 0.5


def test_registry_options(folder: Path):
    judge, decomposer = make_judge("verifier", model_dir=str(folder))
    assert isinstance(judge, VerifierJudge) and decomposer is None
    with pytest.raises(ConfigError, match="--threshold configures the local judge"):
        make_judge("verifier", model_dir=str(folder), threshold=0.3)
    with pytest.raises(ConfigError, match="--model-dir configures the local judge"):
        make_judge("lexical", model_dir=str(folder))
    assert make_judge("auto")[0].name in ("local", "lexical")  # verifier is chosen by name only


def test_the_command_line_audits_with_the_verifier(folder: Path, tmp_path: Path):
    records = tmp_path / "in.jsonl"
    records.write_text(json.dumps({"id": 1, "context": MUSEUM, "answer": "The museum never opens."}) + "\n")
    out = tmp_path / "out.jsonl"
    res = CliRunner().invoke(main, ["audit", str(records), "-o", str(out), "--judge", "verifier",
                                    "--model-dir", str(folder)])
    assert res.exit_code == 0, res.output
    [row] = [json.loads(x) for x in out.read_text().splitlines()]
    assert (row["judge"], row["label"]) == ("verifier", "contradicted")
    res = CliRunner().invoke(main, ["audit", str(records), "-o", str(tmp_path / "x.jsonl"), "--judge", "verifier",
                                    "--model-dir", str(tmp_path)])
    assert res.exit_code == 2 and "no verifier model in" in res.output, res.output
