"""The hybrid judge's card names the model it was fitted for (``fitted_for``): one warning per run when the model
in use is another one (naming both and the refit command), or when it cannot be told; none for the same model or a
card that names none; ``--combination`` is the hybrid judge's own option."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path

import pytest
from rt4chart.testing.openai_server import Reply

from rt4chart.audit.auditor import Auditor
from rt4chart.errors import ConfigError
from rt4chart.judges.combine import Combination, model_names, same_model
from rt4chart.judges.registry import make_judge

CONTEXT = ("The city library opens at 9 a.m. on weekdays. Entry costs 5 euros for adults. Children under 12 enter "
           "for free. The reading room on the second floor has 40 seats.")
RECORD = {"id": "library", "context": CONTEXT,
          "answer": "Children under 12 pay 5 euros to enter. The reading room has 40 seats for adults."}
SHIPPED_FILE = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"


def _yes(req):
    return Reply.yes_no(0.8)


def _warnings(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "rt4chart.judges.hybrid"
            and r.levelno == logging.WARNING]


def _audit_twice(judge) -> None:
    auditor = Auditor(judge=judge)
    for _ in range(2):
        asyncio.run(auditor.audit(RECORD))


def test_the_shipped_card_records_the_model_it_was_fitted_for():
    fitted = Combination.load().fitted_for
    assert fitted is not None and fitted["gguf"] == SHIPPED_FILE and "Qwen2.5-Coder-1.5B-Instruct" in fitted["name"]
    # a match by GGUF file name or endpoint model id, case-insensitively; the managed server's alias says nothing
    assert same_model(fitted, model_names("/models/Qwen2.5-Coder-1.5B-Instruct-Q4_K_M.gguf", "judge")) is True
    assert same_model(fitted, model_names("qwen2.5-coder-1.5b-instruct-q4_k_m")) is True
    assert same_model(fitted, model_names("llama-3.2-1b-instruct-q4_k_m.gguf", "judge")) is False
    assert same_model(fitted, model_names(None, "judge")) is None
    assert same_model(None, model_names("anything.gguf")) is None


def test_another_model_is_warned_about_once_naming_both_and_the_refit(serve, caplog):
    server = serve(_yes, total_slots=1, model_path="/models/Llama-3.2-1B-Instruct-Q4_K_M.gguf")
    judge, _ = make_judge("hybrid", base_url=server.base_url, model="judge", cache=False)
    assert judge.model_file == "Llama-3.2-1B-Instruct-Q4_K_M.gguf"
    with caplog.at_level(logging.WARNING, logger="rt4chart.judges.hybrid"):
        _audit_twice(judge)
    (message,) = _warnings(caplog)
    assert "Qwen2.5-Coder-1.5B-Instruct Q4_K_M" in message and SHIPPED_FILE in message
    assert "Llama-3.2-1B-Instruct-Q4_K_M.gguf" in message
    assert "rt4chart calibrate LABELLED --judge hybrid --card" in message and "--combination" in message


def test_the_fitted_model_is_not_warned_about(serve, caplog):
    server = serve(_yes, total_slots=1, model_path=f"/home/me/models/{SHIPPED_FILE.upper()}")
    judge, _ = make_judge("hybrid", base_url=server.base_url, model="judge", cache=False)
    with caplog.at_level(logging.WARNING, logger="rt4chart.judges.hybrid"):
        _audit_twice(judge)
    assert _warnings(caplog) == []


def test_an_endpoint_model_id_identifies_a_model_without_props(serve, caplog):
    server = serve(_yes)  # an API: no /props, the model id is all there is
    judge, _ = make_judge("hybrid", base_url=server.base_url, model="gpt-4o-mini", cache=False)
    with caplog.at_level(logging.WARNING, logger="rt4chart.judges.hybrid"):
        _audit_twice(judge)
    (message,) = _warnings(caplog)
    assert "but the model in use is (model 'gpt-4o-mini')" in message


def test_a_model_that_cannot_be_told_is_said_once(serve, caplog):
    server = serve(_yes)  # answers to the alias only, reports no file
    judge, _ = make_judge("hybrid", base_url=server.base_url, model="judge", cache=False)
    with caplog.at_level(logging.WARNING, logger="rt4chart.judges.hybrid"):
        _audit_twice(judge)
    (message,) = _warnings(caplog)
    assert "reports no model file or name" in message and "rt4chart calibrate" in message


def test_a_card_that_names_no_model_is_not_warned_about(serve, caplog, tmp_path: Path):
    card = json.loads(Path(_shipped()).read_text())
    card.pop("fitted_for")
    path = tmp_path / "card.json"
    path.write_text(json.dumps(card))
    server = serve(_yes)
    judge, _ = make_judge("hybrid", base_url=server.base_url, model="other", cache=False, combination=str(path))
    with caplog.at_level(logging.WARNING, logger="rt4chart.judges.hybrid"):
        _audit_twice(judge)
    assert _warnings(caplog) == []


def test_the_card_option_is_the_hybrid_judges_own(tmp_path: Path):
    path = tmp_path / "card.json"
    path.write_text(Path(_shipped()).read_text())
    for other in ("local", "lexical"):
        with pytest.raises(ConfigError, match=f"--combination configures the hybrid judge, but the judge here "
                                              f"is {other}"):
            make_judge(other, combination=str(path))
    with pytest.raises(ConfigError, match="--combination configures the hybrid judge, but the judge here is llm"):
        make_judge("llm", base_url="http://127.0.0.1:9/v1", model="m", combination=str(path))


def _shipped() -> str:
    from rt4chart.judges.combine import CARD
    from rt4chart.judges.local import model_dir

    return str(Path(model_dir()) / CARD)
