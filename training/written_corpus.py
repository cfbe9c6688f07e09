"""The written corpus (``training/data/written/``): assistant answers written for the claim verifier, each
sentence labelled by its writer and again, blind, by a second reader; only the items both read alike are kept::

    python3 -m training.written_corpus merge WRITER.jsonl READER.jsonl --part NAME   # -> data/written/NAME.jsonl.gz
    python3 -m training.written_corpus table [--write]                              # the README's tables
    python3 -m training.written_corpus pairs [--out runs/written-pairs.jsonl] [--repeat 4]
    python3 -m training.written_corpus score ROWS_DIR ...   # the verifier alone on training.world_rows' rows
    python3 -m training.written_corpus judge [--split selection] [--model-dir DIR] [--judge local]  # the judge

An item: ``{"id", "group", "domain", "context_shape", "context" (a string or a list of passages), "question",
"answer", "kind", "language", "sentences": [{"text", "label", "kind", "evidence", "citation"?}]}``, a sentence's
label ``entailed`` / ``contradicted`` / ``baseless``, or ``none`` for one that states nothing ("Hope that helps!").
``merge`` keeps an item when the reader gave every sentence the writer's label and writes the part's agreement by
kind (written, kept) into ``agreement.json``. Each item belongs to one split by its domain (``split_of``): the
domains of ``HELD_OUT`` never train, they select; a fifth of the others (``calibration``) never train the verifier,
so that the judge's calibrator reads its out-of-sample output on them (``training.world_rows``'s ``written``
source); the rest (``train``) trains the verifier.

``pairs`` turns the kept items of the other domains into the verifier's (premise, claim, label) rows as the judge
reads a claim (``rt4chart.judges.local.verifier.windows``): the claim is the sentence as the rule decomposer reads it
(markers, markdown and an answer particle dropped); its premises are the windows the local judge would read it
against. An entailed or contradicted claim is paired with the windows that hold all its evidence sentences (and
with its evidence sentences themselves when no window does; a short context without quotes is its own evidence);
a baseless claim with every window (neutral).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import random
from collections import Counter, defaultdict
from pathlib import Path
from typing import Iterable, Iterator

DATA = Path(__file__).parent / "data" / "written"
LABELS = ("entailed", "contradicted", "baseless", "none")
#: the verifier's label of each claim label
NLI = {"entailed": "entailment", "contradicted": "contradiction", "baseless": "neutral"}
#: one domain of each writer's, kept out of training to select on
HELD_OUT = frozenset({"credit cards", "car rental", "video games", "public libraries", "biographies",
                      "postal and courier services", "theatre and cinema", "archaeology", "passports and ID documents",
                      "photography equipment", "professional certification exams", "inventions", "sleep clinics",
                      "tennis tournaments", "browser compatibility notes", "planning applications", "cyber insurance",
                      "home broadband installation", "marine biology"})


def split_of(item: dict) -> str:
    """``selection``, ``calibration`` or ``train``, by the item's domain."""
    domain = item["domain"]
    if domain in HELD_OUT:
        return "selection"
    return "calibration" if int(hashlib.sha256(domain.encode()).hexdigest(), 16) % 5 == 0 else "train"


def read_items(path: "str | Path") -> Iterator[dict]:
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        for line in f:
            if line.strip():
                yield json.loads(line)


def corpus(folder: Path = DATA) -> list[dict]:
    """Every kept item of the corpus, part by part in name order."""
    return [it for part in sorted(folder.glob("*.jsonl.gz")) for it in read_items(part)]


def answer_label(item: dict) -> str:
    """The AND-join of the sentence labels (``none`` sentences aside)."""
    labels = {s["label"] for s in item["sentences"]}
    return next((lab for lab in ("contradicted", "baseless") if lab in labels), "entailed")


def merge(writer: str, reader: str, part: str, folder: Path = DATA) -> dict:
    """Keep the items whose sentences the reader labelled as the writer did; write them and the part's agreement."""
    read = {it["id"]: it for it in read_items(reader)}
    kept, by_kind = [], defaultdict(lambda: [0, 0])
    for it in read_items(writer):
        other = read.get(it["id"])
        same = other is not None and [s["label"] for s in other["sentences"]] == [s["label"] for s in it["sentences"]]
        by_kind[it["kind"]][0] += 1
        if same:
            by_kind[it["kind"]][1] += 1
            kept.append(it)
    folder.mkdir(parents=True, exist_ok=True)
    with gzip.GzipFile(folder / f"{part}.jsonl.gz", "wb", mtime=0) as f:
        f.write("".join(json.dumps(it, ensure_ascii=False, sort_keys=True) + "\n" for it in kept).encode())
    path = folder / "agreement.json"
    agreement = json.loads(path.read_text()) if path.exists() else {}
    agreement[part] = {k: {"written": w, "kept": n} for k, (w, n) in sorted(by_kind.items())}
    path.write_text(json.dumps(dict(sorted(agreement.items())), indent=1) + "\n")
    return {"written": sum(w for w, _ in by_kind.values()), "kept": len(kept)}


def counts(items: Iterable[dict]) -> dict[str, Counter]:
    """Items by kind, domain, context shape, answer label and split, and sentences by label."""
    out: dict[str, Counter] = defaultdict(Counter)
    for it in items:
        out["kind"][it["kind"]] += 1
        out["domain"][it["domain"]] += 1
        out["shape"][it["context_shape"]] += 1
        out["answer"][answer_label(it)] += 1
        out["split"][split_of(it)] += 1
        out["sentence"].update(s["label"] for s in it["sentences"])
    return out


def table(folder: Path = DATA) -> str:
    """The README's tables: the agreement by kind, then the kept items by shape, answer label, split and domain."""
    agreement = json.loads((folder / "agreement.json").read_text())
    kinds: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for part in agreement.values():
        for kind, row in part.items():
            kinds[kind][0] += row["written"]
            kinds[kind][1] += row["kept"]
    c = counts(corpus(folder))
    lines = ["| kind | written | kept | agreement |", "|---|---|---|---|"]
    for kind, (w, n) in sorted(kinds.items(), key=lambda kv: -kv[1][0]):
        lines.append(f"| {kind} | {w} | {n} | {n / w:.0%} |")
    w, n = sum(v[0] for v in kinds.values()), sum(v[1] for v in kinds.values())
    lines += [f"| **all** | **{w}** | **{n}** | **{n / w:.0%}** |", ""]
    for key in ("shape", "answer", "split", "sentence"):
        lines += [f"| {key} | items |" if key != "sentence" else "| sentence label | sentences |", "|---|---|"]
        lines += [f"| {k} | {v} |" for k, v in sorted(c[key].items())] + [""]
    lines += ["| domain | items |", "|---|---|"]
    split = {it["domain"]: split_of(it) for it in corpus(folder)}
    lines += [f"| {k}{'' if split[k] == 'train' else f' ({split[k]})'} | {v} |" for k, v in sorted(c["domain"].items())]
    return "\n".join(lines) + "\n"


START, END = "<!-- table: python3 -m training.written_corpus table -->\n", "<!-- end table -->"


def readme_table(folder: Path = DATA) -> str:
    """The tables as the README holds them (between its markers)."""
    text = (folder / "README.md").read_text(encoding="utf-8")
    return text[text.index(START) + len(START):text.index(END)]


def write_readme(folder: Path = DATA) -> None:
    text = (folder / "README.md").read_text(encoding="utf-8")
    head, tail = text[:text.index(START) + len(START)], text[text.index(END):]
    (folder / "README.md").write_text(head + table(folder) + tail, encoding="utf-8")


def _evidence_ids(texts: list[str], quotes: list[str]) -> set[int]:
    """The sentences (numbers into ``texts``) that hold some of the quotes."""
    from rapidfuzz import fuzz

    out = set()
    for q in quotes:
        q = q.strip()
        for i, t in enumerate(texts):
            t = t.strip()
            if q and t and (q in t or t in q or (len(q) > 20 and fuzz.partial_ratio(q, t) >= 92)):
                out.add(i)
    return out


def item_pairs(item: dict, judge, removed: bool = False) -> Iterator[dict]:
    """The verifier rows of one item: each labelled sentence against the windows the judge reads it against; with
    ``removed``, an entailed sentence with one evidence sentence also against the sentences around its evidence,
    the evidence taken out (neutral: MiniCheck's and FactCG's construction)."""
    from rt4chart.audit.decompose import RuleDecomposer
    from rt4chart.io import join_context
    from rt4chart.judges.local import verifier as V
    from rt4chart.types import Claim, Span

    context = join_context(item["context"]) if isinstance(item["context"], list) else item["context"]
    question = item.get("question") or None
    texts = list(judge.evidence(context).index.texts)
    rows = []
    for s in item["sentences"]:
        if s["label"] not in NLI:
            continue
        parts = RuleDecomposer(split_clauses=False).decompose_sync(s["text"], question)
        claim = " ".join(c.text for c in parts).strip()
        if claim:
            rows.append((claim, s))
    if not rows:
        return
    claims = [Claim(index=i, text=c, sentence_index=i, answer_spans=(Span(start=0, end=1),))
              for i, (c, _) in enumerate(rows)]
    orders = judge.nearest(claims, context, question)
    for (claim, s), order in zip(rows, orders):
        windows = V.windows(texts, order)
        label = NLI[s["label"]]
        if s["label"] == "baseless":
            premises = [w for w in windows]
        else:
            need = _evidence_ids(texts, s.get("evidence", []))
            if not need:  # no quotes (the seed's pairs): a short context is its own evidence
                if sum(len(t) + 1 for t in texts) > V.WHOLE_TEXT:
                    continue
                need = set(range(len(texts)))
            premises = [w for w in windows if need <= set(w)]
            if not premises:
                first = min(need)
                premises = [tuple(sorted(need | ({first - 1} if first > 0 else set())))]
        for w in premises:
            yield {"premise": " ".join(texts[i] for i in w), "hypothesis": claim, "label": label,
                   "source": "written", "id": item["id"], "kind": s.get("kind", item["kind"])}
        if removed and s["label"] == "entailed" and len(texts) >= 3 and len(need) == 1:
            # the claim against its evidence window with the evidence sentence taken out: nothing supports it
            (at,) = need
            around = [i for i in (at - 2, at - 1, at + 1) if 0 <= i < len(texts)]
            yield {"premise": " ".join(texts[i] for i in around), "hypothesis": claim, "label": "neutral",
                   "source": "written-removed", "id": item["id"], "kind": "evidence_removed"}


def pairs(items: Iterable[dict], removed: bool = False) -> list[dict]:
    from rt4chart.judges.local import LocalJudge

    judge = LocalJudge()
    return [row for it in items for row in item_pairs(it, judge, removed)]


def score(rows_dir: str) -> dict[str, dict[str, float]]:
    """The claim verifier read alone (1 - P(entailment) over its windows, as the judge reads it) on the written
    sources' rows of ``training.world_rows --verifier-dir``: AUROC per claim (its sentence hallucinated or not) and
    per answer (its riskiest claim)."""
    import numpy as np

    from rt4chart.eval.metrics import auroc

    out = {}
    for source in ("written", "written-selection"):
        path = Path(rows_dir) / f"{source}.npz"
        if not path.exists():
            continue
        d = np.load(path)
        risk = 1.0 - d["verified"][:, 0]
        rec = d["record"]
        answers = np.unique(rec)
        out[source] = {"claims": round(auroc(d["claim_y"], risk), 4),
                       "answers": round(auroc(np.array([d["y"][rec == r][0] for r in answers]),
                                              np.array([risk[rec == r].max() for r in answers])), 4),
                       "n_claims": int(len(risk)), "n_answers": int(len(answers))}
    return out


def judge_split(split: str, judge: str = "local", model_dir: "str | None" = None) -> dict:
    """The judge on a split's items, each audited alone: answer labels right, faithful answers kept, sentences'
    labels right where the judge's claims lie in one sentence each."""
    import asyncio

    from rt4chart.judges.registry import auditor_for

    items = [it for it in corpus() if split_of(it) == split]
    auditor = auditor_for(judge, concurrency=1, **({"model_dir": model_dir} if model_dir else {}))

    async def run() -> list[dict]:
        return [(await auditor.audit({"id": it["id"], "context": it["context"], "question": it.get("question") or None,
                                      "answer": it["answer"]})).to_json() for it in items]

    results = asyncio.run(run())
    right = sum(r["label"] == answer_label(it) for r, it in zip(results, items))
    faithful = [r for r, it in zip(results, items) if answer_label(it) == "entailed"]
    by_label = Counter((answer_label(it), r["label"]) for r, it in zip(results, items))
    return {"items": len(items), "right": right, "exact": round(right / len(items), 4),
            "faithful": len(faithful), "faithful_kept": sum(r["label"] == "entailed" for r in faithful),
            "confusion": {f"{a}->{b}": n for (a, b), n in sorted(by_label.items())}}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("merge")
    m.add_argument("writer")
    m.add_argument("reader")
    m.add_argument("--part", required=True)
    t = sub.add_parser("table")
    t.add_argument("--write", action="store_true", help="write them into the README")
    p = sub.add_parser("pairs")
    p.add_argument("--out", default="runs/written-pairs.jsonl")
    p.add_argument("--repeat", type=int, default=1, help="write each training row this many times")
    p.add_argument("--split", choices=("train", "calibration", "selection"), default="train")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--removed", action="store_true",
                   help="also pair each entailed sentence with its evidence window, the evidence taken out (neutral)")
    j = sub.add_parser("judge")
    j.add_argument("--split", choices=("train", "calibration", "selection"), default="selection")
    j.add_argument("--judge", default="local")
    j.add_argument("--model-dir", default=None)
    s = sub.add_parser("score")
    s.add_argument("rows", nargs="+", help="folders of training.world_rows --sources written,written-selection")
    args = ap.parse_args(argv)
    if args.cmd == "merge":
        print(merge(args.writer, args.reader, args.part))
    elif args.cmd == "judge":
        print(json.dumps(judge_split(args.split, args.judge, args.model_dir)))
    elif args.cmd == "score":
        for rows in args.rows:
            print(rows, json.dumps(score(rows)))
    elif args.cmd == "table":
        write_readme() if args.write else print(table(), end="")
    else:
        items = [it for it in corpus() if split_of(it) == args.split]
        rows = pairs(items, args.removed)
        out = rows * args.repeat
        random.Random(args.seed).shuffle(out)
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        with open(args.out, "w", encoding="utf-8") as f:
            f.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in out)
        print(f"{len(rows)} rows from {len(items)} items ({Counter(r['label'] for r in rows)}) x{args.repeat} "
              f"-> {args.out}")


if __name__ == "__main__":
    main()
