#!/usr/bin/env bash
# The opt-in live MLflow check (docs/mlflow.md): a venv of its own with this checkout's dependencies and mlflow
# (the [mlflow] extra), then tests/integrations/test_mlflow_live.py with RT4CHART_MLFLOW=1, which starts
# `mlflow server` on loopback with a sqlite store in a temporary folder, logs three traces with MLflow's tracing SDK,
# runs `rt4chart audit --from mlflow --write-back` three times (twice over REST, once on the sqlite store) and
# `mlflow.genai.evaluate` with Groundedness, and reads the assessments back.
#
# The venv goes to $RT4CHART_MLFLOW_VENV (default: ~/.cache/rt4chart/mlflow-venv); a re-run reuses it (delete it to
# start over). It sees the system site-packages (rt4chart's dependencies where they are installed already). Extra
# arguments go to pytest; RT4CHART_MLFLOW_LOG=FILE keeps the server's log.
set -euo pipefail

PYTHON="${PYTHON:-python3}"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${RT4CHART_MLFLOW_VENV:-$HOME/.cache/rt4chart/mlflow-venv}"

if ! "$venv/bin/python" -c "import mlflow" 2>/dev/null; then
  rm -rf "$venv"
  "$PYTHON" -m venv --system-site-packages "$venv"
  "$venv/bin/python" -m pip install -q "mlflow>=3" pytest pytest-asyncio
fi

cd "$repo"
# this checkout's src first: the test and the commands it runs import this rt4chart
RT4CHART_MLFLOW=1 MLFLOW_DISABLE_TELEMETRY=true DO_NOT_TRACK=true PYTHONPATH="$repo/src${PYTHONPATH:+:$PYTHONPATH}" \
  "$venv/bin/python" -m pytest -q -p no:cacheprovider tests/integrations/test_mlflow_live.py "$@"
