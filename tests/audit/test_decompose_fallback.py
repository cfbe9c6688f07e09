"""An answer whose LLM decomposition fails is decomposed by the rule decomposer and verified as usual (issue 26):
it gets a row with claims, never an error row, and its ``errors`` name the fallback and the kind of what failed.
Error rows name what failed too (input, backend, judge), never "internal" for a backend fault."""

from __future__ import annotations

import asyncio
import json
import re
import zlib

import pytest
from click.testing import CliRunner
from rt4chart.testing.openai_server import ChatRequest, Reply

from rt4chart import Auditor, LexicalJudge
from rt4chart.audit.decompose import RuleDecomposer
from rt4chart.jobs.batch import run_batch
from rt4chart.cli import main
from rt4chart.errors import BackendError, ConfigError, InputError, JudgeError, RelationError, error_kind
from rt4chart.judges.llm import Endpoint, build_llm
from rt4chart.text.segment import split_sentences

FALLBACK = "decomposition fell back to the rule decomposer"
BASELESS = {"reasoning": "not stated", "evidence": [], "verdict": "baseless", "reason": "the text does not say"}
_NOUNS = "lantern meadow copper violin glacier orchard pepper saddle thunder velvet walnut beacon".split()


def _records(n: int = 20) -> list[dict]:
    out = []
    for i in range(n):
        a, b, c = (_NOUNS[(i + k) % len(_NOUNS)] for k in range(3))
        context = f"The {a} weighs {i + 3} kilograms. The {b} is kept in room {i}. The {c} was painted blue."
        answer = f"The {a} weighs {i + 3} kilograms. The {b} is kept in hall {i + 1}. It belongs to record {i}."
        out.append({"id": f"r{i}", "context": context, "question": f"What about the {a}?", "answer": answer})
    return out


def _sentence(req: ChatRequest) -> str | None:
    """The sentence a decomposition request asks about (None for a judge request)."""
    m = re.search(r"SENTENCE TO DECOMPOSE:\n<<<\n(.*?)\n>>>", req.user, re.DOTALL)
    return m.group(1) if m else None


def _audit(tmp_path, server, records, *extra):
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in records))
    res = CliRunner().invoke(main, ["audit", str(src), "-o", str(out), "-q", "--judge", "llm", "--base-url",
                                    server.base_url, "--model", "fake-model", "--no-cache", *extra])
    return res, [json.loads(line) for line in out.read_text().splitlines()]


def test_every_reply_garbage_still_gives_every_record_unverified_claims(serve, tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    server = serve(lambda req: "Sure! Here is what I think: {claims: maybe")
    records = _records(12)
    res, rows = _audit(tmp_path, server, records)
    assert res.exit_code == 0, res.output  # every record was audited: a fallback is noted, not an error row
    assert [r["id"] for r in rows] == [r["id"] for r in records]
    for row in rows:
        assert "error" not in row and row["claims"], row
        assert {c["label"] for c in row["claims"]} == {"unverified"} and row["label"] == "unverified"
        assert not row["hallucinated"]
        (note,) = row["errors"]
        assert note["kind"] == "judge" and note["message"].startswith(FALLBACK)
        assert row["config"]["decomposer"] == "rule" and row["config"]["decomposer_failed"] == "llm-sentence"
        assert "reply unusable" in note["message"]
    # the claims are the rule decomposer's, verbatim answer text
    rec0 = records[0]
    rule = asyncio.run(RuleDecomposer().decompose(rec0["answer"]))
    assert [c["text"] for c in rows[0]["claims"]] == [c.text for c in rule]


def test_ten_percent_garbage_on_decomposition_gives_no_error_row(serve, tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)

    def garbage(sentence: str) -> bool:  # about one sentence in ten, the same one on the re-ask
        return zlib.crc32(sentence.encode()) % 10 == 0

    def handler(req: ChatRequest):
        sentence = _sentence(req)
        if sentence is None:
            return BASELESS
        return "```not json at all" if garbage(sentence) else {"claims": [sentence]}

    server = serve(handler)
    records = _records(40)
    res, rows = _audit(tmp_path, server, records)
    assert res.exit_code == 0, res.output
    assert [r["id"] for r in rows] == [r["id"] for r in records]
    decomposition = [r for r in server.requests if _sentence(r) is not None]
    bad = [r for r in decomposition if garbage(_sentence(r))]
    assert 0.03 < len(bad) / len(decomposition) < 0.25  # the test exercises what it claims to
    fell_back = 0
    for rec, row in zip(records, rows):
        assert "error" not in row and row["claims"] and row["label"] == "baseless"
        if any(garbage(s.text) for s in split_sentences(rec["answer"])):
            fell_back += 1
            assert row["config"]["decomposer"] == "rule" and row["errors"][0]["kind"] == "judge"
            assert row["errors"][0]["message"].startswith(FALLBACK)
        else:
            assert row["config"]["decomposer"] == "llm-sentence" and row["errors"] == []
    assert fell_back > 0


def test_a_backend_fault_in_decomposition_is_kind_backend(serve):
    def handler(req: ChatRequest):
        return Reply.error(500, "upstream exploded") if _sentence(req) is not None else BASELESS

    server = serve(handler)
    judge, decomposer = build_llm(Endpoint(base_url=server.base_url, model="fake-model", cache=False,
                                           max_attempts=2, backoff_base=0.001, backoff_max=0.01))
    result = asyncio.run(Auditor(judge=judge, decomposer=decomposer).audit(_records(1)[0]))
    assert result.claims and {c.label.value for c in result.claims} == {"baseless"}
    (note,) = result.errors
    assert note.kind == "backend" and note.message.startswith(FALLBACK)


class _Failing:
    name = "failing"

    def __init__(self, exc: BaseException) -> None:
        self.exc = exc

    async def decompose(self, answer, *, question=None):
        raise self.exc


@pytest.mark.parametrize("exc, kind", [(BackendError("gave up", status=503), "backend"),
                                       (JudgeError("reply unusable"), "judge")])
def test_the_fallback_names_what_failed(exc, kind):
    rec = {"id": 1, "context": "The sky is blue.", "answer": "The sky is blue. Grass is red."}
    result = asyncio.run(Auditor(judge=LexicalJudge(), decomposer=_Failing(exc)).audit(rec))
    assert [c.text for c in result.claims] == ["The sky is blue.", "Grass is red."]
    assert result.errors[0].kind == kind and result.config["decomposer_failed"] == "failing"


def test_a_configuration_error_in_decomposition_still_stops_the_run(tmp_path):
    auditor = Auditor(judge=LexicalJudge(), decomposer=_Failing(BackendError("401 Unauthorized", status=401)))
    with pytest.raises(BackendError):
        run_batch([{"id": 1, "context": "c d e.", "answer": "c d e."}], auditor, tmp_path / "o.jsonl")


class _BrokenRule(RuleDecomposer):
    """A rule decomposer has no fallback: what it raises reaches the error row."""

    def __init__(self, exc: BaseException) -> None:
        super().__init__()
        self.exc = exc

    async def decompose(self, answer, *, question=None):
        raise self.exc


@pytest.mark.parametrize("exc, kind", [(BackendError("gave up", status=500), "backend"),
                                       (JudgeError("no verdict"), "judge"),
                                       (InputError("bad", field="answer"), "input"),
                                       (ZeroDivisionError("a bug"), "internal")])
def test_error_rows_name_what_failed(tmp_path, exc, kind):
    out = tmp_path / "o.jsonl"
    summary = run_batch([{"id": 1, "context": "c d e.", "answer": "c d e."}],
                        Auditor(judge=LexicalJudge(), decomposer=_BrokenRule(exc)), out)
    (row,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert summary.errors == 1 and row["error"]["kind"] == kind


def test_error_kind():
    assert error_kind(InputError("x")) == "input"
    assert error_kind(BackendError("x", status=503)) == "backend"
    assert error_kind(JudgeError("x")) == "judge"
    assert error_kind(RelationError("x")) == "internal"
    assert error_kind(ConfigError("x")) == "internal"
    assert error_kind(RuntimeError("x")) == "internal"
