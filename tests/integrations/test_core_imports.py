"""The core install imports no framework: ``import rt4chart`` (and the integrations package itself) loads none of
LangChain, LlamaIndex, Haystack, OpenTelemetry, DeepEval, RAGAS or MLflow; the MLflow trace reader and write-back
(``rt4chart.integrations.mlflow``, what ``audit --from mlflow http://...`` uses) do not either: only its scorer
does."""

import json
import subprocess
import sys

FRAMEWORKS = ("langchain", "langchain_core", "llama_index", "haystack", "opentelemetry", "openinference", "phoenix",
              "deepeval", "ragas", "mlflow")


def _imported_after(statement: str) -> list[str]:
    code = (f"{statement}\nimport sys\n"
            f"import json\nprint(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}} & set({FRAMEWORKS!r}))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def test_import_rt4chart_imports_no_framework():
    assert _imported_after("import rt4chart") == []


def test_the_integrations_package_and_the_trace_reader_import_no_framework():
    assert _imported_after("import rt4chart.integrations, rt4chart.io.traces, rt4chart.cli") == []


def test_the_mlflow_reader_imports_no_mlflow():
    assert _imported_after("import rt4chart.integrations.mlflow, rt4chart.integrations.mlflow.client") == []


def test_the_framework_check_sees_a_framework_when_one_is_imported():
    # the check above can fail: importing an integration module does bring its framework in
    assert "langchain_core" in _imported_after("import rt4chart.integrations.langchain")
