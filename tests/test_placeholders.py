"""A unit's own names and comments as placeholders (``cass_build.model.placeholders``).

No model is needed: the keep list is the packaged word list plus a few table names, as
``prepare --placeholders`` freezes it, and the placeholders are made concrete here by
the table ``abstract`` returns.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from cass_build.model.placeholders import Keep, Table, abstract, placeholder
from cass_build.rules.tables import data_dir

UNIT = b"""\
// sums one row per warp \xff (a latin-1 byte in a comment)
__global__ void row_sums(const float* GPTR_A_Scales, float* out, int n) {
  float acc = 0.f;  /* per-lane partial */
  for (int i = threadIdx.x; i < n; i += warpSize) acc += GPTR_A_Scales[i];
  for (int offset = 16; offset > 0; offset /= 2)
    acc += __shfl_down_sync(0xffffffff, acc, offset);
  if (threadIdx.x % 32 == 0) out[blockIdx.x] = acc;
}
"""


@pytest.fixture(scope="module")
def keep(tmp_path_factory: pytest.TempPathFactory) -> Keep:
    doc = json.loads((data_dir() / "placeholder_words.json").read_text())
    words = [w for key in ("keywords", "preprocessor", "types", "builtins") for w in doc[key]]
    frozen = {
        "words": [*words, "__shfl_down_sync", "threadIdx", "blockIdx", "warpSize"],
        "prefixes": doc["prefixes"],
        "pattern": doc["pattern"],
        "limit": doc["limit"],
    }
    path = tmp_path_factory.mktemp("keep") / "placeholders.json"
    path.write_text(json.dumps(frozen))
    return Keep.load(path)


def concrete(text: str, table: Table) -> bytes:
    def one(m: re.Match[str]) -> str:
        piece = table.concrete(int(m.group(1)))
        assert piece is not None, m.group(0)
        return piece.decode("latin-1")

    return re.sub(r"<@(\d+)>", one, text).encode("latin-1")


def test_placeholders_round_trip_every_byte(keep: Keep) -> None:
    done = abstract(UNIT, [UNIT], keep)
    assert done is not None
    text, (other,), table = done
    assert other == text
    assert concrete(text, table) == UNIT


def test_own_names_and_comments_become_placeholders_and_api_words_stay(keep: Keep) -> None:
    done = abstract(UNIT, [], keep)
    assert done is not None
    text, _, table = done
    assert b"GPTR_A_Scales" in table.spellings and b"row_sums" in table.spellings
    assert table.spellings[0].startswith(b"// sums one row")  # first seen, first numbered
    for word in ("__shfl_down_sync", "threadIdx", "warpSize", "float", "for"):
        assert re.search(rf"\b{word}\b", text), word
    assert "GPTR_A_Scales" not in text and "per-lane" not in text
    # Names the warp-size rewrite reads (lane, warp, mask ...) stay by the keep pattern.
    kept = abstract(b"int lane_id = 0; unsigned warp_mask = 1u; int width = 2;", [], keep)
    assert kept is not None
    assert "lane_id" in kept[0] and "warp_mask" in kept[0] and "width" not in kept[0]


def test_the_same_name_on_the_other_side_gets_the_same_number(keep: Keep) -> None:
    target = UNIT.replace(b"% 32", b"% warpSize")
    target += b"__device__ int only_in_the_target;\n"
    done = abstract(UNIT, [target], keep)
    assert done is not None
    text, (other,), table = done
    n = table.index[b"GPTR_A_Scales"]
    assert text.count(placeholder(n)) == other.count(placeholder(n)) == 2
    assert "only_in_the_target" in other  # a name the unit lacks has no number
    assert concrete(other, table) == target


def test_a_unit_that_spells_the_mark_is_refused(keep: Keep) -> None:
    assert abstract(b"// <@3> looks like a placeholder\nint x;", [], keep) is None
    assert abstract(b"int x;", [b"int x; // <@0>"], keep) is None


def test_names_past_the_limit_stay_as_they_are(keep: Keep) -> None:
    names = [f"name_{i}" for i in range(keep.limit + 5)]
    unit = "".join(f"int {n};\n" for n in names).encode()
    done = abstract(unit, [], keep)
    assert done is not None
    text, _, table = done
    assert len(table.spellings) == keep.limit
    assert f"int {placeholder(keep.limit - 1)};" in text and f"int {names[-1]};" in text
    assert concrete(text, table) == unit


def test_the_packaged_word_list_is_well_formed() -> None:
    doc = json.loads((data_dir() / "placeholder_words.json").read_text())
    for key in ("keywords", "preprocessor", "types", "builtins", "prefixes"):
        items = doc[key]
        assert items and len(items) == len(set(items)), key
        assert all(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", w) for w in items), key
    re.compile(doc["pattern"])
    assert 0 < doc["limit"] <= 4096


def test_a_missing_or_ill_typed_list_is_an_error(tmp_path: Path) -> None:
    bad = tmp_path / "placeholders.json"
    bad.write_text(json.dumps({"words": [], "prefixes": []}))
    with pytest.raises(KeyError):
        Keep.load(bad)


def test_prepare_writes_one_token_per_placeholder_and_the_frozen_list(tmp_path: Path) -> None:
    import gzip

    import numpy as np
    from tokenizers import Tokenizer

    from cass_build.train.prepare import main as prepare

    data = tmp_path / "data"
    data.mkdir()
    unit = UNIT.decode("latin-1")
    for split, count in (("train", 12), ("valid", 2), ("test", 2)):
        with gzip.open(data / f"{split}.jsonl.gz", "wt", encoding="utf-8") as fh:
            for i in range(count):
                cuda = unit.replace("row_sums", f"row_sums_{i}")
                hip = cuda.replace("% 32", "% warpSize")
                fh.write(json.dumps({"cuda": cuda, "hip": hip, "hazards": ["lane"]}) + "\n")
    out = tmp_path / "prep"
    assert prepare([str(data), str(out), "--vocab", "400", "--placeholders"]) == 0
    kept = Keep.load(out / "placeholders.json")
    assert kept.kept(b"__shfl_down_sync") and kept.kept(b"hipLaunchKernelGGL")  # the tables'
    assert not kept.kept(b"GPTR_A_Scales")
    tok = Tokenizer.from_file(str(out / "tokenizer.json"))
    ids = [tok.token_to_id(placeholder(n)) for n in range(kept.limit)]
    assert None not in ids and len(set(ids)) == kept.limit
    arrays = np.load(out / "tokens.npz")
    first = arrays["train_src"][: arrays["train_src_off"][1]].tolist()
    done = abstract(UNIT.replace(b"row_sums", b"row_sums_0"), [], kept)
    assert done is not None
    assert first == tok.encode(done[0]).ids and ids[0] in first
    assert json.loads((out / "prepare.json").read_text())["abstracted_units"] == 16
