"""An option is defined once, as a field: a judge option added to its judge's option dataclass is a flag of
``rt4chart audit`` and ``rt4chart serve`` and a field of the server's schema, with nothing else written; the audit's
settings (``AuditConfig``) are flags of both commands from their fields."""

import dataclasses
import importlib
from typing import Optional

import pytest
from click.testing import CliRunner

from rt4chart.audit.config import AuditConfig
from rt4chart.judges import registry
from rt4chart.judges.judge_options import LocalOptions
from rt4chart.options import option


@dataclasses.dataclass(frozen=True)
class _Widened(LocalOptions):
    patience: Optional[float] = option(None, "local judge: how patient it is (a test's option)", low=0, high=1)


@pytest.fixture
def widened(monkeypatch):
    """The local judge's options with one more field; the commands made again from the table."""
    monkeypatch.setitem(registry.JUDGE_TABLE, "local", dataclasses.replace(registry.JUDGE_TABLE["local"],
                                                                           options=(_Widened,)))
    audit_cli = importlib.import_module("rt4chart.cli.audit")  # the modules (the package names its commands so)
    serve_cli = importlib.import_module("rt4chart.cli.serve")
    yield importlib.reload(audit_cli).audit, importlib.reload(serve_cli).serve
    monkeypatch.undo()
    importlib.reload(audit_cli), importlib.reload(serve_cli)


def test_a_judge_option_is_a_flag_of_audit_and_serve_and_a_schema_field_from_its_field_alone(widened):
    pytest.importorskip("fastapi", reason="the server extra is not installed")
    from rt4chart.server._models import judge_schemas

    for command in widened:
        shown = CliRunner().invoke(command, ["--help"], terminal_width=200).output
        assert "--patience" in shown and "how patient it is" in shown, command.name
        refused = CliRunner().invoke(command, ["--patience", "2", "x.jsonl"])
        assert refused.exit_code == 2 and "--patience" in refused.output  # its range, from the field
    local = judge_schemas()["JudgeOptions"]["properties"]["local"]["properties"]
    assert local["patience"]["description"] == "local judge: how patient it is (a test's option)"


def test_the_audit_settings_are_flags_of_both_commands_from_their_fields():
    from rt4chart.cli.audit import audit
    from rt4chart.cli.serve import serve

    for command in (audit, serve):
        params = {p.name: p for p in command.params}
        for f in dataclasses.fields(AuditConfig):
            assert f.name in params, (command.name, f.name)
        assert "-W" in params["window"].opts and "--no-global" in params["global_verification"].opts


def test_serve_builds_its_judge_from_the_audit_commands_options(monkeypatch):
    pytest.importorskip("fastapi", reason="the server extra is not installed")
    serve_cli = importlib.import_module("rt4chart.cli.serve")
    seen = {}

    def run(app, **kw):
        seen["auditor"] = app.state.auditor if hasattr(app.state, "auditor") else None
    monkeypatch.setitem(__import__("sys").modules, "uvicorn", type("U", (), {"run": staticmethod(run)}))
    built = {}
    real = serve_cli.ServerSettings.from_env

    def capture(*a, **kw):
        built["settings"] = real(*a, **kw)
        return built["settings"]
    monkeypatch.setattr(serve_cli.ServerSettings, "from_env", capture)
    result = CliRunner().invoke(serve_cli.serve, ["--judge", "lexical", "--support", "0.7", "-W", "5", "-O", "1",
                                                  "--audit-timeout", "9", "--no-gate"])
    assert result.exit_code == 0, result.output
    settings = built["settings"]
    assert settings.options["support"] == 0.7 and settings.audit.window == 5 and settings.audit_timeout_s == 9
    refused = CliRunner().invoke(serve_cli.serve, ["--judge", "lexical", "--floor", "0.2"])
    assert refused.exit_code == 2 and "--floor" in refused.output and "hybrid" in refused.output
