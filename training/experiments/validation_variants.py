"""The default local judge, or a variant of it, on the validation slice of RAGTruth train (the context-grouped 8%
that no shipped model was fitted on), through the same pipeline and scoring as ``rt4chart eval run``.

    python3 -m training.experiments.validation_variants -o runs/val-default   # 2.5 minutes on 2 threads
    python3 -m training.experiments.validation_variants -o runs/val-384 --max-len 384
    python3 -m training.experiments.validation_variants -o runs/val-hi50 --skip-above 0.5
    python3 -m training.experiments.validation_variants -o runs/val-2min --second-window min
    python3 -m training.experiments.validation_variants -o runs/val-pc \
        --tagger-model /tmp/tagger-int8-per-channel.onnx

Prints answer and span precision / recall / F1 and the share of answers whose global pass ran the tagger. The
variants change the judge's internals in this process only; they are experiments, not options of the package.
Resumable: an existing ``results.jsonl`` in the output folder is kept and the rest is audited.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from rt4chart.audit.auditor import Auditor
from rt4chart.eval import runner
from rt4chart.eval.predictions import read_predictions
from rt4chart.eval.studies.shapes import shape_records
from rt4chart.judges.local import features as F
from rt4chart.judges import local as L
from rt4chart.judges.local import rules as R
from rt4chart.judges.local import spans as S
from rt4chart.judges.local import tagger as T

from ..splits import data_dir, validation_records


def evidence_sentences(evidence) -> list[str]:
    """The sentence texts of ``evidence`` (a text, or its ``features.FeatureEvidence``) as the tagger splits it."""
    if isinstance(evidence, F.FeatureEvidence):
        return list(evidence.index.texts)
    return [s.text for s in F.sentences_of(evidence)]


def second_window(how: str) -> None:
    """Make the tagger also read the context sentences its first window left out, and combine the two token
    probabilities by ``min`` (support anywhere in the context) or ``mean``."""
    select, kept = T.select_sentences, {}

    def recording(sentences, lengths, claims, budget):
        kept["keep"], kept["n"] = select(sentences, lengths, claims, budget), len(sentences)
        return kept["keep"]

    T.select_sentences = recording

    def tag(self, claims, evidence, question, rows):
        tagger = self._models.tagger
        texts = [c.text for c in claims]
        enc, starts = tagger.encoder.encode_claims(question, evidence, texts)
        p = tagger.probabilities(enc)
        if len(kept["keep"]) < kept["n"]:
            keep = set(kept["keep"])
            rest = [s for i, s in enumerate(s for s in evidence_sentences(evidence) if s.strip()) if i not in keep]
            p2 = tagger.probabilities(tagger.encoder.encode(question, rest, T.claims_text(texts)[0]))
            m = min(len(p), len(p2))  # the same claims text, so the same claim tokens
            both = np.minimum(p[:m], p2[:m]) if how == "min" else (p[:m] + p2[:m]) / 2
            p = np.concatenate([both, p[m:]])
        return [T.word_probabilities(enc, p, s, r.spans) for s, r in zip(starts, rows)]

    L.LocalJudge.tag = tag


def skip_above(risk: float) -> None:
    """Also let the trees decide alone when they put some claim at or above ``risk`` (no rule firing)."""
    score = L.LocalJudge.score

    def patched(self, claims, evidence, question, *, semantic=False, reading=None):
        reading = reading or self.read(claims, evidence, question)  # both calls share the trees' prediction
        out = score(self, claims, evidence, question, semantic=False, reading=reading)
        if semantic and len(out.claim_p) and out.claim_p.max() >= risk and not out.by_rule.any():
            return out
        return score(self, claims, evidence, question, semantic=semantic, reading=reading)

    L.LocalJudge.score = patched


def grow(low: float) -> None:
    """Hysteresis spans: a flagged word's neighbours join its span while their word probability reaches ``low``
    (the flagged words themselves still need ``word_threshold``)."""
    merge = S.merge_words

    def patched(words, threshold):
        if not words or not any(p >= threshold for _, _, p in words):
            return merge(words, threshold)
        on = [p >= threshold for _, _, p in words]
        for order in (range(1, len(words)), range(len(words) - 2, -1, -1)):
            for i in order:
                j = i - 1 if order.step == 1 else i + 1
                if not on[i] and on[j] and words[i][2] >= low:
                    on[i] = True
        return merge([(s, e, 1.0 if f else 0.0) for (s, e, _), f in zip(words, on)], 0.5)

    S.merge_words = patched  # spans.word_spans reads it from there


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-o", "--out", type=Path, required=True, help="output folder (results.jsonl)")
    ap.add_argument("--no-tagger", action="store_true", help="the trees alone")
    ap.add_argument("--model-dir", type=Path, default=None,
                    help="a model folder other than the package's (a retrained variant of all the models)")
    ap.add_argument("--max-len", type=int, default=None, help="the tagger's window in tokens (shipped: 512)")
    ap.add_argument("--skip-below", type=float, default=None,
                    help=f"SKIP_TAGGER_BELOW (shipped: {R.SKIP_TAGGER_BELOW})")
    ap.add_argument("--skip-above", type=float, default=None, help="also skip the tagger at or above this risk")
    ap.add_argument("--bridge", type=int, default=None,
                    help=f"characters between flagged words joined into one span (shipped: {S.BRIDGE})")
    ap.add_argument("--grow", type=float, default=None,
                    help="hysteresis spans: neighbours of flagged words join at this word probability")
    ap.add_argument("--second-window", choices=("min", "mean"), default=None)
    ap.add_argument("--tagger-model", type=Path, default=None,
                    help="another ONNX build of the tagger (same inputs and outputs) in place of the shipped one")
    ap.add_argument("--limit", type=int, default=None, help="only the first N validation answers")
    ap.add_argument("--shape", default=None,
                    help="send the answers in another input shape (rt4chart eval run --shape), e.g. "
                    "instruction-question,raw-data2txt")
    ap.add_argument("--reads-question", action="store_true",
                    help="the judge reads the question (LocalJudge(reads_question=True); shipped: it does not)")
    args = ap.parse_args()

    records = validation_records()[: args.limit]
    if args.shape:
        records = shape_records(records, args.shape, split="train", data_dir=data_dir())
    judge = L.LocalJudge(threads=2, no_tagger=args.no_tagger, model_dir=args.model_dir,
                         reads_question=args.reads_question)
    if args.max_len:
        judge._models.tagger.encoder.max_len = args.max_len
    if args.tagger_model:
        import onnxruntime as ort

        shipped = judge._models.tagger.session
        judge._models.tagger.session = ort.InferenceSession(str(args.tagger_model), shipped.get_session_options(),
                                                            providers=["CPUExecutionProvider"])
    if args.skip_below is not None:
        R.SKIP_TAGGER_BELOW = args.skip_below
    if args.bridge is not None:
        S.BRIDGE = args.bridge
    if args.skip_above is not None:
        skip_above(args.skip_above)
    if args.second_window:
        second_window(args.second_window)
    if args.grow is not None:
        grow(args.grow)

    t0 = time.time()
    results, _ = runner.run(records, Auditor(judge=judge, concurrency=1), args.out, resume=True)
    elapsed = time.time() - t0
    preds, errors = read_predictions(results, audit_results=True)
    report = runner.score(records, preds, baselines=False, n_boot=50)["systems"]["predictions"]
    tagged = judged = n_claims = unverified = unverified_answers = 0
    for line in results.read_text().splitlines():
        claims = json.loads(line).get("claims") or []
        judged += bool(claims)
        tagged += any("+tagger@" in (c.get("prompt_version") or "") for c in claims)
        n_claims += len(claims)
        u = sum(c.get("label") == "unverified" for c in claims)
        unverified += u
        unverified_answers += u > 0
    a, s = report["answer"], report["span"]["overall"]
    print(f"{len(records)} validation answers, {elapsed:.0f} s, {len(errors)} failed rows")
    print("| scope | answer P | answer R | answer F1 |\n|---|---:|---:|---:|")
    for scope, m in a.items():
        print(f"| {scope} | {m['precision']:.4f} | {m['recall']:.4f} | {m['f1']:.4f} |")
    print(f"\nspan P {s['precision']:.4f}  R {s['recall']:.4f}  F1 {s['f1']:.4f}")
    auroc = report.get("ranking", {}).get("overall", {}).get("auroc")
    if auroc is not None:
        print(f"AUROC {auroc:.4f}")
    print(f"{n_claims} claims; {unverified} unverified, in {unverified_answers} answers")
    print(f"tagger ran on {tagged / max(judged, 1):.1%} of the {judged} answers with claims")


if __name__ == "__main__":
    main()
