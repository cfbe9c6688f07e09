#!/usr/bin/env bash
# The opt-in live Phoenix check (docs/phoenix.md): a fresh venv of its own with this checkout, arize-phoenix and
# pytest, then tests/integrations/test_phoenix_live.py with RT4CHART_PHOENIX=1, which starts `phoenix serve` on
# loopback in a temporary folder, sends the OpenInference example's traces, runs `rt4chart audit --from phoenix
# --write-back` twice and reads the annotations back.
#
# The venv goes to $RT4CHART_PHOENIX_VENV (default: ~/.cache/rt4chart/phoenix-venv); a re-run reuses it (delete it
# to start over). The first install downloads about 500 MB and takes several minutes. Extra arguments go to pytest.
set -euo pipefail

PYTHON="${PYTHON:-python3}"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${RT4CHART_PHOENIX_VENV:-$HOME/.cache/rt4chart/phoenix-venv}"

if [ ! -x "$venv/bin/phoenix" ]; then
  rm -rf "$venv"
  "$PYTHON" -m venv "$venv"
  "$venv/bin/python" -m pip install -q --upgrade pip
  # [otel]: the example records its spans with the OpenTelemetry SDK and writes them with the OTLP encoder
  "$venv/bin/python" -m pip install -q -e "$repo[otel]" arize-phoenix pytest pytest-asyncio
fi
"$venv/bin/python" -m pip install -q --no-deps -e "$repo"  # this checkout, should the venv hold another one

cd "$repo"
# the venv's phoenix on PATH: the test starts `phoenix serve`; -p no:phoenix: the pytest plugin of Phoenix's client
# imports modules that warn on import, and this suite makes warnings errors
PATH="$venv/bin:$PATH" RT4CHART_PHOENIX=1 PHOENIX_TELEMETRY_ENABLED=false \
  "$venv/bin/python" -m pytest -q -p no:cacheprovider -p no:phoenix tests/integrations/test_phoenix_live.py "$@"
