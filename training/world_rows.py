"""The rows the local judge's calibrators are fitted on across sources (``python -m training.world_calibrator``):
every claim of every record read by both tree pairs as the judge reads it at the global pass, with the raw and the
shipped-calibrated claim probabilities, the claim-model matrix, the rule flags and the gold labels::

    python3 -m training.world_rows [-o runs/world-rows] [--per-source 1500] [--sources ragtruth-qa,snli,...]

Sources: the RAGTruth validation slice of train by task (``training.splits.validation_records``: out-of-sample for
the shipped trees, which never saw it) and the NLI sets that ``../shared/data/nli/README.md`` marks **train**, each a
seeded sample of ``--per-source`` pairs (premise the context, hypothesis the answer, as a user sends them;
``rt4chart.eval.datasets.load_nli``), and ``rag-short``: short answers made from the validation slice's passages,
half of them adding what the passage never says (``short_answers``). No eval-only NLI set and no RAGTruth test
record is read. One ``.npz`` per
source under ``-o``; a source whose file exists is skipped, so a killed run resumes where it stopped.
"""

from __future__ import annotations

import argparse
import random
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import numpy as np

from rt4chart.audit.decompose import RuleDecomposer
from rt4chart.eval.datasets import load_nli
from rt4chart.evidence import restated
from rt4chart.judges.local import LocalJudge, calibrator_rows, decided_by_rule
from rt4chart.judges.local import features as F
from rt4chart.judges.local import rules as R
from rt4chart.judges.local import tagger as T
from rt4chart.judges.local import verifier as V

from .splits import claim_is_hallucinated, validation_records

#: the NLI sets (folder, splits) that may train a model we ship, by ../shared/data/nli/README.md
NLI_TRAIN: dict[str, tuple[str, tuple[str, ...]]] = {
    "snli": ("snli", ("dev",)),
    "cad_snli": ("cad_snli", ("original_train", "revised_hypothesis_train", "revised_premise_train")),
    "conjnli": ("conjnli", ("adversarial_train",)),
    "taxinli": ("taxinli", ("mnli_train",)),
    "fever_nli": ("fever_nli_dev", ("dev",)),
    "mnli": ("docnli_binary", ("mnli_dev",)),
    "breaking_nli": ("breaking_nli", ("test",)),
}
#: pairs sampled from each NLI set (``--per-source``); the claim verifier never trains on them
PER_SOURCE = 1500
RAGTRUTH = ("ragtruth-qa", "ragtruth-summary", "ragtruth-data2txt")
#: short answers made from the RAGTruth validation slice's passages (``short_answers``)
RAG_SHORT = "rag-short"
#: the written corpus' calibration and selection domains (``training.written_corpus.split_of``), which the claim
#: verifier never trained on: answers labelled sentence by sentence
WRITTEN = ("written", "written-selection")
SOURCES = (*RAGTRUTH, *NLI_TRAIN, RAG_SHORT, *WRITTEN)


@dataclass(frozen=True)
class WrittenAnswer:
    """A written corpus item as a record: its sentences' answer spans and whether each is hallucinated."""

    context: str
    answer: str
    question: Optional[str]
    hallucinated: bool
    sentences: tuple[tuple[int, int, bool], ...]


def written_answers(split: str) -> list[WrittenAnswer]:
    from rt4chart.io import join_context

    from .written_corpus import answer_label, corpus, split_of

    out = []
    for it in corpus():
        if split_of(it) != split:
            continue
        spans, pos = [], 0
        for s in it["sentences"]:
            at = it["answer"].index(s["text"], pos)
            pos = at + len(s["text"])
            spans.append((at, pos, s["label"] in ("contradicted", "baseless")))
        context = join_context(it["context"]) if isinstance(it["context"], list) else it["context"]
        out.append(WrittenAnswer(context, it["answer"], it.get("question") or None,
                                 answer_label(it) != "entailed", tuple(spans)))
    return out


@dataclass(frozen=True)
class ShortAnswer:
    context: str
    answer: str
    hallucinated: bool


def short_answers(limit: int, seed: int) -> list[ShortAnswer]:
    """Short answers against two or three consecutive sentences of a RAGTruth validation passage (under 600
    characters; the claim verifier never trained on these passages), half of them faithful, half adding what the
    passage never says: one of its sentences with a phrase of a far sentence of the same document added, or a far
    sentence about the same things (``verifier_pairs.detail_rows`` and ``near_neutral``). The faithful half: one of its
    sentences with one of its own phrases dropped, or as it is."""
    from rt4chart.text.segment import split_sentences

    from .verifier_pairs import detail_rows, near_neutral

    rng = random.Random(f"{seed}:{RAG_SHORT}")
    contexts = sorted({r.context for r in validation_records() if r.task != "data2txt"})
    rng.shuffle(contexts)
    out: list[ShortAnswer] = []
    for context in contexts:
        texts = [s.text for s in split_sentences(context)]
        for start in range(0, max(len(texts) - 1, 0), 2):
            window = texts[start:start + rng.choice((2, 3))]
            premise = " ".join(window)
            if len(premise) >= 600 or len(window) < 2:
                continue
            k = rng.randrange(len(window))
            far = [t for i, t in enumerate(texts) if abs(i - start - k) > 3]
            rows = detail_rows(window[k], rng.choice(far)) if far else []
            added = [r["hypothesis"] for r in rows if r["label"] == "neutral"]
            kept = [r["hypothesis"] for r in rows if r["label"] == "entailment"] or [window[k]]
            if len(out) % 2 == 0:
                # a sentence of the window is no "far" sentence: blanked, it is never picked
                near = near_neutral([t if not start <= i < start + len(window) else "" for i, t in enumerate(texts)],
                                    start + k, premise)
                wrong = added[0] if added and (near is None or rng.random() < 0.7) else near
                if wrong is None:
                    continue
                out.append(ShortAnswer(premise, wrong, True))
            else:
                out.append(ShortAnswer(premise, kept[0], False))
        if len(out) >= limit:
            break
    return out[:limit]


def records_of(source: str, per_source: int, seed: int) -> list:
    """The records of one source: all of a RAGTruth task's validation answers, a seeded sample of an NLI set."""
    if source in RAGTRUTH:
        task = source.split("-", 1)[1]
        return [r for r in validation_records() if r.task == task]
    if source == RAG_SHORT:
        return short_answers(per_source, seed)
    if source in WRITTEN:
        return written_answers("calibration" if source == "written" else "selection")
    folder, splits = NLI_TRAIN[source]
    records = load_nli(folder, splits)
    keep = sorted(random.Random(f"{seed}:{source}").sample(range(len(records)), min(per_source, len(records))))
    return [records[i] for i in keep]


def read_pair(models, rows, tagged=None, spared=None) -> dict:
    """One tree pair's reading of claims judged together: the claim-model matrix, raw and calibrated claim
    probabilities and the rule flags (what ``Models.predict`` computes, kept apart)."""
    words, claims = (models.words, models.claims) if tagged is None else (models.words_t, models.claims_t)
    mats = [r.matrix for r in rows] if tagged is None else \
        [np.hstack([r.matrix, T.word_column(t)]) for r, t in zip(rows, tagged)]
    p = models.run(words, np.concatenate(mats))
    per_claim = np.split(p, np.cumsum([len(r.spans) for r in rows])[:-1])
    matrix = F.claim_matrix(per_claim, rows)
    if tagged is not None:
        matrix = np.hstack([matrix, T.claim_columns(tagged)])
    raw = models.run(claims, matrix)
    calibrator, features = (models.calibrator, models.calibrator_features) if tagged is None else \
        (models.calibrator_t, models.calibrator_features_t)
    return {"matrix": matrix.astype(np.float32), "raw": raw,
            "cal": models.run(calibrator, calibrator_rows(raw, matrix, features)),
            "by_rule": decided_by_rule(matrix, spared, raw)}


def collect(source: str, records: list, judge: LocalJudge, verifier: Optional[V.Verifier] = None) -> dict:
    """Every claim's reading by both pairs, with its record, answer label and claim label (RAGTruth: gold spans
    over the claim, ``claim_is_hallucinated``; NLI: the pair's label), and, with ``verifier``, its reading of each
    claim against its windows of the context (``verified``: ``verifier.read_windows``, as the judge reads it)."""
    dec = RuleDecomposer()
    models = judge._models
    keys = ("record", "y", "claim_y", "needs", "short", "matrix", "raw", "cal", "by_rule", "matrix_t", "raw_t",
            "cal_t", "by_rule_t", "verified")
    out: dict[str, list] = {k: [] for k in keys}
    for ri, r in enumerate(records):
        ev = judge.evidence(r.context)
        claims = [c for c in dec.decompose_sync(r.answer, getattr(r, "question", None))]
        rows = judge.rows(claims, ev, None)
        keep = [k for k, row in enumerate(rows) if row.spans]
        if not keep:
            continue
        claims, rows = [claims[k] for k in keep], [rows[k] for k in keep]
        spared = R.exempt(claims, rows, ev)
        trees = read_pair(models, rows, spared=spared)
        tagged = read_pair(models, rows, judge.tag(claims, ev, None, rows), spared=spared)
        needs = R.needs_tagger(rows, trees["cal"], trees["by_rule"], calibrated=True)
        # the part of needs_tagger that reads no probability: a short answer with a short claim missing a word
        short = R.needs_tagger(rows, np.zeros(len(rows)), np.zeros(len(rows), dtype=bool), calibrated=True)
        verified = np.full((len(claims), len(V.COLUMNS)), np.nan)
        if verifier is not None:
            verified = V.read_windows(verifier, ev.index.readings, [r.assessment.order if r.assessment else ()
                                                                   for r in rows],
                                      [restated(c.text, ev.index, surface=True)[0] for c in claims]).columns
        for k, c in enumerate(claims):
            span = c.answer_spans[0] if c.answer_spans else None
            if source in RAGTRUTH:
                claim_y = bool(span is not None and claim_is_hallucinated(span.start, span.end, r.spans))
            elif source in WRITTEN:  # the label of the sentence the claim lies in
                claim_y = any(h for s, e, h in r.sentences if span is not None and s < span.end and span.start < e)
            else:
                claim_y = bool(r.hallucinated)
            out["record"].append(ri)
            out["y"].append(bool(r.hallucinated))
            out["claim_y"].append(claim_y)
            out["needs"].append(needs)
            out["short"].append(short)
            out["verified"].append(verified[k])
            for key, pair in (("", trees), ("_t", tagged)):
                out["matrix" + key].append(pair["matrix"][k])
                out["raw" + key].append(pair["raw"][k])
                out["cal" + key].append(pair["cal"][k])
                out["by_rule" + key].append(bool(pair["by_rule"][k]))
    return {k: np.asarray(v) for k, v in out.items()}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-o", "--out", default="runs/world-rows")
    ap.add_argument("--per-source", type=int, default=PER_SOURCE)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--sources", default=",".join(SOURCES))
    ap.add_argument("--verifier-dir", default=None,
                    help="a folder with the claim verifier (python -m training.train_nli_verifier): its "
                    "reading of each claim is kept as 'verified'")
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    judge = LocalJudge()
    verifier = V.Verifier(Path(args.verifier_dir), 2) if args.verifier_dir else None
    for source in args.sources.split(","):
        path = out / f"{source}.npz"
        if path.exists():
            print(f"[{source}] kept: {path}", flush=True)
            continue
        t0 = time.time()
        records = records_of(source, args.per_source, args.seed)
        data = collect(source, records, judge, verifier)
        tmp = path.with_suffix(".tmp.npz")
        np.savez_compressed(tmp, **data)
        tmp.replace(path)
        print(f"[{source}] {len(records)} records, {len(data['record'])} claims, {time.time() - t0:.0f}s", flush=True)


if __name__ == "__main__":
    main()
