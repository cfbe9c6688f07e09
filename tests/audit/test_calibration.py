"""``rt4chart.audit.calibration``: the map, the file, the judge check and what applying changes in a result."""

from __future__ import annotations

import json

import pytest

from rt4chart import Auditor
from rt4chart.audit.calibration import Calibration, answer_score, fingerprint_with, load_calibration
from rt4chart.audit.relation import violations
from rt4chart.errors import ConfigError
from rt4chart.eval.predictions import prediction_from_result
from rt4chart.judges.lexical import LexicalJudge
from rt4chart.judges.registry import build_auditor

RECORD = {"id": "r1", "context": "Paris is the capital of France. The city has about two million inhabitants.",
          "answer": "Paris is the capital of France. Paris has about two million inhabitants and many cheap hotels."}
FLAGGED = {**RECORD, "answer": "Paris is the capital of France. The city has about two million inhabitants and is "
                               "famous for its tall green bridges."}


def _iso(threshold: float, judge: str = "lexical", fingerprint=None) -> Calibration:
    return Calibration(judge=judge, judge_fingerprint=fingerprint, method="isotonic", threshold=threshold,
                       x=(0.0, 0.2, 0.6, 1.0), y=(0.1, 0.1, 0.5, 0.9))


def test_isotonic_map_interpolates_between_points_and_is_flat_outside() -> None:
    cal = _iso(0.5)
    assert cal.probability(-1.0) == 0.1 and cal.probability(2.0) == 0.9
    assert cal.probability(0.1) == pytest.approx(0.1)
    assert cal.probability(0.4) == pytest.approx(0.3)
    assert cal.probability(0.8) == pytest.approx(0.7)
    assert cal.probability_threshold == pytest.approx(0.4)


def test_platt_map_is_the_logistic_of_the_score() -> None:
    cal = Calibration(judge="lexical", judge_fingerprint=None, method="platt", threshold=0.3, coef=4.0, intercept=-2.0)
    assert cal.probability(0.5) == pytest.approx(0.5)
    assert cal.probability(1.0) == pytest.approx(1 / (1 + 2.718281828459045 ** -2))
    assert cal.probability(-500.0) == pytest.approx(0.0, abs=1e-12)  # no overflow


@pytest.mark.parametrize("bad", [
    dict(method="spline"), dict(x=(0.0, 1.0), y=(0.5,)), dict(x=(0.5, 0.1), y=(0.1, 0.2)),
    dict(y=(0.9, 0.1)), dict(threshold=float("nan")),
])
def test_invalid_calibrations_raise_config_errors(bad) -> None:
    base = dict(judge="lexical", judge_fingerprint=None, method="isotonic", threshold=0.5, x=(0.0, 1.0),
                y=(0.1, 0.9))
    with pytest.raises(ConfigError):
        Calibration(**{**base, **bad})


def test_file_round_trip_and_clear_errors_for_other_files(tmp_path) -> None:
    cal = _iso(0.45, fingerprint="abc")
    path = tmp_path / "cal.json"
    cal.save(path)
    again = load_calibration(path)
    assert again == cal and again.digest == cal.digest
    (tmp_path / "other.json").write_text(json.dumps({"judge": "lexical"}))
    with pytest.raises(ConfigError, match="not an rt4chart calibration"):
        load_calibration(tmp_path / "other.json")
    (tmp_path / "broken.json").write_text("{")
    with pytest.raises(ConfigError, match="not valid JSON"):
        load_calibration(tmp_path / "broken.json")
    doc = cal.to_json()
    del doc["threshold"]
    with pytest.raises(ConfigError, match="lacks a field"):
        load_calibration(doc)


def test_digest_follows_the_decision_not_the_notes() -> None:
    a, b = _iso(0.45), _iso(0.46)
    assert a.digest != b.digest
    assert Calibration(**{**a.__dict__, "meta": {"labels": 99}}).digest == a.digest
    assert fingerprint_with("f1", a) != fingerprint_with("f1", b) != "f1"
    assert fingerprint_with(None, a) is None


def test_a_calibration_of_another_judge_or_configuration_is_refused() -> None:
    fp = build_auditor("lexical").fingerprint
    with pytest.raises(ConfigError, match="fitted on the scores of the local judge.*rt4chart calibrate"):
        build_auditor("lexical", calibration=_iso(0.5, judge="local"))
    with pytest.raises(ConfigError, match="fingerprint"):
        build_auditor("lexical", window=10, overlap=5, calibration=_iso(0.5, fingerprint=fp))
    with pytest.raises(ConfigError, match="local judge"):
        Auditor(judge=LexicalJudge(), calibration=_iso(0.5, judge="local"))
    auditor = build_auditor("lexical", calibration=_iso(0.5, fingerprint=fp))
    assert auditor.fingerprint == fingerprint_with(fp, auditor.calibration) != fp


async def test_answer_score_is_the_eval_score() -> None:
    result = (await build_auditor("lexical").audit(RECORD)).to_json()
    assert answer_score(result) == prediction_from_result(result).score
    assert answer_score(result) == max(c["score"] for c in result["claims"])


async def test_a_higher_threshold_clears_the_answer_but_keeps_claim_labels() -> None:
    plain = await build_auditor("lexical").audit(FLAGGED)
    top = max(c.score for c in plain.claims)
    assert plain.hallucinated and plain.spans
    cal = _iso(top + 0.01)
    result = await build_auditor("lexical", calibration=cal).audit(FLAGGED)
    assert result.hallucinated is False and result.spans == ()
    assert result.risk == pytest.approx(cal.probability(top), abs=1e-6)
    assert [c.label for c in result.claims] == [c.label for c in plain.claims]
    assert result.label == plain.label  # the judges' labels joined: they stay flagged (module docstring)
    assert result.config["calibration"]["digest"] == cal.digest


async def test_a_lower_threshold_flags_entailed_claims_whose_score_reaches_it() -> None:
    plain = await build_auditor("lexical").audit(RECORD)
    entailed = [c for c in plain.claims if c.label.value == "entailed"]
    assert not plain.hallucinated and entailed and entailed[-1].score > 0
    cut = entailed[-1].score  # flags the entailed claim too (score >= threshold)
    result = build_auditor("lexical", calibration=_iso(cut)).calibration.apply(plain)
    moved = result.claims[entailed[-1].index]
    assert moved.label.value == "baseless" and moved.evidence == () and moved.reason.startswith("calibrated:")
    assert result.hallucinated and result.label.hallucinated
    assert any(s.start <= moved.answer_spans[0].start < s.end for s in result.spans)
    assert violations(result) == []  # the retromorphic relation still holds


def test_an_answer_without_decided_claims_is_left_as_the_judge_made_it() -> None:
    from rt4chart.types import AuditResult, Label

    empty = AuditResult(label=Label.UNVERIFIED, hallucinated=False, claims=(), context="c", answer="a")
    assert _iso(0.0).apply(empty) is empty
