#!/usr/bin/env bash
# The DeepEval and RAGAS metrics (rt4chart.integrations.deepeval / .ragas) checked in the frameworks themselves,
# each in a fresh venv of its own (the two extras are kept apart, and out of dev, see pyproject.toml):
#   1. pip install -e ".[deepeval]" (then ".[ragas]") with pytest into $RT4CHART_FW_DIR/<framework> (default: a new
#      folder under /tmp; pip downloads a few hundred MB a framework, several minutes each);
#   2. rt4chart audit on the paper example and five records of examples/records.jsonl (offline local judge);
#   3. scripts/check_frameworks.py: deepeval's own evaluate([...], [Faithfulness()]) and assert_test, and ragas's
#      evaluate on an EvaluationDataset of the same records, must give the same verdicts and scores as step 2;
#   4. the framework's tests (tests/integrations/test_<framework>.py).
# Everything runs offline after the installs, from a temporary folder: deepeval writes ./.deepeval and loads a pytest
# plugin of its own. Usage: bash scripts/check_frameworks.sh [deepeval] [ragas]   (default: both)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DIR=${RT4CHART_FW_DIR:-$(mktemp -d /tmp/rt4chart-frameworks.XXXXXX)}
export DEEPEVAL_TELEMETRY_OPT_OUT=1 RAGAS_DO_NOT_TRACK=true PIP_DISABLE_PIP_VERSION_CHECK=1
work=$(mktemp -d)
cd "$work"
# the records: the paper example, then the five records of examples/records.jsonl after it (its first is the same
# paper example)
{ cat "$ROOT/examples/paper_example.jsonl"; tail -n +2 "$ROOT/examples/records.jsonl" | head -n 5; } > records.jsonl
status=0
for fw in "${@:-deepeval ragas}"; do
  for f in $fw; do
    venv="$DIR/$f"
    echo "== $f: venv $venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q -e "$ROOT[$f]" pytest pytest-asyncio
    "$venv/bin/pip" list 2>/dev/null | grep -iE "^($f|langchain-community|rt4chart) " || true
    "$venv/bin/rt4chart" audit records.jsonl -o "audits-$f.jsonl" -q
    "$venv/bin/python" "$ROOT/scripts/check_frameworks.py" "$f" records.jsonl "audits-$f.jsonl" || status=1
    "$venv/bin/python" -m pytest -q -p no:cacheprovider -c "$ROOT/pyproject.toml" --rootdir "$ROOT" \
      "$ROOT/tests/integrations/test_$f.py" || status=1
  done
done
exit $status
