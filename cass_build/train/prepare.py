"""Tokenize a data build into arrays the GPU machine trains from.

``python -m cass_build.train.prepare DATA_DIR OUT_DIR [--vocab 4096]`` trains the
tokenizer on the training split, then writes ``tokens.npz`` (each split's source
and target ids, concatenated, with offsets) and ``tokenizer.json``. The GPU
machine then needs only torch and numpy: no tokenizer, no C++ core.

``--renamed N`` adds N copies of each training pair with some of its own names replaced
by made-up ones, alike on both sides (``rename``): a model whose training names all
come from the synthesizer's pools learns to write those pools instead of copying a
source's names. The tokenizer is trained before, on the pairs as they are.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from ..model.placeholders import Keep, abstract, placeholder
from .rename import rename
from .tokens import train_tokenizer

__all__ = ["main", "read_split"]

SPLITS = ("train", "valid", "test")


def read_split(data_dir: Path, split: str) -> Iterator[dict[str, Any]]:
    with gzip.open(data_dir / f"{split}.jsonl.gz", "rt", encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                yield json.loads(line)


def freeze_keep(out: Path) -> Keep:
    """Write the names a placeholder model keeps as they are: ``placeholder_words.json``'s
    and every identifier of the mapping tables' CUDA and HIP names."""
    from ..rules.tables import data_dir, load_tables

    doc = json.loads((data_dir() / "placeholder_words.json").read_text())
    words = {w for key in ("keywords", "preprocessor", "types", "builtins") for w in doc[key]}
    for family in load_tables():
        for row in family.rows:
            for name in (row.cuda, row.hip, row.warp, row.legacy, row.roc):
                words.update(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", name))
    frozen = {
        "words": sorted(words),
        "prefixes": doc["prefixes"],
        "pattern": doc["pattern"],
        "limit": doc["limit"],
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(frozen, separators=(",", ":")) + "\n")
    return Keep.load(out)


def to_drafts(records: dict[str, list[dict[str, Any]]]) -> None:
    """Each unit's CUDA text replaced by the rules' native translation of it, the draft
    the runtime gives a model whose config says ``"source": "draft"``."""
    from ..rules import translate_bytes
    from .dataset import data_settings

    settings = data_settings()
    for recs in records.values():
        for r in recs:
            unit = r["cuda"].encode("latin-1")
            r["cuda"] = translate_bytes(unit, r.get("file") or "unit.cu", settings).data.decode(
                "latin-1"
            )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m cass_build.train.prepare")
    ap.add_argument("data", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--vocab", type=int, default=4096)
    ap.add_argument("--max-len", type=int, default=1024)
    ap.add_argument("--renamed", type=int, default=0, help="renamed copies per training pair")
    ap.add_argument("--seed", type=int, default=0, help="draws the renamed copies' names")
    ap.add_argument("--placeholders", action="store_true", help="names and comments as <@n>")
    ap.add_argument(
        "--source",
        choices=("cuda", "draft"),
        default="cuda",
        help="what the encoder reads: the CUDA unit, or the rules' native draft of it",
    )
    args = ap.parse_args(argv)

    records = {s: list(read_split(args.data, s)) for s in SPLITS}
    if args.source == "draft":
        to_drafts(records)
    extra: list[str] = []
    abstracted = 0
    if args.placeholders:
        keep_path = args.out / "placeholders.json"
        kept = freeze_keep(keep_path)
        extra = [placeholder(n) for n in range(kept.limit)]
        for recs in records.values():
            for r in recs:
                done = abstract(r["cuda"].encode("latin-1"), [r["hip"].encode("latin-1")], kept)
                if done is not None:
                    r["cuda"], r["hip"] = done[0], done[1][0]
                    abstracted += 1
    train_texts = [t for r in records["train"] for t in (r["cuda"], r["hip"])]
    tok = train_tokenizer(train_texts, args.vocab, args.out / "tokenizer.json", extra)
    rng = random.Random(args.seed)
    renamed = []
    for _ in range(args.renamed):
        for r in records["train"]:
            cuda, hip = rename(r["cuda"], r["hip"], rng)
            if cuda != r["cuda"]:
                renamed.append({**r, "cuda": cuda, "hip": hip, "origin": "renamed"})
    records["train"] += renamed
    arrays: dict[str, np.ndarray] = {}
    stats: dict[str, Any] = {
        "vocab": tok.get_vocab_size(),
        "max_len": args.max_len,
        "source": args.source,
        "renamed_copies": len(renamed),
        "placeholders": len(extra),
        "abstracted_units": abstracted,
    }
    limit = args.max_len - 2  # room for <s> and </s>
    for split, recs in records.items():
        src = tok.encode_batch([r["cuda"] for r in recs])
        tgt = tok.encode_batch([r["hip"] for r in recs])
        keep = [i for i in range(len(recs)) if max(len(src[i].ids), len(tgt[i].ids)) <= limit]
        for name, enc in (("src", src), ("tgt", tgt)):
            ids = [enc[i].ids for i in keep]
            lens = np.array([len(x) for x in ids], dtype=np.int64)
            arrays[f"{split}_{name}"] = np.concatenate(
                [np.array(x, dtype=np.int32) for x in ids] or [np.zeros(0, np.int32)]
            )
            arrays[f"{split}_{name}_off"] = np.concatenate(([0], np.cumsum(lens)))
        arrays[f"{split}_hazard"] = np.array([bool(recs[i].get("hazards")) for i in keep])
        arrays[f"{split}_index"] = np.array(keep, dtype=np.int64)
        stats[split] = {
            "units": len(recs),
            "kept": len(keep),
            "too_long": len(recs) - len(keep),
            "src_tokens": int(arrays[f"{split}_src_off"][-1]),
            "tgt_tokens": int(arrays[f"{split}_tgt_off"][-1]),
        }
    args.out.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(args.out / "tokens.npz", **arrays)  # type: ignore[arg-type]
    (args.out / "prepare.json").write_text(json.dumps(stats, indent=2) + "\n")
    print(json.dumps(stats))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
