"""Check that rt4chart's DeepEval and RAGAS metrics, run by the frameworks themselves, report the verdicts of
``rt4chart audit`` on the same records. Run by scripts/check_frameworks.sh in a venv that has the framework:

    python scripts/check_frameworks.py deepeval|ragas RECORDS.jsonl AUDITS.jsonl

RECORDS.jsonl: the records; AUDITS.jsonl: ``rt4chart audit RECORDS.jsonl -o AUDITS.jsonl`` (offline local judge).
A record's verdict is "grounded" when its answer label is ``entailed``; its score the share of its claims entailed.
Prints one line a record and exits 1 on any difference."""

from __future__ import annotations

import json
import sys
import warnings


def _lines(path: str) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _contexts(rec: dict) -> list[str]:
    return list(rec["context"]) if isinstance(rec["context"], list) else [rec["context"]]


def _expected(audits: list[dict]) -> dict:
    out = {}
    for a in audits:
        claims = a["claims"]
        share = sum(c["label"] == "entailed" for c in claims) / len(claims) if claims else 0.0
        out[str(a["id"])] = (a["label"], a["label"] == "entailed", share)
    return out


def check_deepeval(records: list[dict], expected: dict) -> list[tuple]:
    from deepeval import assert_test, evaluate
    from deepeval.test_case import LLMTestCase

    from rt4chart.integrations.deepeval import Faithfulness

    cases = [LLMTestCase(name=str(r["id"]), input=r.get("question") or "", actual_output=r["answer"],
                         retrieval_context=_contexts(r)) for r in records]
    result = evaluate(cases, [Faithfulness()])
    rows = []
    for test in result.test_results:
        (data,) = test.metrics_data
        try:
            assert_test(next(c for c in cases if c.name == test.name), [Faithfulness()])
            asserted = True
        except AssertionError:
            asserted = False
        rows.append((test.name, data.success, data.score, f"assert_test {'passed' if asserted else 'raised'}",
                     asserted == data.success))
    return rows


def check_ragas(records: list[dict], expected: dict) -> list[tuple]:
    from ragas import EvaluationDataset, evaluate

    from rt4chart.integrations.ragas import Faithfulness

    warnings.filterwarnings("ignore", "a?evaluate\\(\\) is deprecated", DeprecationWarning)
    metric = Faithfulness()
    dataset = EvaluationDataset.from_list([{"user_input": r.get("question") or "", "retrieved_contexts": _contexts(r),
                                            "response": r["answer"]} for r in records])
    scores = list(evaluate(dataset, metrics=[metric], show_progress=False).to_pandas()[metric.name])
    by_answer = {a.answer: a for a in metric.audits}
    rows = []
    for r, s in zip(records, scores):
        audit = by_answer[r["answer"]]
        rows.append((str(r["id"]), metric.passed(audit), s, f"label {audit.label.value}",
                     audit.label.value == expected[str(r["id"])][0]))
    return rows


def main(argv: list[str]) -> int:
    framework, records_path, audits_path = argv
    records, expected = _lines(records_path), _expected(_lines(audits_path))
    rows = {"deepeval": check_deepeval, "ragas": check_ragas}[framework](records, expected)
    bad = 0
    print(f"\n{framework}: record, rt4chart audit (label, grounded, score) -> {framework} (passed, score, extra)")
    for rid, passed, got, extra, extra_ok in rows:
        label, grounded, share = expected[rid]
        ok = passed == grounded and abs(got - share) < 1e-9 and extra_ok
        bad += not ok
        print(f"  {'ok ' if ok else 'DIFF'} {rid:22} audit {label:12} {str(grounded):5} {share:.2f}"
              f"  ->  {framework} passed={passed!s:5} score={got:.2f}  {extra}")
    print(f"{framework}: {len(rows) - bad} of {len(rows)} records agree with rt4chart audit")
    return 1 if bad or len(rows) != len(records) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
