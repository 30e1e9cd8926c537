"""Train the translation model on one GPU from ``prepare``'s arrays.

``python -m cass_build.train.fit PREP_DIR OUT_DIR --seed 0 [--steps N | --minutes M]``

With ``--steps`` the run is fixed and reproducible (same seed, same data, same
steps; GPU kernels may still differ in the last bits). Without it the first steps
are timed and the step count is chosen to fill ``--minutes``; the count is
written to ``fit.json``, so ``--steps`` reproduces the run. Checkpoints are saved
as files (``ckpt_last.pt``) every ``--save-every`` steps and at the end, with the
optimizer, the step, the schedule's length and the batch order: ``--resume``
continues from ``OUT_DIR/ckpt_last.pt`` where a run was cut off, with the same
schedule. ``--minutes`` is a hard stop for each run (a resumed one included).
"""

from __future__ import annotations

import argparse
import io
import json
import math
import random
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch.nn import functional as F

from .._files import write_atomic
from .seq2seq import Config, Seq2Seq, count_parameters

__all__ = ["main"]

PAD, BOS, EOS = 0, 1, 2


class Split:
    def __init__(self, arrays: Any, name: str) -> None:
        self.src = arrays[f"{name}_src"]
        self.src_off = arrays[f"{name}_src_off"]
        self.tgt = arrays[f"{name}_tgt"]
        self.tgt_off = arrays[f"{name}_tgt_off"]
        self.hazard = arrays[f"{name}_hazard"]
        self.n = len(self.src_off) - 1

    def pair(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        s = self.src[self.src_off[i] : self.src_off[i + 1]]
        t = self.tgt[self.tgt_off[i] : self.tgt_off[i + 1]]
        return s, t

    def length(self, i: int) -> int:
        return int(
            max(self.src_off[i + 1] - self.src_off[i], self.tgt_off[i + 1] - self.tgt_off[i]) + 2
        )


def batches(split: Split, budget: int, rng: random.Random) -> list[list[int]]:
    """Length-bucketed batches of at most ``budget`` padded tokens, in random order."""
    order = sorted(range(split.n), key=lambda i: (split.length(i), rng.random()))
    out: list[list[int]] = []
    cur: list[int] = []
    longest = 0
    for i in order:
        length = split.length(i)
        if cur and max(longest, length) * (len(cur) + 1) > budget:
            out.append(cur)
            cur, longest = [], 0
        cur.append(i)
        longest = max(longest, length)
    if cur:
        out.append(cur)
    rng.shuffle(out)
    return out


def pad_pairs(pairs: Sequence[tuple[Any, Any]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Source ids, decoder inputs (BOS first) and targets (EOS last, -100 where padded)."""
    s_len = max(len(s) for s, _ in pairs)
    t_len = max(len(t) for _, t in pairs) + 1
    src = np.zeros((len(pairs), s_len), dtype=np.int64)
    tin = np.zeros((len(pairs), t_len), dtype=np.int64)
    tout = np.full((len(pairs), t_len), -100, dtype=np.int64)
    for row, (s, t) in enumerate(pairs):
        src[row, : len(s)] = s
        tin[row, 0] = BOS
        tin[row, 1 : len(t) + 1] = t
        tout[row, : len(t)] = t
        tout[row, len(t)] = EOS
    return src, tin, tout


def collate(split: Split, idx: list[int], device: torch.device) -> tuple[torch.Tensor, ...]:
    src, tin, tout = pad_pairs([split.pair(i) for i in idx])
    src_t = torch.from_numpy(src).to(device, non_blocking=True)
    return src_t, src_t != PAD, torch.from_numpy(tin).to(device), torch.from_numpy(tout).to(device)


@torch.no_grad()
def own_predictions(
    model: Seq2Seq,
    src: torch.Tensor,
    mask: torch.Tensor,
    tin: torch.Tensor,
    tout: torch.Tensor,
    share: float,
) -> torch.Tensor:
    """Decoder inputs with the model's own teacher-forced predictions in place of the
    target's tokens at about ``share`` of the positions: free decoding conditions on its
    own mistakes, and a model trained only on true prefixes does not learn to recover
    from them (after its first edit of unfamiliar code it loses its place)."""
    with torch.autocast(src.device.type, dtype=torch.bfloat16):
        pred = model(src, mask, tin).argmax(-1)
    mixed = tin.clone()
    pick = (torch.rand(tin[:, 1:].shape, device=tin.device) < share) & (tout[:, :-1] != -100)
    mixed[:, 1:] = torch.where(pick, pred[:, :-1], tin[:, 1:])
    return mixed


@torch.no_grad()
def greedy(model: Seq2Seq, src: np.ndarray, max_len: int, device: torch.device) -> list[int]:
    """Plain greedy decoding, one token per step (the reference the runtime must match)."""
    s = torch.from_numpy(src.astype(np.int64))[None].to(device)
    cross = model.cross_kv(model.encode(s))
    past = model.empty_cache(1, device)
    tok = torch.tensor([[BOS]], device=device)
    out: list[int] = []
    for _ in range(max_len):
        logits, past = model.decode(tok, past, cross, src=s)
        nxt = int(logits[0, -1].argmax())
        if nxt == EOS:
            break
        out.append(nxt)
        tok = torch.tensor([[nxt]], device=device)
    return out


def evaluate(model: Seq2Seq, split: Split, device: torch.device, budget: int) -> float:
    model.eval()
    total, count = 0.0, 0
    with torch.no_grad(), torch.autocast(device.type, dtype=torch.bfloat16):
        for idx in batches(split, budget, random.Random(0)):
            src, mask, tin, tout = collate(split, idx, device)
            logits = model(src, mask, tin)
            loss = F.cross_entropy(logits.float().flatten(0, 1), tout.flatten(), reduction="sum")
            total += float(loss)
            count += int((tout != -100).sum())
    model.train()
    return total / max(count, 1)


def save(model: Seq2Seq, path: Path, step: int, resume: dict[str, Any] | None = None) -> None:
    """``config``, ``step`` and ``state`` (what ``export`` reads), plus ``resume``: the
    optimizer and the loop's position, so a cut-off run can go on."""
    state = {k: v.detach().to("cpu", torch.float32) for k, v in model.state_dict().items()}
    buffer = io.BytesIO()  # a checkpoint is tens of MB: written whole, atomically
    blob: dict[str, Any] = {"config": model.cfg.to_dict(), "step": step, "state": state}
    if resume is not None:
        blob["resume"] = resume
    torch.save(blob, buffer)
    write_atomic(path, buffer.getvalue())


def _rng_state(rng: random.Random) -> list[Any]:
    version, internal, gauss = rng.getstate()
    return [version, list(internal), gauss]


def _set_rng_state(rng: random.Random, state: list[Any]) -> None:
    rng.setstate((state[0], tuple(state[1]), state[2]))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m cass_build.train.fit")
    ap.add_argument("prep", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--steps", type=int, default=None)
    ap.add_argument("--minutes", type=float, default=7.0)
    ap.add_argument("--budget", type=int, default=49152, help="padded tokens per batch")
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--save-every", type=int, default=1000)
    ap.add_argument("--d-model", type=int, default=256)
    # A deep encoder and a shallow decoder: the encoder runs once per unit on all its
    # tokens (big matrix products), the decoder once per block; see docs/model.md.
    ap.add_argument("--enc-layers", type=int, default=3)
    ap.add_argument("--dec-layers", type=int, default=2)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--ff", type=int, default=768)
    ap.add_argument(
        "--copy",
        action="store_true",
        help="let the decoder copy source tokens (a pointer over the source; docs/model.md)",
    )
    ap.add_argument(
        "--sample",
        type=float,
        default=0.0,
        help="feed the decoder its own predictions at up to this share of positions "
        "(scheduled sampling, ramped in from step 1,000 to 3,000)",
    )
    ap.add_argument(
        "--resume", action="store_true", help="go on from OUT/ckpt_last.pt when it exists"
    )
    args = ap.parse_args(argv)

    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    torch.backends.cuda.matmul.allow_tf32 = True
    arrays = np.load(args.prep / "tokens.npz")
    prep = json.loads((args.prep / "prepare.json").read_text())
    train, valid = Split(arrays, "train"), Split(arrays, "valid")
    cfg = Config(
        vocab=prep["vocab"],
        d_model=args.d_model,
        heads=args.heads,
        enc_layers=args.enc_layers,
        dec_layers=args.dec_layers,
        ff=args.ff,
        max_len=prep["max_len"],
        copy=args.copy,
    )
    model = Seq2Seq(cfg).to(device)
    decay = [p for n, p in model.named_parameters() if p.dim() >= 2]
    rest = [p for n, p in model.named_parameters() if p.dim() < 2]
    opt = torch.optim.AdamW(
        [{"params": decay, "weight_decay": 0.01}, {"params": rest, "weight_decay": 0.0}],
        lr=args.lr,
        betas=(0.9, 0.98),
    )
    args.out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(args.seed)
    epoch_batches: list[list[int]] = []
    steps = args.steps
    warmup = 200
    log: list[dict[str, Any]] = []
    start = time.time()
    step = 0
    calibrate = 60
    calib_start = start
    cap = args.minutes * 60
    ckpt = args.out / "ckpt_last.pt"
    resumed_from = 0
    if args.resume and ckpt.is_file():
        blob = torch.load(ckpt, map_location="cpu", weights_only=True)
        if "resume" in blob:
            model.load_state_dict(blob["state"])
            opt.load_state_dict(blob["resume"]["opt"])
            step = resumed_from = int(blob["step"])
            steps = blob["resume"]["steps"]
            epoch_batches = [list(b) for b in blob["resume"]["batches"]]
            log = list(blob["resume"]["log"])
            _set_rng_state(rng, blob["resume"]["rng"])
            print(f"resumed from {ckpt} at step {step} of {steps}", flush=True)

    def resume_state() -> dict[str, Any]:
        return {
            "opt": opt.state_dict(),
            "steps": steps,
            "batches": epoch_batches,
            "log": log,
            "rng": _rng_state(rng),
        }

    while steps is None or step < steps:
        if time.time() - start > cap:
            # A hard stop: a slower GPU ends the run early rather than overrunning a lease
            # (the last checkpoint lets --resume finish it).
            print(f"time cap reached at step {step} of {steps}", flush=True)
            break
        if not epoch_batches:
            epoch_batches = batches(train, args.budget, rng)
        idx = epoch_batches.pop()
        src, mask, tin, tout = collate(train, idx, device)
        total = steps or 10**9
        lr = args.lr * min(1.0, (step + 1) / warmup)
        if step >= warmup:
            frac = min(1.0, (step - warmup) / max(1, total - warmup))
            lr = args.lr * (0.05 + 0.95 * 0.5 * (1 + math.cos(math.pi * frac)))
        for g in opt.param_groups:
            g["lr"] = lr
        share = args.sample * min(1.0, max(0.0, (step - 1000) / 2000))
        if share > 0:
            tin = own_predictions(model, src, mask, tin, tout, share)
        with torch.autocast(device.type, dtype=torch.bfloat16):
            logits = model(src, mask, tin)
        loss = F.cross_entropy(logits.float().flatten(0, 1), tout.flatten())
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        step += 1
        if steps is None and step == calibrate // 3 and device.type == "cuda":
            torch.cuda.synchronize()
            calib_start = time.time()
        if steps is None and step == calibrate:
            if device.type == "cuda":
                torch.cuda.synchronize()
            # The first steps include CUDA's start-up and kernel selection: time the rest.
            per_step = (time.time() - calib_start) / (calibrate - calibrate // 3)
            # 97% of the time left: the schedule ends before the hard stop at --minutes.
            left = cap - (time.time() - start)
            steps = max(calibrate + 1, int(0.97 * left / per_step) + step)
            print(f"calibrated: {per_step * 1000:.1f} ms/step -> {steps} steps", flush=True)
        if step % 100 == 0:
            entry = {"step": step, "loss": loss.item(), "lr": lr, "s": time.time() - start}
            log.append(entry)
            print(json.dumps(entry), flush=True)
        if step % args.save_every == 0:
            save(model, ckpt, step, resume_state())
    elapsed = time.time() - start
    save(model, ckpt, step, resume_state())
    valid_loss = evaluate(model, valid, device, args.budget)
    summary = {
        "seed": args.seed,
        "steps": step,
        "steps_planned": steps,
        "resumed_from_step": resumed_from,
        "train_seconds": round(elapsed, 1),
        "parameters": count_parameters(model),
        "config": cfg.to_dict(),
        "budget": args.budget,
        "lr": args.lr,
        "valid_loss": valid_loss,
        "train_units": train.n,
        "device": torch.cuda.get_device_name() if device.type == "cuda" else "cpu",
        "torch": torch.__version__,
        "log": log,
    }
    (args.out / "fit.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(json.dumps({k: v for k, v in summary.items() if k != "log"}), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
