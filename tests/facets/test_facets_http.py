"""Facet diagnostics end to end over real HTTP: LLM facets, the three generation modes and the LLM judge all talk
to a scripted OpenAI-compatible server on loopback. One constructed case per taxonomy class, plus matrix values."""

from __future__ import annotations

import math

import pytest
from facets_helpers import BM25S_MISSING, judge_parts, question_of, schema_name

pytest.importorskip("bm25s", reason=BM25S_MISSING)

from rt4chart.errors import BackendError
from rt4chart.facets import Diagnoser, LLMFacetDecomposer, Relevance
from rt4chart.judges.llm import LLMJudge
from rt4chart.llm.backend import OpenAIBackend
from rt4chart.types import Label

FACET = "Who directed Blade Runner?"
SCOTT = "Blade Runner was directed by Ridley Scott."
UNRELATED = "Vienna lies on the Danube and has many coffee houses."


def verdict(label: str, quote: str = "") -> dict:
    return {"reasoning": "scripted", "evidence": [quote] if quote else [], "verdict": label, "reason": label}


def world(*, facets, answers, entails=None, contradicts=None, broken=()):
    """A handler: facets for any question; ``answers[facet][mode] = (text, answerable)``; the judge says entailed
    when a marker of ``entails[claim]`` is in the chunk, contradicted likewise, else baseless."""
    entails, contradicts = entails or {}, contradicts or {}

    def handler(req):
        name = schema_name(req)
        if name == "FacetsReply":
            return {"reasoning": "steps", "facets": facets}
        if name == "AnswerReply":
            mode = ("strict" if "(Strict RAG)" in req.system else "soft" if "(Soft RAG)" in req.system
                    else "llm_only")
            if mode in broken:
                return "I would rather not answer in JSON."
            text, ok = answers[question_of(req)][mode]
            return {"answer": text, "answerable": ok}
        if name == "VerdictReply":
            chunk, claim = judge_parts(req)
            if any(m in chunk for m in entails.get(claim, ())):
                return verdict("entailed", chunk)
            if any(m in chunk for m in contradicts.get(claim, ())):
                return verdict("contradicted", chunk)
            return verdict("baseless")
        raise AssertionError(f"unexpected request for {name}")

    return handler


def diagnoser(server, **kw) -> Diagnoser:
    backend = OpenAIBackend(server.base_url, "fake-model", backoff_base=0.01, backoff_max=0.05, max_attempts=2)
    return Diagnoser(judge=LLMJudge(backend), facet_decomposer=LLMFacetDecomposer(backend), backend=backend,
                     relevance=Relevance(encoder=None), **kw)


def record(chunks, question=FACET):
    return {"id": "q", "question": question, "context": chunks}


def same(text):
    return {m: (text, True) for m in ("strict", "soft", "llm_only")}


async def test_robust_and_matrix_values(serve):
    chunks = ["Blade Runner, the 1982 science fiction film, was directed by Ridley Scott.", UNRELATED]
    server = serve(world(facets=[FACET], answers={FACET: same(SCOTT)}, entails={SCOTT: ["by Ridley Scott"]}))
    d = await diagnoser(server).diagnose(record(chunks))
    (f,) = d.facets
    assert f.category == "robust" and f.generation.rule.startswith("R4")
    assert f.facet.type == "factoid" and f.facet.source == "llm"
    c0, c1 = f.cells
    assert c0.nli == {"strict": Label.ENTAILED, "soft": Label.ENTAILED, "llm_only": Label.ENTAILED}
    assert c1.nli == {"strict": Label.BASELESS, "soft": Label.BASELESS, "llm_only": Label.BASELESS}
    assert (c0.faithfulness, c1.faithfulness) == (1.0, 0.0)
    # BM25 by hand (Lucene idf, k1=1.5, b=0.75): facet terms direct/blade/runner occur once in chunk 0 (9 terms),
    # never in chunk 1 (6 terms); bm25_norm = score * (k1 + 1) / sum(idf)
    idf = math.log(1 + (2 - 1 + 0.5) / (1 + 0.5))
    avgdl = (9 + 6) / 2
    score = 3 * idf * 1 / (1 + 1.5 * (1 - 0.75 + 0.75 * 9 / avgdl))
    assert c0.bm25 == pytest.approx(score, abs=1e-3)
    assert c0.bm25_norm == pytest.approx(score * 2.5 / (3 * idf), abs=1e-3)
    assert 0.9 < c0.bm25_norm < 1.0
    assert c0.relevance == c0.bm25_norm and c0.cosine is None  # BM25 only: no encoder given
    assert c0.relevant and not c1.relevant and c1.bm25 == 0.0
    assert f.generation.answers["strict"].supporting_chunks == (0,)
    assert f.generation.evidence_chunks == (0,) and f.generation.sufficient
    assert d.relevance_method == "bm25" and any("BM25 only" in n for n in d.notes)
    # 1 facet call + 3 generations + 3 statements x 2 chunks judged
    names = [schema_name(r) for r in server.requests]
    assert names.count("FacetsReply") == 1 and names.count("AnswerReply") == 3 and names.count("VerdictReply") == 6
    strict_req = next(r for r in server.requests if "(Strict RAG)" in r.system)
    llm_req = next(r for r in server.requests if "(LLM-only)" in r.system)
    assert "[1] Blade Runner, the 1982" in strict_req.user and "[2] Vienna" in strict_req.user
    assert "Vienna" not in llm_req.user  # LLM-only sees no chunks
    assert d.usage.calls == len(server.requests)


async def test_evidence_failure_when_no_chunk_supports_any_answer(serve):
    chunks = ["Blade Runner is a 1982 science fiction film starring Harrison Ford.", UNRELATED]
    answers = {FACET: {"strict": ("The chunks do not say who directed Blade Runner.", False),
                       "soft": (SCOTT, True), "llm_only": (SCOTT, True)}}
    server = serve(world(facets=[FACET], answers=answers))
    (f,) = (await diagnoser(server).diagnose(record(chunks))).facets
    assert f.category == "evidence_failure" and f.generation.rule.startswith("R1")
    assert not f.generation.sufficient and f.generation.answers["strict"].abstained
    assert f.cells[0].relevant  # the chunk was retrieved as relevant, but it holds no answer
    assert "strict" not in f.cells[0].nli  # an abstention is not judged
    assert f.generation.prior_match is True


async def test_evidence_misalignment_when_strict_ignores_the_evidence(serve):
    chunks = ["Blade Runner was directed by Ridley Scott in 1982.", UNRELATED]
    spielberg = "Blade Runner was directed by Steven Spielberg."
    answers = {FACET: {"strict": (spielberg, True), "soft": (SCOTT, True), "llm_only": (SCOTT, True)}}
    server = serve(world(facets=[FACET], answers=answers, entails={SCOTT: ["Ridley Scott"]},
                         contradicts={spielberg: ["Ridley Scott"]}))
    (f,) = (await diagnoser(server).diagnose(record(chunks))).facets
    assert f.category == "evidence_misalignment" and f.generation.rule.startswith("R2")
    strict = f.generation.answers["strict"]
    assert not strict.grounded and strict.contradicted and "contradicted" in f.generation.rule
    assert f.cells[0].nli["strict"] == Label.CONTRADICTED and f.cells[0].faithfulness == pytest.approx(2 / 3, abs=1e-3)


async def test_evidence_override_when_soft_follows_the_prior(serve):
    chunks = ["In the novel's alternate history, Blade Runner was directed by Ken Loach.", UNRELATED]
    loach = "Blade Runner was directed by Ken Loach."
    answers = {FACET: {"strict": (loach, True), "soft": (SCOTT, True),
                       "llm_only": ("Ridley Scott directed Blade Runner.", True)}}
    server = serve(world(facets=[FACET], answers=answers, entails={loach: ["Ken Loach"]},
                         contradicts={SCOTT: ["Ken Loach"], "Ridley Scott directed Blade Runner.": ["Ken Loach"]}))
    (f,) = (await diagnoser(server).diagnose(record(chunks))).facets
    assert f.category == "evidence_override" and f.generation.rule.startswith("R3")
    g = f.generation
    assert g.answers["strict"].grounded and not g.answers["soft"].grounded and g.answers["soft"].contradicted
    assert g.prior_match is True and "matches the LLM-only answer" in g.rule


async def test_unusable_generation_is_unverified_never_robust(serve):
    chunks = ["Blade Runner was directed by Ridley Scott in 1982.", UNRELATED]
    server = serve(world(facets=[FACET], answers={FACET: same(SCOTT)}, entails={SCOTT: ["Ridley Scott"]},
                         broken=("soft",)))
    d = await diagnoser(server).diagnose(record(chunks))
    (f,) = d.facets
    assert f.category == "unverified" and f.generation.rule.startswith("R0")
    soft = [r for r in server.requests if "(Soft RAG)" in r.system]
    assert len(soft) == 2 and soft[1].is_reask and "could not be used" in soft[1].last_user
    assert any("soft" in e for e in d.errors)


async def test_bridge_question_gives_typed_facets_with_different_classes(serve):
    question = "What year was the director of Blade Runner born?"
    born = "When was Ridley Scott born?"
    chunks = ["Blade Runner was directed by Ridley Scott in 1982.", "Ridley Scott lives in London and Los Angeles."]
    answers = {FACET: same(SCOTT),
               born: {"strict": ("The chunks do not give his birth year.", False),
                      "soft": ("Ridley Scott was born in 1937.", True),
                      "llm_only": ("Ridley Scott was born in 1937.", True)}}
    server = serve(world(facets=[FACET, born], answers=answers, entails={SCOTT: ["directed by Ridley Scott"]}))
    d = await diagnoser(server).diagnose(record(chunks, question))
    assert [(f.facet.text, f.facet.type, f.category) for f in d.facets] == [
        (FACET, "bridge", "robust"), (born, "temporal", "evidence_failure")]
    facet_req = next(r for r in server.requests if schema_name(r) == "FacetsReply")
    assert "bridge question" in facet_req.user and question in facet_req.user
    assert d.categories["robust"] == 1 and d.categories["evidence_failure"] == 1


async def test_comparison_question_uses_the_comparison_template(serve):
    facets = ["When was Arthur Conan Doyle born?", "When was Artur Schnitzler born?"]
    answers = {q: {m: ("It is not stated.", False) for m in ("strict", "soft", "llm_only")} for q in facets}
    server = serve(world(facets=facets, answers=answers))
    d = await diagnoser(server).diagnose(
        record(["Arthur Conan Doyle was born in 1859."], "Who was born first, Arthur Conan Doyle or Artur Schnitzler?"))
    facet_req = next(r for r in server.requests if schema_name(r) == "FacetsReply")
    assert "comparison question" in facet_req.user
    assert [f.facet.type for f in d.facets] == ["temporal", "temporal"]
    assert [f.category for f in d.facets] == ["evidence_failure", "evidence_failure"]


async def test_configuration_error_from_the_server_raises(serve):
    from rt4chart.testing.openai_server import Reply

    server = serve(lambda req: Reply.error(401, "bad key"))
    with pytest.raises(BackendError):
        await diagnoser(server).diagnose(record(["x y z."]))
