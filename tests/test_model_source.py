"""Models whose encoder reads the rules' draft of a unit (config ``"source": "draft"``),
made by ``prepare --source draft``: the data, the runtime's choice of encoder input, and
a bad value. The tiny copying model of tests/fixtures/model_copy stands in for a trained
one (its weights are random; only what it is fed is checked)."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import pytest

from cass_build.model import ModelError, Runner, UnitStats
from cass_build.rules import translate_bytes as rules_translate
from cass_build.train.dataset import data_settings

FIXTURES = Path(__file__).parent / "fixtures"

UNIT = """
__global__ void rows(const float* in, float* out, int n) {
  float acc = 0.f;
  for (int i = threadIdx.x; i < n; i += 32) acc += in[i];
  for (int offset = 16; offset > 0; offset /= 2) acc += __shfl_down_sync(0xffffffff, acc, offset);
  if (threadIdx.x % 32 == 0) { cudaDeviceSynchronize(); out[blockIdx.x] = acc; }
}
"""


def _model(tmp_path: Path, source: object) -> Path:
    directory = tmp_path / "model"
    shutil.copytree(FIXTURES / "model_copy", directory)
    config = json.loads((directory / "config.json").read_text())
    config["source"] = source
    (directory / "config.json").write_text(json.dumps(config))
    return directory


def test_prepare_source_draft_trains_on_the_rules_native_translation(tmp_path: Path) -> None:
    import numpy as np
    from tokenizers import Tokenizer

    from cass_build.train.prepare import main as prepare

    data = tmp_path / "data"
    data.mkdir()
    for split, count in (("train", 10), ("valid", 2), ("test", 2)):
        with gzip.open(data / f"{split}.jsonl.gz", "wt", encoding="utf-8") as fh:
            for i in range(count):
                cuda = UNIT.replace("rows", f"rows_{i}")
                hip = cuda.replace("% 32", "% warpSize").replace("cuda", "hip")
                fh.write(json.dumps({"cuda": cuda, "hip": hip, "hazards": ["lane"]}) + "\n")
    out = tmp_path / "prep"
    assert prepare([str(data), str(out), "--vocab", "400", "--source", "draft"]) == 0
    assert json.loads((out / "prepare.json").read_text())["source"] == "draft"
    tok = Tokenizer.from_file(str(out / "tokenizer.json"))
    arrays = np.load(out / "tokens.npz")
    first = tok.decode(arrays["train_src"][: arrays["train_src_off"][1]].tolist())
    draft = rules_translate(UNIT.replace("rows", "rows_0").encode(), "u.cu", data_settings())
    assert first == draft.data.decode()
    assert "hipDeviceSynchronize" in first and "cudaDeviceSynchronize" not in first


def test_a_draft_model_is_fed_the_draft_and_a_cuda_model_the_cuda(tmp_path: Path) -> None:
    cuda = UNIT.encode()
    draft = rules_translate(cuda, "u.cu", data_settings()).data
    assert draft != cuda
    plain = Runner(FIXTURES / "model_copy", threads=1)
    drafted = Runner(_model(tmp_path, "draft"), threads=1)
    assert plain.source == "cuda" and drafted.source == "draft"
    assert plain.source_text(cuda, draft) == cuda
    assert drafted.source_text(cuda, draft) == draft
    assert drafted.source_text(cuda, None) == cuda
    # translate_unit encodes what source_text chose: the count of source tokens tells.
    for runner, fed in ((plain, cuda), (drafted, draft)):
        stats = UnitStats()
        runner.translate_unit(cuda, draft, stats, use_draft=False)
        assert stats.src_tokens == len(runner.encode_text(fed))
    assert len(plain.encode_text(cuda)) != len(plain.encode_text(draft))


def test_an_unknown_source_is_a_clean_model_error(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="'source' must be"):
        Runner(_model(tmp_path, "ptx"), threads=1)
