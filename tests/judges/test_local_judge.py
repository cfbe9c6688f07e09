"""The trained offline judge: its features, its span rule and the shipped ONNX models."""

import asyncio
import dataclasses
import json
import shutil
import threading
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import rt4chart
from rt4chart import Claim, Label, Span, check_relation
from rt4chart.cli import main
from rt4chart.errors import ConfigError
from rt4chart.evidence import EditSentences, is_remark
from rt4chart.judges.local import features as F
from rt4chart.judges import local
from rt4chart.judges.local import judge as J
from rt4chart.judges.local import models as M
from rt4chart.judges.local import rules as R
from rt4chart.judges.local import tagger as T
from rt4chart.judges.local import verifier as V
from rt4chart.judges.registry import make_judge

EXAMPLES = Path(__file__).parents[2] / "examples" / "records.jsonl"
CTX = ("The free trial lasts 14 days. Eligible users may request one extension by email. "
       "The Pro plan costs 12 dollars a month.")


def _claim(text: str, index: int = 0) -> Claim:
    return Claim(index=index, text=text, sentence_index=index, answer_spans=(Span(start=0, end=len(text)),))


def test_merge_words_keeps_flagged_words_and_joins_neighbours():
    words = [(0, 3, 0.1), (4, 9, 0.8), (10, 15, 0.9), (20, 25, 0.7), (26, 30, 0.2)]
    assert local.merge_words(words, 0.5) == [(4, 15), (20, 25)]
    # a flagged claim with no word over the threshold points at its likeliest word
    assert local.merge_words(words, 0.95) == [(10, 15)]
    assert local.merge_words([], 0.5) == []


def test_word_features_see_what_the_evidence_holds():
    rows = F.claim_rows("The trial lasts 30 days.", CTX, None)
    assert rows.matrix.shape == (5, len(F.FEATURES))
    col = {name: i for i, name in enumerate(F.FEATURES)}
    words = ["The", "trial", "lasts", "30", "days"]
    by_word = dict(zip(words, rows.matrix))
    assert by_word["trial"][col["w_key_in_ev"]] == 1 and by_word["days"][col["w_key_in_ev"]] == 1
    assert by_word["30"][col["w_number"]] == 1 and by_word["30"][col["w_number_in_ev"]] == 0
    assert by_word["The"][col["w_content"]] == 0
    assert rows.rule == "number-conflict"
    # claim-level columns are shared by every word of the claim
    claim_cols = slice(len(F.WORD_FEATURES), len(F.FEATURES))
    assert (rows.matrix[:, claim_cols] == rows.matrix[0, claim_cols]).all()


def test_false_fields_are_read_from_records_and_prose_skips_the_field_pattern():
    # a field set to false, whose name occurs nowhere else, is what the record says is absent
    assert F._false_field_keys("name: Blue Cafe\nparking: false\nwifi: yes") == {"park"}
    assert F._false_field_keys('{"delivery": "no",\n"price": 12}') == {"deliv"}
    # ... but not when the word occurs elsewhere, and never in prose without a "field: value" pair
    assert F._false_field_keys("The cafe has parking. Parking: none") == frozenset()
    assert F._false_field_keys("Parking is free, and nobody was late.") == frozenset()
    col = F.FEATURES.index("w_false_field")
    rows = F.claim_rows("The cafe offers parking.", "name: Blue Cafe\nparking: false", None)
    assert rows.matrix[3, col] == 1 and rows.matrix[1, col] == 0


def test_claim_matrix_aggregates_over_the_claims_judged_together():
    rows = [F.claim_rows("The trial lasts 14 days.", CTX, None), F.claim_rows("It costs 99 euros.", CTX, None)]
    m = F.claim_matrix([np.array([0.1, 0.2, 0.1, 0.1, 0.1]), np.array([0.1, 0.9, 0.8, 0.6])], rows)
    col = {name: i for i, name in enumerate(F.CLAIM_MODEL_FEATURES)}
    assert m.shape == (2, len(F.CLAIM_MODEL_FEATURES))
    assert m[0, col["p_max"]] == pytest.approx(0.2) and m[1, col["p_n50"]] == 3
    assert m[0, col["a_claims"]] == 2 and m[0, col["a_other_max"]] == pytest.approx(0.9)
    assert m[0, col["a_rank"]] == 1 and m[1, col["a_rank"]] == 0


def test_a_claims_rows_depend_on_the_evidence_it_is_read_against_not_on_what_was_read_before():
    # the claim's own columns are worked out once per claim text and copied: reading it against another text (a
    # chunk) in between changes nothing, and the window column counts found neighbours within three words
    claim = "The trial lasts 14 days for eligible users."
    first = F.claim_rows(claim, CTX, "How long is the trial?").matrix
    other = F.claim_rows(claim, "The Pro plan costs 12 dollars a month.", None).matrix
    again = F.claim_rows(claim, CTX, "How long is the trial?").matrix
    assert (first == again).all() and not (first == other).all()
    col = {name: i for i, name in enumerate(F.FEATURES)}
    # "trial": content neighbours within 3 words are lasts, 14, days (all found in CTX)
    assert first[1, col["w_window_content"]] == 3 and first[1, col["w_window_found"]] == 1
    # ... against the Pro plan sentence none of them is found
    assert other[1, col["w_window_found"]] == 0
    assert first[1, col["w_in_question"]] == 1 and other[1, col["w_in_question"]] == 0


def test_claim_matrix_others_max_with_ties_and_a_single_claim():
    rows = [F.claim_rows(t, CTX, None) for t in ("The trial lasts 14 days.", "It costs 99 euros.", "It is free.")]
    col = {name: i for i, name in enumerate(F.CLAIM_MODEL_FEATURES)}
    probs = [np.array([0.9, 0.1, 0.1, 0.1, 0.1]), np.array([0.9, 0.2, 0.1, 0.1]), np.array([0.3, 0.1, 0.1])]
    m = F.claim_matrix(probs, rows)
    # two claims share the answer's highest word probability: for each of them, another claim still reaches it
    assert m[:, col["a_other_max"]] == pytest.approx([0.9, 0.9, 0.9])
    m = F.claim_matrix([probs[0], probs[2], np.array([0.5, 0.1])], rows)
    assert m[:, col["a_other_max"]] == pytest.approx([0.5, 0.9, 0.9])
    assert m[:, col["a_rank"]].tolist() == [0, 2, 1]
    one = F.claim_matrix(probs[:1], rows[:1])
    assert one[0, col["a_other_max"]] == 0 and one[0, col["a_claims"]] == 1


def test_the_model_ships_with_the_package_and_matches_the_features():
    assert local.is_available(), "models/local_judge_*.onnx must ship in the package"
    card = local.LocalJudge().card
    assert card["feature_version"] == F.VERSION
    assert card["claim_features"] == list(F.CLAIM_MODEL_FEATURES)
    assert 0 < card["threshold"] < 1 and 0 < card["word_threshold"] < 1
    assert "RAGTruth train" in card["trained_on"]


def test_a_model_of_another_feature_version_is_refused(tmp_path):
    for name in (local.WORD_MODEL, local.CLAIM_MODEL, local.CARD):
        shutil.copy(local.model_dir() / name, tmp_path / name)
    card = json.loads((tmp_path / local.CARD).read_text())
    card["feature_version"] = -1
    (tmp_path / local.CARD).write_text(json.dumps(card))
    with pytest.raises(ConfigError, match="feature version"):
        local.LocalJudge(model_dir=tmp_path)
    with pytest.raises(ConfigError, match="no trained local judge"):
        local.LocalJudge(model_dir=tmp_path / "missing")


def test_supported_claims_score_lower_than_fabricated_ones():
    claims = [_claim("The free trial lasts 14 days."),
              _claim("The trial includes a free iPhone and weekly calls with Microsoft engineers in Seattle.", 1)]
    out = asyncio.run(local.LocalJudge().judge(claims, CTX, question=None, stage="global"))
    assert out[0].score < out[1].score
    assert out[1].label.hallucinated and out[1].evidence == ()
    assert out[0].label == Label.ENTAILED and out[0].evidence == ("The free trial lasts 14 days.",)


def test_score_names_its_parts_and_a_reading_made_once_serves_both_passes():
    judge = local.LocalJudge()
    claims = [_claim("The free trial lasts 14 days."), _claim("The Pro plan costs 99 dollars a month.", 1)]
    reading = judge.read(claims, CTX, None)
    trees = judge.score(claims, CTX, None, reading=reading, verify=False)  # a local chunk's reading
    assert not trees.tagged and trees.rows is reading.rows and trees.claim_p is reading.trees.claim_p
    # the global pass reads the claim verifier on top of the same reading (a short context's calibrator reads it)
    assert reading.trees.pending is not None
    verified = judge.score(claims, CTX, None, reading=reading)
    assert verified.rows is reading.rows and not (verified.claim_p == trees.claim_p).all()
    assert [len(w) for w in trees.word_p] == [len(r.spans) for r in trees.rows] and trees.by_rule.shape == (2,)
    both = judge.score(claims, CTX, None, semantic=True, reading=reading)
    fresh = judge.score(claims, CTX, None, semantic=True)
    assert both.tagged == fresh.tagged and np.array_equal(both.claim_p, fresh.claim_p)


def test_the_judge_reads_each_evidence_text_once_and_passes_what_it_read(monkeypatch):
    """One ``FeatureEvidence`` per evidence text, built by the judge and handed to the features, the rules,
    ``one_edit`` (its ``EditSentences``) and the tagger; the next claims judged against the same text reuse it."""
    built, edits, shared, encoded = [], [], [], []
    init = F.FeatureEvidence.__init__
    monkeypatch.setattr(F.FeatureEvidence, "__init__", lambda self, text: (built.append(text), init(self, text))[1])
    one_edit, shares = J.one_edit, R.shares_something
    monkeypatch.setattr(J, "one_edit", lambda claim, sentences: edits.append(sentences) or one_edit(claim, sentences))
    monkeypatch.setattr(R, "shares_something", lambda text, ev: shared.append(ev) or shares(text, ev))
    judge = local.LocalJudge()
    encoder = judge._models.tagger.encoder
    encode = encoder.encode_claims
    monkeypatch.setattr(encoder, "encode_claims", lambda q, ev, texts: encoded.append(ev) or encode(q, ev, texts))
    claims = [_claim("The free trial lasts 14 days."), _claim("The Pro plan costs 99 dollars a month.", 1),
              _claim("If you have any further questions, feel free to ask.", 2)]
    chunk = "The free trial lasts 14 days."

    async def passes() -> None:
        await judge.judge(claims, chunk, question=None, stage="local")
        await judge.judge(claims, CTX, question=None, stage="local")
        await judge.judge(claims, CTX, question=None, stage="global")
        await judge.judge(claims[:2], CTX, question=None, stage="global")

    asyncio.run(passes())
    assert built == [chunk, CTX]
    assert edits and all(isinstance(e, EditSentences) for e in edits)
    assert shared and encoded and all(type(e) is F.FeatureEvidence for e in shared + encoded)
    assert {id(e) for e in encoded} == {id(judge.evidence(CTX))} and built == [chunk, CTX]


def test_the_judge_works_off_the_event_loop_and_keeps_the_last_few_claim_sets_only(monkeypatch):
    judge = local.LocalJudge(no_tagger=True)
    threads = []
    decide = judge._decide
    monkeypatch.setattr(judge, "_decide", lambda *a: threads.append(threading.get_ident()) or decide(*a))

    async def judge_all() -> None:
        for i in range(J.RECENT + 3):
            await judge.judge([_claim(f"The free trial lasts {i} days.")], CTX, question=None, stage="local")

    asyncio.run(judge_all())
    assert threads and threading.get_ident() not in threads  # the CPU work ran in worker threads
    assert len(judge._recent) == J.RECENT


def test_threshold_moves_decisions_and_is_validated():
    claims = [_claim("The trial includes priority email support.")]
    strict = asyncio.run(local.LocalJudge(threshold=0.001).judge(claims, CTX, question=None, stage="global"))
    lenient = asyncio.run(local.LocalJudge(threshold=0.999).judge(claims, CTX, question=None, stage="global"))
    assert strict[0].label.hallucinated and strict[0].spans
    assert lenient[0].label == Label.ENTAILED
    with pytest.raises(ConfigError):
        local.LocalJudge(threshold=1.5)


def test_output_contract_and_narrowed_spans_on_examples():
    judge, _ = make_judge("local")
    seen_flagged = 0
    for line in EXAMPLES.read_text().splitlines():
        rec = json.loads(line)
        result = rt4chart.audit(rec["context"], rec["answer"], rec.get("question"), judge=judge)
        check_relation(result)
        for c in result.claims:
            assert c.score is None or 0.0 <= c.score <= 1.0
            if c.label == Label.BASELESS:
                assert c.evidence == ()
            if c.flagged_spans:
                seen_flagged += 1
                assert c.label.hallucinated
                claim_span = c.answer_spans[0]
                assert all(claim_span.start <= s.start < s.end <= claim_span.end for s in c.flagged_spans)
        for s in result.spans:
            assert any(c.label.hallucinated and (c.flagged_spans or c.answer_spans)[0].start <= s.end
                       for c in result.claims)
    assert seen_flagged > 0


def test_auto_picks_the_local_judge_offline_and_audit_uses_it(monkeypatch, tmp_path):
    monkeypatch.delenv("RT4CHART_BASE_URL", raising=False)
    judge, _ = make_judge("auto")
    assert judge.name == "local"
    out = tmp_path / "out.jsonl"
    res = CliRunner().invoke(main, ["audit", str(EXAMPLES), "-o", str(out), "-q"])
    assert res.exit_code in (0, 1), res.output
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    assert rows and all(r["judge"] == "local" for r in rows if "judge" in r)


def _judged_by_rules(ctx: str, *texts: str) -> list:
    """The global judgments of ``texts`` at threshold 0.99, where the model alone calls every claim entailed: what
    is flagged there, a rule flagged."""
    claims = [_claim(t, i) for i, t in enumerate(texts)]
    return asyncio.run(local.LocalJudge(threshold=0.99).judge(claims, ctx, question=None, stage="global"))


def test_rules_flag_clear_cases_the_model_never_learned():
    ctx = ("Acme Corp reported revenue of $4.2 billion for fiscal 2023, up 8% from the previous year. "
           "Photography with flash is not permitted inside the galleries.")
    swap, flip, unseen, fine = _judged_by_rules(
        ctx, "Acme Corp reported revenue of $5.1 billion for fiscal 2023, up 8% from the previous year.",
        "Photography with flash is permitted inside the galleries.", "Zebras migrate through Kenyan savannas.",
        "Acme Corp reported revenue for fiscal 2023.")
    assert swap.label == Label.CONTRADICTED and "$4.2 billion" in swap.evidence[0] and swap.score >= 0.99
    assert flip.label == Label.CONTRADICTED and "not permitted" in flip.evidence[0]
    assert unseen.label == Label.BASELESS and unseen.evidence == ()
    assert "none of the claim's content words" in unseen.reason
    assert fine.label == Label.ENTAILED


def test_a_remark_about_the_sources_sharing_no_word_with_them_is_left_to_the_model():
    ctx = "The trial lasts 14 days. The Pro plan costs 12 dollars a month."
    offer, header, source, zebras = _judged_by_rules(
        ctx, "If you have any further questions, feel free to ask.",
        "Based on the given passages, here's a brief answer to the question:",
        "Passage 2 gives the same steps in another order.", "Zebras migrate through Kenyan savannas.")
    for text in ("If you have any further questions, feel free to ask.", "Passage 2 gives the same steps."):
        assert F.claim_rows(text, ctx, None).rule == "no-evidence"  # no word in common: the rule would apply
    for remark in (offer, header, source):  # the model calls them entailed at 0.99: no rule forced them
        assert remark.label == Label.ENTAILED and "none of the claim's content words" not in remark.reason
    assert zebras.label == Label.BASELESS and "none of the claim's content words" in zebras.reason
    assert is_remark("Some possible methods could include:")
    assert not is_remark("Zebras migrate through Kenyan savannas.")
    assert not is_remark("Antioxidants (passage 1) are found in fruits.")  # a citation, not a remark


def test_a_claim_forced_to_baseless_points_at_its_likeliest_words(monkeypatch):
    ctx = "The trial lasts 14 days."
    text = "Zebras migrate through Kenyan savannas."
    judge = local.LocalJudge(no_tagger=True)
    score = judge.score

    def low_but_one(*args, **kwargs):  # the model finds only "Kenyan" likely hallucinated
        scores = score(*args, **kwargs)
        return dataclasses.replace(scores, word_p=[np.where(np.arange(len(w)) == 3, 0.9, 0.01) for w in scores.word_p])

    monkeypatch.setattr(judge, "score", low_but_one)
    (j,) = asyncio.run(judge.judge([_claim(text)], ctx, question=None, stage="global"))
    assert j.label == Label.BASELESS and "none of the claim's content words" in j.reason
    assert [text[s.start:s.end] for s in j.spans] == ["Kenyan"]  # not the whole claim


def test_a_claim_stating_only_numbers_of_the_evidence_is_left_to_the_model():
    record = '{"name": "Blue Cafe",\n"hours": {"Monday": "10:0-20:0", "Tuesday": "10:0-20:0"}}'
    hours, other_hours, zebras = _judged_by_rules(
        record, "They operate daily from 10:00 to 20:00.", "They operate daily from 9:00 to 17:00.",
        "Zebras migrate through Kenyan savannas.")
    assert F.claim_rows("They operate daily from 10:00 to 20:00.", record, None).rule == "no-evidence"
    assert hours.label == Label.ENTAILED and "none of the claim's content words" not in hours.reason
    assert other_hours.label == Label.BASELESS and "none of the claim's content words" in other_hours.reason
    assert zebras.label == Label.BASELESS
    assert local.shares_something("Open from 10:00 to 20:00.", record)
    assert not local.shares_something("Open from 10:00 to 22:00.", record)  # one number the record lacks
    assert not local.shares_something("Open every day.", record)  # no number, no remark


def test_the_unseen_rule_leaves_to_the_model_a_claim_it_clearly_dismisses():
    col = F.CLAIM_MODEL_FEATURES.index
    matrix = np.zeros((3, len(F.CLAIM_MODEL_FEATURES)), dtype=np.float32)
    matrix[:, col("c_rule")] = F.RULES.index("no-evidence")
    matrix[:, col("c_content")] = 4  # four content words, none of them in the evidence
    risk = np.array([0.01, R.UNSEEN_MIN_RISK, 0.6])
    assert local.decided_by_rule(matrix).tolist() == [True, True, True]
    assert local.decided_by_rule(matrix, risk=risk).tolist() == [False, True, True]
    assert local.decided_by_rule(matrix, np.array([False, True, False]), risk).tolist() == [False, False, True]


def test_the_judge_applies_the_unseen_rules_floor_to_the_models_probability(monkeypatch):
    ctx = "The trial lasts 14 days."
    (forced,) = _judged_by_rules(ctx, "Zebras migrate through Kenyan savannas.")
    assert forced.label == Label.BASELESS and "none of the claim's content words" in forced.reason
    monkeypatch.setattr(R, "UNSEEN_MIN_RISK", 0.99)  # every model probability is now under the floor
    # a short answer's claim that shares nothing with the evidence is never entailed without evidence (issue 41)
    (short,) = _judged_by_rules(ctx, "Zebras migrate through Kenyan savannas.")
    assert short.label == Label.BASELESS and "none of the claim's content words" in short.reason
    monkeypatch.setattr(R, "TYPED_MAX_CLAIMS", 0)  # as in a long answer: the model's verdict stays
    (left,) = _judged_by_rules(ctx, "Zebras migrate through Kenyan savannas.")
    assert left.label == Label.ENTAILED and left.evidence == ()
    assert "none of the claim's content words" not in left.reason


@pytest.mark.parametrize("stage", ["calibrator", "calibrator_t"])
def test_the_calibrators_never_lower_the_risk_of_a_riskier_claim_and_read_the_input_shape(stage):
    models = local.LocalJudge()._models
    calibrator = getattr(models, stage)
    features = getattr(models, stage.replace("calibrator", "calibrator_features"))
    assert calibrator is not None  # both pairs ship one
    p = np.linspace(0.0, 1.0, 101)
    risks = []
    record = ('{"name": "Blue Cafe", "attributes": {"WiFi": "free"}, "hours": {"Monday": "9-17"}, '
              '"reviews": [{"stars": 5}]}')
    for ctx, question in ((CTX, "How long does the free trial last?"), (record, None), (" ".join([CTX] * 30), None)):
        rows = F.claim_rows("The trial lasts 14 days.", ctx, question)
        matrix = F.claim_matrix([np.zeros(len(rows.spans))], [rows])
        risk = M.Models.run(calibrator, local.calibrator_rows(p, np.repeat(matrix, len(p), axis=0), features))
        assert (np.diff(risk) >= 0).all() and risk[-1] > risk[0]
        risks.append(risk)
    # the same claim probability is another answer risk for a question, a record, a long text
    assert max(np.abs(risks[0] - risks[1]).max(), np.abs(risks[1] - risks[2]).max()) > 0.02


@pytest.fixture(scope="module")
def short_models(tmp_path_factory):
    """A copy of the shipped models with short-context calibrators (as ``training.world_calibrator fit`` writes
    them): two small tree ensembles reading the claim probability and the share of the claim's words found."""
    from sklearn.ensemble import HistGradientBoostingClassifier

    from training.local_judge_onnx import export

    d = tmp_path_factory.mktemp("short") / "models"
    shutil.copytree(local.model_dir(), d)
    rng = np.random.default_rng(0)
    x = rng.random((400, 2))
    y = (x[:, 0] + (1 - x[:, 1]) + rng.normal(0, 0.3, 400) > 1.0).astype(int)
    fitted = HistGradientBoostingClassifier(max_iter=20, monotonic_cst=[1, 0], random_state=0).fit(x, y)
    spec = {"features": ["claim_p", "c_found_frac"], "below_chars": 665}
    for name, card_name in ((local.CALIBRATOR_SHORT, local.CARD), (local.CALIBRATOR_SHORT_T, local.TAGGER_CARD)):
        export(fitted, 2, d / name)
        card = json.loads((d / card_name).read_text())
        (card["trees"] if card_name == local.TAGGER_CARD else card)["short_calibrator"] = spec
        (d / card_name).write_text(json.dumps(card))
    return d


def test_the_shipped_judge_reads_the_claim_verifier_for_every_claim_blended_with_the_trees():
    models = local.LocalJudge()._models
    assert models.short is not None and models.short_t is not None and models.verifier is not None
    card = json.loads((local.model_dir() / local.CARD).read_text())["short_calibrator"]
    assert set(V.COLUMNS) <= set(card["features"]) and card["below_chars"] >= 10 ** 9 and 0 < card["blend"] < 1
    assert card["monotonic"]["v_entailment"] == -1 and card["monotonic"]["c_missing_numbers"] == 1


def test_a_context_shorter_than_the_cards_cut_is_read_by_the_short_context_calibrator(short_models):
    models = local.LocalJudge(model_dir=short_models)._models
    assert models.short is not None and models.short_t is not None
    claims = [_claim("The free trial lasts 14 days.")]
    for ctx, short in ((CTX, True), (" ".join([CTX] * 30), False)):
        assert (len(ctx) < 665) == short
        rows = local.LocalJudge.rows(claims, ctx, None)
        p = M.Models.run(models.words, rows[0].matrix)
        matrix = F.claim_matrix([p], rows)
        raw = M.Models.run(models.claims, matrix)
        session, features = (models.short.session, models.short.features) if short else \
            (models.calibrator, models.calibrator_features)
        expected = M.Models.run(session, local.calibrator_rows(raw, matrix, features))
        assert np.allclose(models.predict(rows).claim_p, expected)
    # a remark about the sources keeps the RAGTruth calibrator
    remark, ctx = [_claim("If you have any further questions, feel free to ask.")], "The Pro plan costs 12 dollars."
    rows = local.LocalJudge.rows(remark, ctx, None)
    spared = R.exempt(remark, rows, ctx)
    assert spared.all()
    matrix = F.claim_matrix([M.Models.run(models.words, rows[0].matrix)], rows)
    long_risk = M.Models.run(models.calibrator, local.calibrator_rows(M.Models.run(models.claims, matrix), matrix,
                                                                      models.calibrator_features))
    assert np.allclose(models.predict(rows, spared=spared).claim_p, long_risk)


def test_a_missing_short_context_calibrator_is_a_clear_error(short_models, tmp_path):
    for name in (local.CALIBRATOR_SHORT, local.CALIBRATOR_SHORT_T):
        d = tmp_path / name
        shutil.copytree(short_models, d, ignore=shutil.ignore_patterns(name))
        with pytest.raises(ConfigError, match=name):
            local.LocalJudge(model_dir=d)


def test_the_calibrators_read_the_columns_their_cards_name_and_an_older_card_the_first_five(tmp_path):
    models = local.LocalJudge()._models
    assert models.calibrator_features[0] == models.calibrator_features_t[0] == "claim_p"
    assert list(models.calibrator_features) == models.card["calibrator"]["features"]
    assert list(models.calibrator_features_t) == models.tagger_card["trees"]["calibrator"]["features"]
    rows = F.claim_rows("The trial lasts 14 days and costs 9 dollars.", CTX, None)
    matrix = F.claim_matrix([np.zeros(len(rows.spans))], [rows])
    named = local.calibrator_rows(np.array([0.3]), matrix, ("claim_p", "c_found_frac", "r_ev_chars"))
    col = F.CLAIM_MODEL_FEATURES.index
    assert named.tolist() == [[0.3, matrix[0, col("c_found_frac")], matrix[0, col("r_ev_chars")]]]
    assert local.calibrator_rows(np.array([0.3]), matrix).shape == (1, len(local.CALIBRATOR_FEATURES))


@pytest.mark.parametrize("name, card_name, key, semantic", [
    (local.CALIBRATOR_T, local.TAGGER_CARD, "calibrator", True),
    (local.SPAN_MODEL_T, local.TAGGER_CARD, "span_model", True),
    (local.CALIBRATOR, local.CARD, "calibrator", False),
])
def test_a_missing_calibrator_or_span_model_is_a_clear_error_and_an_older_card_runs_without_one(
        tmp_path, name, card_name, key, semantic):
    d = tmp_path / "models"
    shutil.copytree(local.model_dir(), d, ignore=shutil.ignore_patterns(name))
    with pytest.raises(ConfigError, match=name):
        local.LocalJudge(model_dir=d)
    for other in (local.CARD, local.TAGGER_CARD) if key == "calibrator" else ():
        # the short-context calibrators would decide these short claims, whatever the calibrator
        c = json.loads((d / other).read_text())
        (c["trees"] if other == local.TAGGER_CARD else c).pop("short_calibrator", None)
        (d / other).write_text(json.dumps(c))
    card = json.loads((d / card_name).read_text())
    del (card["trees"] if semantic else card)[key]  # a model folder from before it: its thresholds are on the raw scale
    (d / card_name).write_text(json.dumps(card))
    judge = local.LocalJudge(model_dir=d)
    assert judge.semantic
    claims = [_claim("The free trial lasts 14 days."), _claim("The free trial lasts 30 days.", 1)]
    old, new = judge.score(claims, CTX, None, semantic=semantic), local.LocalJudge().score(claims, CTX, None,
                                                                                           semantic=semantic)
    assert old.tagged == new.tagged == semantic  # the tagger read them (or not) either way
    if key == "span_model":  # the same claim risks, other word probabilities
        assert np.allclose(old.claim_p, new.claim_p)
        assert not np.allclose(np.concatenate(old.word_p), np.concatenate(new.word_p))
    else:
        assert not np.allclose(old.claim_p, new.claim_p)


def test_without_the_trees_calibrator_the_tagger_skip_test_reads_the_raw_claim_probability(tmp_path, monkeypatch):
    d = tmp_path / "models"
    shutil.copytree(local.model_dir(), d, ignore=shutil.ignore_patterns(local.CALIBRATOR))
    card = json.loads((d / local.CARD).read_text())
    del card["calibrator"]
    (d / local.CARD).write_text(json.dumps(card))
    judge = local.LocalJudge(model_dir=d)
    sure = [_claim("The free trial lasts 14 days.")]
    raw = judge.score(sure, CTX, None).claim_p.max()  # the trees alone, uncalibrated
    monkeypatch.setattr(R, "SKIP_TAGGER_BELOW", 0.0)  # the calibrated level would always run the tagger
    monkeypatch.setattr(R, "SKIP_TAGGER_BELOW_UNCALIBRATED", raw + 1e-6)
    assert not judge.score(sure, CTX, None, semantic=True).tagged
    monkeypatch.setattr(R, "SKIP_TAGGER_BELOW_UNCALIBRATED", raw - 1e-6)
    assert judge.score(sure, CTX, None, semantic=True).tagged


def test_span_rows_read_each_words_neighbours_within_its_claim():
    p = [np.array([0.1, 0.9, 0.5]), np.array([0.7])]
    rows = local.span_rows(p, np.array([0.3, 0.6]), [np.array([0.2, np.nan, 0.4]), np.array([0.8])])
    col = {name: rows[:, k] for k, name in enumerate(local.SPAN_FEATURES)}
    assert rows.shape == (4, len(local.SPAN_FEATURES)) and not np.isnan(rows).any()
    m = T.MISSING
    assert col["p_prev"].tolist() == [m, 0.1, 0.9, m] and col["p_next2"].tolist() == [0.5, m, m, m]
    assert col["p_claim_max"].tolist() == [0.9, 0.9, 0.9, 0.7] and col["claim_p"].tolist() == [0.3, 0.3, 0.3, 0.6]
    assert col["rank"].tolist() == [2 / 3, 0.0, 1 / 3, 0.0] and col["w_tagger"][1] == m
    assert local.span_rows([], np.zeros(0), []).shape == (0, len(local.SPAN_FEATURES))


def test_a_sentence_copied_but_for_one_edit_is_contradicted_with_that_sentence():
    ctx = ("The Eiffel Tower is in Paris. About seven million people visit it every year. "
           "Visitors can climb the stairs or take a lift to the top.")
    london, seventy, cannot, paris = _judged_by_rules(
        ctx, "The Eiffel Tower is in London.", "About seventy million people visit it every year.",
        "Visitors cannot take a lift to the top.", "The Eiffel Tower is in Paris.")
    assert london.label == Label.CONTRADICTED and london.evidence == ("The Eiffel Tower is in Paris.",)
    assert london.spans == (Span(start=23, end=29),) and "'London'" in london.reason and "'Paris'" in london.reason
    assert london.score >= 0.99  # raised to the threshold, so that the score agrees with the label
    assert seventy.label == Label.CONTRADICTED and "seven million" in seventy.evidence[0]
    assert cannot.label == Label.CONTRADICTED and cannot.spans == (Span(start=9, end=15),)
    assert "negates" in cannot.reason and "Visitors can climb" in cannot.evidence[0]
    assert paris.label == Label.ENTAILED


def test_a_scale_word_a_contrast_word_or_a_dropped_negation_is_contradicted():
    ctx = ("The company raised 1.2 million dollars in its first round. The Eiffel Tower is 330 metres tall. "
           "Entry to the museum is never free.")
    billion, wide, free, high = _judged_by_rules(
        ctx, "The company raised 1.2 billion dollars in its first round.", "The Eiffel Tower is 330 metres wide.",
        "Entry to the museum is free.", "The Eiffel Tower is 330 metres high.")
    assert billion.label == Label.CONTRADICTED and "million" in billion.evidence[0]
    assert wide.label == Label.CONTRADICTED and wide.spans == (Span(start=31, end=35),)  # "wide"
    assert free.label == Label.CONTRADICTED and "negates" in free.reason and "never free" in free.reason
    assert free.evidence == ("Entry to the museum is never free.",)
    assert high.label == Label.ENTAILED


def _onnx_ir_version(path: Path) -> int:
    """An ONNX file's IR version: ModelProto field 1, a varint, which protobuf writes first."""
    data = path.read_bytes()[:11]
    assert data[0] == 0x08, f"{path.name} does not start with the ir_version field"
    value, shift = 0, 0
    for byte in data[1:]:
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value
    raise AssertionError(f"{path.name}: unterminated ir_version")


def test_shipped_models_load_on_the_oldest_onnxruntime_the_package_allows():
    # pyproject allows onnxruntime>=1.17, which reads ONNX IR version 9 at most; the onnx package writes its own newest
    # IR version unless told (14 with onnx 1.23, which onnxruntime before 1.31 refuses: "Unsupported model IR version")
    files = sorted(local.model_dir().glob("*.onnx"))
    assert len(files) >= 3
    assert {f.name: _onnx_ir_version(f) for f in files} == {f.name: min(_onnx_ir_version(f), 9) for f in files}


MUSEUM = ("The museum opened in 1932 in a former railway station. It holds about 40,000 objects. "
          "The collection focuses on industrial history. Entry is free on the first Sunday of each month. "
          "The building was restored between 2005 and 2009. A new wing for temporary exhibitions opened in 2015. "
          "Guided tours are offered in English and German. The cafe on the ground floor closes at 5 p.m.")


def test_a_claim_the_context_holds_word_for_word_stays_entailed_at_any_answer_length():
    for answer in (" ".join([MUSEUM] * 12), " ".join(["It holds about 40,000 objects."] * 300)):
        result = rt4chart.audit(MUSEUM, answer)
        assert len(result.claims) in (96, 300)
        assert {c.label for c in result.claims} == {Label.ENTAILED} and not result.hallucinated
        assert all(c.score <= R.COPY_MAX_RISK and "word for word" in c.reason for c in result.claims)
    # a fabricated claim among the copies is still flagged, and so is a copy with one word changed
    result = rt4chart.audit(MUSEUM, " ".join([MUSEUM] * 4) + " The museum also runs a planetarium with daily "
                            "shows for schoolchildren. It holds about 90,000 objects.")
    assert [c.label for c in result.claims[:32]] == [Label.ENTAILED] * 32
    assert all(c.label.hallucinated for c in result.claims[32:]) and result.hallucinated
    ev = F.FeatureEvidence(MUSEUM)
    assert R.copies("the museum OPENED in 1932, in a former railway station", ev)
    assert not R.copies("opened in 1932", ev)  # under COPY_MIN_WORDS: a fragment, left to the model
    assert not R.copies("The museum opened in 1933 in a former railway station.", ev)


def test_the_judge_reads_no_question_unless_asked():
    claims = [_claim("Entry is free on the first Sunday of each month."),
              _claim("The museum opened in 1932 in a railway station and now holds 90,000 objects.", 1)]
    judge = local.LocalJudge()
    plain = asyncio.run(judge.judge(claims, MUSEUM, question=None, stage="global"))
    for question in ("Summarize the following text within 60 words:", "When is entry free?"):
        asked = asyncio.run(judge.judge(claims, MUSEUM, question=question, stage="global"))
        assert asked == plain
    reader = local.LocalJudge(reads_question=True)
    assert reader.version == judge.version + "+question"
    seen = []
    real = F.claim_rows

    def spy(claim, evidence, question, **kw):
        seen.append(question)
        return real(claim, evidence, question, **kw)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(F, "claim_rows", spy)
        asyncio.run(reader.judge(claims, MUSEUM + " ", question="When is entry free?", stage="local"))
        asyncio.run(judge.judge(claims, MUSEUM + "  ", question="When is entry free?", stage="local"))
    assert seen == ["When is entry free?"] * 2 + [None] * 2

