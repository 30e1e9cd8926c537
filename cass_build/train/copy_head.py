"""Give a shipped model a copying head, trained on the CPU with everything else frozen.

``python -m cass_build.train.copy_head MODEL_DIR DATA_DIR OUT_DIR --seed 0 --steps N``

v8 fails on unseen code by not copying: a name it never saw (``hist_match_any``) comes
out as pieces of the synthesizer's names (``hist_ keys_kernel``). This adds to the
model in ``MODEL_DIR`` the pointer of ``Seq2Seq`` (``Config.copy``): a query over the
last decoder layer's cross-attention keys, and a gate between that distribution over
the source's tokens and the vocabulary's. Only those 66k parameters are trained; the
encoder (``encoder.onnx``, int8) and the decoder's weights are the shipped ones, read
back from the ONNX files, so where the gate trusts the vocabulary the model is the old
one. Training units from ``DATA_DIR`` (``cass_build.train data``) have some of their
own names replaced, the same way in source and target, by made-up ones (``rename``):
the head learns to copy what the vocabulary cannot spell.

``OUT_DIR`` gets the model's files: the same encoder and tokenizer, the new decoder, and
``config.json`` with ``copy: true``; ``copy_head.json`` beside it logs the run.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch.nn import functional as F

from .._files import write_atomic
from .export import export_decoder
from .fit import pad_pairs
from .rename import rename
from .seq2seq import Config, Seq2Seq

__all__ = ["load_decoder", "main"]

PAD = 0


def load_decoder(model_dir: Path) -> Seq2Seq:
    """A copying ``Seq2Seq`` holding the decoder weights of ``model_dir``'s ONNX files
    (its encoder stays the ONNX one: the torch encoder here is unused)."""
    import onnx
    from onnx import numpy_helper

    doc = json.loads((model_dir / "config.json").read_text())
    fields = Config.__dataclass_fields__
    cfg = Config(**{k: v for k, v in doc.items() if k in fields and k != "copy"}, copy=True)
    model = Seq2Seq(cfg)
    graph = onnx.load(str(model_dir / "decoder.onnx")).graph
    weights = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    users: dict[str, list[Any]] = {}
    for node in graph.node:
        for name in node.input:
            users.setdefault(name, []).append(node)
    state: dict[str, torch.Tensor] = {}
    for name, value in weights.items():
        if name.startswith("model."):
            state[name.removeprefix("model.")] = torch.from_numpy(value.copy())
    # The linear layers' weights are anonymous MatMul constants: each one's Add names its
    # bias, and so its layer (the vocabulary projection is the tied embedding).
    for node in graph.node:
        if node.op_type != "MatMul" or node.input[1] not in weights:
            continue
        for user in users.get(node.output[0], []):
            bias = [x for x in user.input if x.startswith("model.") and x.endswith(".bias")]
            if user.op_type == "Add" and bias:
                layer = bias[0].removeprefix("model.").removesuffix(".bias")
                state[f"{layer}.weight"] = torch.from_numpy(weights[node.input[1]].T.copy())
    own = model.state_dict()
    # The cross-attention keys and values are the encoder graph's output.
    decoder_keys = [
        k for k in own if not k.startswith(("encoder.", "enc_", "copy_")) and ".cross.kv." not in k
    ]
    missing = [k for k in decoder_keys if k not in state]
    if missing:
        msg = f"{model_dir}/decoder.onnx: no weights found for {', '.join(missing[:5])}"
        raise ValueError(msg)
    model.load_state_dict({**own, **{k: state[k] for k in decoder_keys}})
    with torch.no_grad():  # start by trusting the vocabulary: the old model's behaviour
        model.copy_gate.bias.fill_(3.0)
    return model


class _Units:
    """Training pairs as ids of the model's tokenizer, renamed afresh at every draw."""

    def __init__(self, data: Path, model_dir: Path, max_len: int, share: float) -> None:
        from tokenizers import Tokenizer

        self.tok = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        with gzip.open(data / "train.jsonl.gz", "rt", encoding="utf-8") as f:
            self.rows = [json.loads(line) for line in f]
        self.max_len = max_len
        self.share = share

    def draw(self, rng: random.Random) -> tuple[list[int], list[int]]:
        while True:
            row = self.rows[rng.randrange(len(self.rows))]
            cuda, hip = row["cuda"], row["hip"]
            if rng.random() < self.share:
                cuda, hip = rename(cuda, hip, rng)
            src = self.tok.encode(cuda).ids
            tgt = self.tok.encode(hip).ids
            if len(src) <= self.max_len and len(tgt) < self.max_len - 1:
                return src, tgt


def _batch(
    units: _Units, encoder: Any, rng: random.Random, budget: int
) -> tuple[torch.Tensor, ...]:
    pairs: list[tuple[list[int], list[int]]] = []
    longest = 0
    while True:
        pair = units.draw(rng)
        length = max(len(pair[0]), len(pair[1]) + 1)
        if pairs and max(longest, length) * (len(pairs) + 1) > budget:
            break
        pairs.append(pair)
        longest = max(longest, length)
    src, tin, tout = pad_pairs(pairs)
    crosses = []
    for s, _ in pairs:
        cross = encoder.run(None, {"src_ids": np.array([s], dtype=np.int64)})[0]
        pad = [(0, 0)] * 4 + [(0, src.shape[1] - len(s)), (0, 0)]
        crosses.append(np.pad(cross, pad))
    cross_t = torch.from_numpy(np.concatenate(crosses, axis=2))
    src_t = torch.from_numpy(src)
    return src_t, cross_t, torch.from_numpy(tin), torch.from_numpy(tout)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m cass_build.train.copy_head")
    ap.add_argument("model", type=Path, help="the model to extend (cass_build/models)")
    ap.add_argument("data", type=Path, help="a `cass_build.train data` directory")
    ap.add_argument("out", type=Path)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--steps", type=int, default=600)
    ap.add_argument("--budget", type=int, default=4096, help="padded tokens per batch")
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--rename-share", type=float, default=0.7)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args(argv)

    import onnxruntime as ort

    random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    rng = random.Random(args.seed)
    model = load_decoder(args.model).eval()
    head = [p for n, p in model.named_parameters() if n.startswith("copy_")]
    for p in model.parameters():
        p.requires_grad_(False)
    for p in head:
        p.requires_grad_(True)
    opt = torch.optim.Adam(head, lr=args.lr)
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = args.threads
    encoder = ort.InferenceSession(str(args.model / "encoder.onnx"), opts)
    units = _Units(args.data, args.model, model.cfg.max_len, args.rename_share)
    empty = model.empty_cache(1)
    log: list[dict[str, Any]] = []
    start = time.time()
    for step in range(1, args.steps + 1):
        src, cross, tin, tout = _batch(units, encoder, rng, args.budget)
        past = empty.expand(-1, -1, src.shape[0], -1, -1, -1)
        scores, _ = model.decode(tin, past, cross, src != PAD, src)
        loss = F.cross_entropy(scores.flatten(0, 1), tout.flatten())
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step % 25 == 0 or step == args.steps:
            entry = {"step": step, "loss": round(loss.item(), 4), "s": round(time.time() - start)}
            log.append(entry)
            print(json.dumps(entry), flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, torch.no_grad():
        example = torch.from_numpy(encoder.run(None, {"src_ids": np.array([[5, 6, 7]])})[0])
        export_decoder(model, example, Path(tmp) / "decoder.onnx")
        shutil.copyfile(Path(tmp) / "decoder.onnx", args.out / "decoder.onnx")
    for name in ("encoder.onnx", "tokenizer.json"):
        shutil.copyfile(args.model / name, args.out / name)
    config = json.loads((args.model / "config.json").read_text())
    config["copy"] = True
    config["parameters"] = int(config.get("parameters", 0)) + sum(p.numel() for p in head)
    write_atomic(args.out / "config.json", (json.dumps(config, indent=2) + "\n").encode())
    summary = {
        "base": str(args.model),
        "data": str(args.data),
        "seed": args.seed,
        "steps": args.steps,
        "budget": args.budget,
        "lr": args.lr,
        "rename_share": args.rename_share,
        "seconds": round(time.time() - start, 1),
        "head_parameters": sum(p.numel() for p in head),
        "torch": torch.__version__,
        "log": log,
    }
    (args.out.parent / "copy_head.json").write_text(json.dumps(summary, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
