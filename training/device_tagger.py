"""Train the tagger's GPU stages in one call of a lent GPU machine (the ``device`` tool), and bring the results back.

Run from the repository root (its ``.cache/`` and its working tree are what this reads and writes). The tagger's
``train`` and ``oof`` stages (``python3 -m training.train_local_tagger``) take about 50 hours on this machine's
2 CPU threads and about 7 minutes on one H200. A GPU is lent to some tasks only, for 15 minutes of device time in
all, and one call may carry at most 64 MiB of working tree and bring back at most 8 files of 16 MiB each. This
script fits the stages into those limits:

1. ``pack`` (here, CPU): copies the stages' inputs into ``.cache/device`` (ignored by git, so it travels only when a
   call carries it): the base model as fp16 (45 MB, as the shipped tagger was trained) and the encodings made by
   ``train_local_tagger --stage prepare``. It then adds up what the call would carry. The tracked files hold the
   shipped tagger (23 MB), which the stages do not read; when the total is over the limit, ``--empty-tagger``
   empties that file in the working tree (``unpack`` restores it with ``git checkout``).
2. ``run`` (on the GPU machine, one call; the machine starts bare, so ``PYTHONPATH=src`` makes this package
   importable there without installing rt4chart, which these stages do not read)::

       run(command="PYTHONPATH=src python3 -m training.device_tagger run --out $OUT",
           carry=[".cache/device"], timeout_s=600)

   runs ``oof`` (the three out-of-fold fine-tunings, about 4.5 minutes), then ``train`` (the shipped fine-tuning,
   about 2 minutes), each writing its results into ``--out`` as soon as it ends: the out-of-fold probabilities, the
   trained weights in pieces of at most 15 MiB, the training history, a manifest with each whole file's sha256,
   and the log. ``--stages oof`` runs one stage.
3. ``unpack DIR`` (here): joins the pieces, checks them against the manifest, writes the files into
   ``.cache/local_tagger`` (where ``train_local_tagger`` and ``train_local_judge --semantic`` look), and
   restores an emptied tagger file. Then, on CPU::

       python3 -m training.train_local_tagger --stage export --out-dir DIR   # a copy of the models folder
       python3 -m training.train_local_judge --semantic --out-dir DIR

Every stage also runs on CPU (``run --device cpu --limit 32 --epochs 1`` is a smoke test of the whole path).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

from .tagger_data import ENC_VERSION

#: paths in the repository root, the current directory
DEVICE_DIR = Path(".cache") / "device"
TAGGER_CACHE = Path(".cache") / "local_tagger"
WORK_DIR = Path(".cache") / "device-work"
SHIPPED_TAGGER = Path("src/rt4chart/judges/models/local_tagger.onnx")
CARRY_LIMIT = 64 * 2**20  # what one device call may carry: tracked and untracked files, and the carried paths
PIECE = 15 * 2**20  # a returned file may be 16 MiB
MANIFEST = "manifest.json"


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()  # the largest file is the 45 MB of weights


def split_file(path: Path, out_dir: Path, piece: int = PIECE) -> list[str]:
    """Copy ``path`` into ``out_dir`` whole when it fits in one piece, else as ``NAME.00``, ``NAME.01``, ...;
    returns the names written."""
    size = path.stat().st_size
    if size <= piece:
        shutil.copyfile(path, out_dir / path.name)
        return [path.name]
    names = []
    with path.open("rb") as f:
        for k in range((size + piece - 1) // piece):
            name = f"{path.name}.{k:02d}"
            (out_dir / name).write_bytes(f.read(piece))
            names.append(name)
    return names


def add_to_manifest(out_dir: Path, path: Path, pieces: list[str]) -> None:
    """Record ``path``'s pieces and its sha256 in ``out_dir``'s manifest (rewritten whole, so a call cut short
    leaves a manifest of the files that did arrive)."""
    manifest = out_dir / MANIFEST
    entries = json.loads(manifest.read_text()) if manifest.exists() else {}
    entries[path.name] = {"pieces": pieces, "sha256": sha256(path), "bytes": path.stat().st_size}
    manifest.write_text(json.dumps(entries, indent=1))


def join_files(src: Path, dest: Path) -> list[Path]:
    """Join the pieces listed in ``src``'s manifest into ``dest``, checking each file's size and sha256; a missing
    piece or a mismatch is a ``SystemExit`` naming the file (nothing half-written is left under its name)."""
    manifest = src / MANIFEST
    if not manifest.exists():
        raise SystemExit(f"no {MANIFEST} in {src}: the run wrote no result (read its log)")
    dest.mkdir(parents=True, exist_ok=True)
    written = []
    for name, entry in json.loads(manifest.read_text()).items():
        missing = [p for p in entry["pieces"] if not (src / p).exists()]
        if missing:
            raise SystemExit(f"{name}: piece(s) {', '.join(missing)} missing in {src}")
        tmp = dest / (name + ".part")
        with tmp.open("wb") as out:
            for p in entry["pieces"]:
                out.write((src / p).read_bytes())
        if tmp.stat().st_size != entry["bytes"] or sha256(tmp) != entry["sha256"]:
            tmp.unlink()
            raise SystemExit(f"{name}: joined file does not match the manifest's size and sha256")
        tmp.replace(dest / name)
        written.append(dest / name)
    return written


def carried_bytes(extra: Path) -> int:
    """What a device call would carry: the working tree's tracked and untracked-not-ignored files (under the current
    directory, the repository root), plus ``extra``."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            check=True, capture_output=True).stdout.decode().split("\0")
    total = sum(Path(p).stat().st_size for p in listed if p and Path(p).is_file())
    return total + sum(f.stat().st_size for f in extra.rglob("*") if f.is_file())


def pack(args) -> None:
    from .tagger_model import base_model_dir

    enc = Path(args.cache_dir) / f"enc-v{ENC_VERSION}-{args.seed}-{args.max_len}.npz"
    if not enc.exists():
        raise SystemExit(f"{enc} is missing: run `python3 -m training.train_local_tagger --stage prepare` "
                         "first (CPU, a few minutes)")
    out = Path(args.to)
    base = out / "minilm-fp16"
    base.mkdir(parents=True, exist_ok=True)
    if not (base / "model.safetensors").exists():
        import torch
        from safetensors.torch import load_file, save_file

        src = base_model_dir()
        weights = load_file(str(src / "model.safetensors"))
        save_file({k: (v.to(torch.float16) if v.is_floating_point() else v).contiguous() for k, v in weights.items()},
                  str(base / "model.safetensors"))
        shutil.copyfile(src / "config.json", base / "config.json")
    shutil.copyfile(enc, out / enc.name)
    total = carried_bytes(out)
    print(f"[pack] {out}: base model {(base / 'model.safetensors').stat().st_size / 1e6:.1f} MB, encodings "
          f"{enc.stat().st_size / 1e6:.1f} MB; a call carrying it sends {total / 2**20:.1f} MiB "
          f"(limit {CARRY_LIMIT / 2**20:.0f})")
    tagger = SHIPPED_TAGGER
    if total > CARRY_LIMIT:
        if not args.empty_tagger:
            raise SystemExit(f"over the limit: add --empty-tagger to empty {SHIPPED_TAGGER} "
                             f"({tagger.stat().st_size / 2**20:.1f} MiB, not read by the GPU stages) for the call; "
                             "`unpack` restores it")
        tagger.write_bytes(b"")
        total = carried_bytes(out)
        print(f"[pack] emptied {SHIPPED_TAGGER} for the call (restore: unpack, or git checkout -- {SHIPPED_TAGGER});"
              f" the call now sends {total / 2**20:.1f} MiB", flush=True)
        if total > CARRY_LIMIT:
            raise SystemExit("still over the limit: move other untracked files out of the working tree")
    rel = out.resolve().relative_to(Path.cwd()) if out.resolve().is_relative_to(Path.cwd()) else out
    print('[pack] next: run(command="PYTHONPATH=src python3 -m training.device_tagger run --out $OUT", '
          f'carry=["{rel}"], timeout_s=600)')


def run(args) -> None:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    src, work = Path(args.from_dir), Path(args.work_dir)
    enc = f"enc-v{ENC_VERSION}-{args.seed}-{args.max_len}.npz"
    if not (src / enc).exists():
        raise SystemExit(f"{src / enc} is missing: run `python3 -m training.device_tagger pack` here, and "
                         "carry its folder into the call")
    work.mkdir(parents=True, exist_ok=True)  # the stages write here, not into the carried folder
    shutil.copyfile(src / enc, work / enc)
    log = (out / "log.txt").open("a")

    def say(line: str) -> None:
        print(line, flush=True)
        log.write(line + "\n")
        log.flush()

    common = ["--seed", str(args.seed), "--max-len", str(args.max_len), "--cache-dir", str(work),
              "--base-model", str(src / "minilm-fp16"), "--device", args.device, "--epochs", str(args.epochs),
              "--log-every", "250"]
    if args.limit:
        common += ["--limit", str(args.limit)]
    try:
        import torch

        say(f"[run] torch {torch.__version__}, cuda {torch.cuda.is_available()}"
            + (f" ({torch.cuda.get_device_name(0)})" if torch.cuda.is_available() else ""))
    except ImportError:
        say("[run] torch is not installed here")
    results = {"oof": [f"oof-{args.seed}.npz"],
               "train": [f"tagger-{args.seed}.safetensors", f"tagger-{args.seed}.json"]}
    for stage in args.stages.split(","):
        if stage not in results:
            raise SystemExit(f"--stages: unknown stage {stage!r} (oof, train)")
        t0 = time.time()
        cmd = [sys.executable, "-u", "-m", "training.train_local_tagger", "--stage", stage] + common
        say(f"[run] {' '.join(cmd)}")
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        for line in proc.stdout:
            say(line.rstrip())
        if proc.wait() != 0:
            raise SystemExit(f"[run] stage {stage} failed (exit {proc.returncode}); its output is in {out / 'log.txt'}")
        for name in results[stage]:
            path = work / name
            add_to_manifest(out, path, split_file(path, out))
        say(f"[run] stage {stage}: {time.time() - t0:.0f}s, wrote {', '.join(results[stage])} to {out}")


def unpack(args) -> None:
    for path in join_files(Path(args.dir), Path(args.cache_dir)):
        print(f"[unpack] {path} ({path.stat().st_size / 1e6:.1f} MB, sha256 {sha256(path)[:12]})")
    tagger = SHIPPED_TAGGER
    if tagger.exists() and tagger.stat().st_size == 0:
        subprocess.run(["git", "checkout", "--", str(SHIPPED_TAGGER)], check=True)
        print(f"[unpack] restored {SHIPPED_TAGGER} ({tagger.stat().st_size / 2**20:.1f} MiB)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("pack", help="here: copy the GPU stages' inputs into .cache/device")
    p.add_argument("--cache-dir", default=str(TAGGER_CACHE), help="where the prepare stage wrote the encodings")
    p.add_argument("--to", default=str(DEVICE_DIR))
    p.add_argument("--empty-tagger", action="store_true",
                   help=f"empty {SHIPPED_TAGGER} in the working tree when the call would be over 64 MiB")
    p = sub.add_parser("run", help="on the GPU machine: the oof and train stages, results into --out")
    p.add_argument("--out", required=True, help="the folder whose files come back ($OUT)")
    p.add_argument("--from-dir", default=str(DEVICE_DIR), help="what pack wrote")
    p.add_argument("--work-dir", default=str(WORK_DIR), help="where the stages write")
    p.add_argument("--stages", default="oof,train", help="comma-separated, in order (default oof,train)")
    p.add_argument("--device", default="cuda")
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--limit", type=int, default=0, help="train on this many answers only (a smoke test)")
    p = sub.add_parser("unpack", help="here: join and check what run brought back")
    p.add_argument("dir", help="the folder the files came back to")
    p.add_argument("--cache-dir", default=str(TAGGER_CACHE))
    for p in (sub.choices["pack"], sub.choices["run"]):
        p.add_argument("--seed", type=int, default=13)
        p.add_argument("--max-len", type=int, default=512)
    args = ap.parse_args()
    {"pack": pack, "run": run, "unpack": unpack}[args.command](args)


if __name__ == "__main__":
    main()
