"""The copying head's training pairs: names renamed alike on both sides, and only names."""

from __future__ import annotations

import random
import re

from cass_build import translate
from cass_build.settings import Settings
from cass_build.train.rename import rename

CUDA = """
__global__ void hist_match_any(const int* keys, int* counts, int n) {
  int lane = threadIdx.x & 31;
  unsigned peers = __match_any_sync(0xffffffff, keys[lane]);
  if (lane == __ffs(peers) - 1) atomicAdd(&counts[keys[lane]], __popc(peers));
}
"""


def test_renamed_pair_is_the_same_translation_under_other_names() -> None:
    native = Settings().replace(warp="native")
    hip = translate(CUDA, options=native).text
    seen: set[str] = set()
    for seed in range(20):
        cuda2, hip2 = rename(CUDA, hip, random.Random(seed))
        assert cuda2 != CUDA
        # The rules translate the renamed source to the renamed target: only names moved.
        assert translate(cuda2, options=native).text == hip2
        for api in ("threadIdx", "__match_any_sync", "atomicAdd", "__popc", "lane", "int"):
            assert re.search(rf"\b{api}\b", cuda2), api
        seen |= set(re.findall(r"void (\w+)\(", cuda2))
    assert len(seen) > 10  # the seed draws the names


def test_nothing_shared_nothing_renamed() -> None:
    assert rename("int x;", "float y;", random.Random(0)) == ("int x;", "float y;")
