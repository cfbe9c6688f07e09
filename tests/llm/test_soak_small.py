"""The LLM soak's core (benchmarks/soak_llm.py) on 20 synthetic records: faults at 20 %, one kill -9 of the CLI,
``--resume`` and ``--retry-errors``: one row per id, no duplicates, no entailed claim without anchored evidence,
records untouched by faults identical to the fault-free run."""

from __future__ import annotations

from benchmarks.soak_llm import parser, soak, unanchored_entailed  # the repository root is on pytest's pythonpath

FACTS = ["The harbor lantern was lit at dusk by the keeper.", "The meadow held forty copper bells in spring.",
         "A violin maker lived beside the glacier for ten years.", "The orchard produced pepper and walnuts.",
         "Ravens nested on the summit of the timber tower.", "The ledger listed marble, nectar and oyster prices."]
INVENTED = ["The zeppelin landed on a quasar near the tundra.", "A wizard sold kumquats to a vortex."]


def records(n: int = 20) -> list[dict]:
    out = []
    for i in range(n):
        facts = [f.replace(".", f" in year {1900 + i}.") for f in FACTS]  # no text shared between records
        context = " ".join(facts[i % 6:] + facts[: i % 6])
        answer = " ".join([facts[i % 6], facts[(i + 2) % 6], INVENTED[i % 2].replace(".", f" {i}.")])
        out.append({"id": f"soak-{i:02d}", "context": context, "question": f"What happened ({i})?", "answer": answer})
    return out


def test_soak_one_kill_keeps_one_row_per_id_and_no_unanchored_entailed(tmp_path):
    opts = parser().parse_args(["--kills", "1", "--fault-rate", "0.2", "--seed", "3", "--latency", "0.05",
                                "--concurrency", "2", "--timeout", "0.5", "--deadline", "120"])
    recs = records()
    rep = soak(opts, recs, tmp_path, log=lambda *a: None)
    assert rep["kills"] == 1
    assert rep["rows"] == len(recs)
    assert (rep["ids_missing"], rep["ids_duplicated"], rep["ids_unknown"]) == (0, 0, 0)
    assert rep["error_rows"] == 0
    assert rep["faults_injected"] > 0
    assert rep["entailed_claims"] > 0  # the honest replies do entail the copied facts
    assert rep["unanchored_entailed"] == 0
    assert rep["untouched_records"] > 0  # the identity check below is not vacuous
    assert rep["untouched_mismatched"] == 0


def test_unanchored_entailed_counts_a_quote_that_is_not_in_the_context():
    ctx = "The free trial lasts 14 days."
    good = {"start": 0, "end": 29, "text": ctx}
    rows = [{"id": "a", "claims": [{"label": "entailed", "evidence": [good]},
                                   {"label": "entailed", "evidence": []},
                                   {"label": "entailed", "evidence": [{"start": 0, "end": 9, "text": "not there"}]},
                                   {"label": "baseless", "evidence": []}]}]
    assert unanchored_entailed(rows, {"a": ctx}) == 2
