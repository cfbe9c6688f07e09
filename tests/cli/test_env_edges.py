"""Environment variables are read at the edges only: the CLI and the server read RT4CHART_BASE_URL,
RT4CHART_MODEL, OPENAI_API_KEY, RT4CHART_CACHE_DIR and RT4CHART_DATA_DIR and pass them on; the library reads none
of them."""

import ast
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import rt4chart.judges.registry as registry
from rt4chart.cli import main
from rt4chart.judges.llm import Endpoint, llm_env

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "rt4chart"
RECORDS = ROOT / "examples" / "records.jsonl"
# the command-line and server edges, and the pytest plugin (its options are a command line of their own)
EDGES = {"server/_settings.py", "testing/__init__.py"}
ENV = {"RT4CHART_BASE_URL": "http://127.0.0.1:9/v1", "RT4CHART_MODEL": "env-model", "OPENAI_API_KEY": "sk-env"}


@pytest.fixture
def llm_environment(monkeypatch, tmp_path):
    for key, value in ENV.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("RT4CHART_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def _reads_environment(path: Path) -> bool:
    """Whether the module's code (not its docstrings) touches ``os.environ`` or ``os.getenv``."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Attribute) and node.attr in ("environ", "getenv", "environb"):
            return True
        if isinstance(node, ast.ImportFrom) and node.module == "os" and {a.name for a in node.names} & {
                "environ", "getenv", "environb"}:
            return True
    return False


def test_only_the_edges_read_the_environment():
    readers = sorted(str(p.relative_to(SRC)) for p in SRC.rglob("*.py") if _reads_environment(p))
    assert "cli/audit.py" in readers and "server/_settings.py" in readers
    assert [p for p in readers if p not in EDGES and not p.startswith("cli/")] == []


def test_the_library_does_not_read_the_llm_variables(llm_environment):
    assert registry.make_judge("auto")[0].name != "llm"
    assert registry.build_auditor("auto").judge.name != "llm"
    with pytest.raises(TypeError):
        Endpoint.from_env()  # the environment is an argument, never os.environ behind the caller's back
    assert Endpoint.from_env({}, model="m").api_key is None


def test_llm_env_maps_the_variables_to_settings(tmp_path):
    env = {**ENV, "RT4CHART_CACHE_DIR": str(tmp_path)}
    assert llm_env(env) == {"base_url": ENV["RT4CHART_BASE_URL"], "model": "env-model", "api_key": "sk-env",
                            "cache_path": tmp_path / "llm-cache.sqlite3"}
    assert llm_env({"RT4CHART_MODEL": ""}) == {}
    settings = Endpoint.from_env(env, model="flag-model", api_key=None)
    assert (settings.model, settings.api_key) == ("flag-model", "sk-env")  # a flag given wins; None is not given


def _audit_options(monkeypatch, tmp_path, *args):
    """The options ``rt4chart audit`` gives the factory (the factory then builds a lexical auditor)."""
    seen = {}
    real = registry.build_auditor

    def spy(judge="auto", **options):
        seen.update(options, judge=judge)
        return real("lexical")

    monkeypatch.setattr(registry, "build_auditor", spy)
    out = tmp_path / "out.jsonl"
    res = CliRunner().invoke(main, ["audit", str(RECORDS), "-o", str(out), "-q", *args])
    assert res.exit_code == 0, res.output
    assert all("label" in json.loads(line) for line in out.read_text().splitlines())
    return seen


def test_the_cli_reads_the_variables_and_passes_them(llm_environment, monkeypatch, tmp_path):
    seen = _audit_options(monkeypatch, tmp_path)
    assert seen["judge"] == "auto"
    assert (seen["base_url"], seen["model"], seen["api_key"]) == (ENV["RT4CHART_BASE_URL"], "env-model", "sk-env")
    assert seen["cache_path"] == llm_environment / "llm-cache.sqlite3"
    flags = _audit_options(monkeypatch, tmp_path, "--api-key", "sk-flag", "--model", "flag-model", "--no-cache")
    assert (flags["api_key"], flags["model"], flags["cache"]) == ("sk-flag", "flag-model", False)


def test_the_cli_auditor_is_the_llm_judge_from_the_environment(llm_environment):
    from rt4chart.cli import build_auditor

    aud = build_auditor(judge_name="auto", window=25, overlap=10, global_verification=None, prefilter=False,
                        concurrency=8)
    assert aud.judge.name == "llm"
    backend = aud.judge.backend.inner  # the response cache wraps the HTTP backend
    assert (backend.base_url, backend.model, backend.api_key) == (ENV["RT4CHART_BASE_URL"], "env-model", "sk-env")
    assert aud.judge.backend.cache.path == llm_environment / "llm-cache.sqlite3"


def test_the_server_reads_the_variables_at_its_edge(llm_environment):
    pytest.importorskip("fastapi", reason="the server extra is not installed")
    from rt4chart.server import ServerSettings
    from rt4chart.server._app import build_auditor

    settings = ServerSettings.from_env(judge="auto")
    assert (settings.options["base_url"], settings.options["model"], settings.options["api_key"]) == (
        ENV["RT4CHART_BASE_URL"], "env-model", "sk-env")
    assert "sk-env" not in repr(settings)
    backend = build_auditor(settings).judge.backend.inner
    assert (backend.model, backend.api_key) == ("env-model", "sk-env")
    assert "model" not in ServerSettings.from_env({}, judge="auto").options
    assert build_auditor(ServerSettings(judge="auto")).judge.name != "llm"  # settings made in Python: no env read
    assert ServerSettings.from_env(judge="auto", model="given").options["model"] == "given"
