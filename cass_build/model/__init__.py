"""The model strategy's runtime: int8 ONNX on the CPU with rule-drafted decoding.

The model translates one top-level declaration at a time (``units``). For each
one, the rules' translation of the same declaration is the draft: the decoder
checks a block of draft tokens per call and keeps the longest prefix it agrees
with, plus its own next token. After an edit the draft is re-aligned on the last
tokens written, so the number of decoder calls grows with the number of edits,
not with the length of the unit. Only tokens the model itself ranks first are
kept, so the output is the output of plain greedy decoding
(``tests/test_model.py`` checks it on every fixture).

Glue between declarations (preprocessor lines, namespace braces), declarations
longer than the model's limit, and any unit whose decoding does not finish
cleanly are translated by the rules. The session is created lazily, once per
process; a missing or damaged model raises :class:`ModelError` and the pipeline
falls back to the rules.
"""

from __future__ import annotations

import functools
import json
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import CassError
from ..model_files import FILES, model_dir
from ..settings import environment
from .guards import (
    FileView,
    comparisons_lost,
    drop_dangling,
    host_sizing_left,
    narrows,
    partial_fix,
    warp_constant_left,
)
from .placeholders import Keep, Table, abstract, placeholder

if TYPE_CHECKING:
    from collections.abc import Collection, Sequence

    from ..rules import RuleResult
    from ..settings import Settings

__all__ = [
    "Decision",
    "ModelError",
    "Runner",
    "Trace",
    "UnitStats",
    "hazard_rules",
    "load",
    "model_dir",
    "translate_bytes",
]

PAD, BOS, EOS = 0, 1, 2

#: The rules' warp-size hazard warnings: a declaration carrying one of these is a
#: declaration the rules could not make wave-size agnostic themselves, which is
#: what the model was trained to do. Declarations without one keep the rules'
#: translation (see ``translate_bytes``).
_HAZARDS = (
    "ballot-width",
    "lane-mask-width",
    "lane0-broadcast",
    "shfl-offset",
    "shfl-width",
    "warp-count",
    "warp-lane-arith",
    "warp-mask",
    "warp-mask32",
    "warp-size-literal",
)


class ModelError(CassError):
    """The packaged model is missing, damaged or cannot run here."""


@functools.cache
def hazard_rules() -> frozenset[str]:
    """The full ids of the warp-size hazards the model was trained to fix.

    Read from the diagnostic table on first use: most build steps never ask.
    """
    from ..rules.diagnostics import rule_ids

    return rule_ids(*_HAZARDS)


@dataclass
class UnitStats:
    """What decoding one unit cost: decoder calls, tokens in and out."""

    calls: int = 0
    src_tokens: int = 0
    out_tokens: int = 0
    edits: int = 0
    gave_up: int = 0
    units: int = 0
    fallbacks: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Decision:
    """What became of one flagged declaration: the model's text, or why the rules' stays."""

    start: int
    """Byte offsets of the declaration in the source."""
    end: int
    draft: bytes
    """The rules' translation of the declaration alone."""
    translated: bytes | None
    """The model's accepted translation, None when it was refused or changed nothing."""
    reason: str = ""
    """Why the model's translation was refused ("" when it was accepted)."""


@dataclass
class Trace:
    """Per declaration and per file, what ``translate_bytes`` decided (``--warp native``'s
    ``auto`` falls back per declaration from it)."""

    units: list[Decision] = field(default_factory=list)
    file_reason: str = ""
    """Why a file-level guard refused all of the model's changes ("" when none did)."""


class _Config:
    """``config.json``'s numbers, each checked: a missing or ill-typed key is a ModelError
    naming the file and the key, never a KeyError from deep inside the runner."""

    def __init__(self, path: Path, doc: object) -> None:
        if not isinstance(doc, dict):
            msg = f"{path}: expected a JSON object, found {type(doc).__name__}"
            raise ModelError(msg, hint=_REINSTALL)
        self.path = path
        self.doc = doc

    def count(self, key: str, default: int | None = None) -> int:
        value = self.doc.get(key, default)
        if value is None:
            msg = f"{self.path}: missing key {key!r}"
            raise ModelError(msg, hint=_REINSTALL)
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            msg = f"{self.path}: {key!r} must be a positive whole number, not {value!r}"
            raise ModelError(msg, hint=_REINSTALL)
        return value


_REINSTALL = "reinstall cass-build, or set CASS_MODEL_DIR to a complete model"


class Runner:
    """The encoder and decoder sessions plus the tokenizer of one model directory."""

    def __init__(self, directory: Path, threads: int | None = None) -> None:
        missing = [n for n in FILES if not (directory / n).is_file()]
        if missing:
            msg = f"{directory}: model files missing: {', '.join(missing)}"
            raise ModelError(msg, hint="reinstall cass-build, or set CASS_MODEL_DIR")
        try:
            import numpy as np
            import onnxruntime as ort
            from tokenizers import Tokenizer
        except ImportError as exc:
            msg = f"the model needs onnxruntime, tokenizers and numpy ({exc.name} is missing)"
            raise ModelError(msg, hint="pip install 'cass-build[model]'") from None
        self.np = np
        try:
            self.config: dict[str, Any] = json.loads((directory / "config.json").read_text())
            self.tokenizer = Tokenizer.from_file(str(directory / "tokenizer.json"))
            opts = ort.SessionOptions()
            env_threads = int(environment().model_threads or 0)
            opts.intra_op_num_threads = threads or env_threads or min(4, os.cpu_count() or 1)
            opts.inter_op_num_threads = 1
            # Builds run many compilers at once: threads that spin while waiting for
            # work steal the cores those need (and each call here is short).
            opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
            opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
            providers = ["CPUExecutionProvider"]
            self.encoder = ort.InferenceSession(
                str(directory / "encoder.onnx"), opts, providers=providers
            )
            self.decoder = ort.InferenceSession(
                str(directory / "decoder.onnx"), opts, providers=providers
            )
        except Exception as exc:  # onnxruntime raises its own types for damaged files
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            msg = f"{directory}: the model cannot be loaded ({first[:200]})"
            raise ModelError(msg, hint="reinstall cass-build, or set CASS_MODEL_DIR") from None
        self.copies = any(i.name == "src_ids" for i in self.decoder.get_inputs())
        cfg = _Config(directory / "config.json", self.config)
        self.max_len = cfg.count("max_len")
        self.block = cfg.count("block", 32)
        self.block_after_edit = min(self.block, cfg.count("block_after_edit", 4))
        env_limit = environment().model_max_departures
        if env_limit and not env_limit.isdigit():
            msg = f"CASS_MODEL_MAX_DEPARTURES={env_limit!r}: expected a whole number"
            raise ModelError(msg, hint="unset it, or set it to a count such as 24")
        self.max_departures = int(env_limit) if env_limit else cfg.count("max_departures", 24)
        # What the encoder reads: the CUDA unit (v9 and before) or the rules' draft of it,
        # so that the model learns to copy HIP and change only the warp-size details.
        self.source = self.config.get("source", "cuda")
        if self.source not in ("cuda", "draft"):
            where = directory / "config.json"
            msg = f'{where}: \'source\' must be "cuda" or "draft", not {self.source!r}'
            raise ModelError(msg, hint=_REINSTALL)
        self.keep: Keep | None = None
        self.placeholder_ids: dict[int, int] = {}
        if (directory / "placeholders.json").is_file():
            self._load_placeholders(directory / "placeholders.json")
        heads = cfg.count("heads")
        dh = cfg.count("d_model") // heads
        self.empty = np.zeros((cfg.count("dec_layers"), 2, 1, heads, 0, dh), dtype=np.float32)

    def _load_placeholders(self, path: Path) -> None:
        try:
            self.keep = Keep.load(path)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            msg = f"{path}: not a placeholder list ({type(exc).__name__}: {exc})"
            raise ModelError(msg, hint=_REINSTALL) from None
        for n in range(self.keep.limit):
            tid = self.tokenizer.token_to_id(placeholder(n))
            if tid is None:
                msg = f"{path}: the tokenizer has no token for {placeholder(n)}"
                raise ModelError(msg, hint=_REINSTALL)
            self.placeholder_ids[tid] = n

    # -- tokens ----------------------------------------------------------------
    def encode_text(self, data: bytes) -> list[int]:
        ids: list[int] = self.tokenizer.encode(data.decode("latin-1")).ids
        return ids

    def source_text(self, cuda: bytes, draft: bytes | None) -> bytes:
        """What the encoder reads for a unit: the CUDA text, or the rules' draft of it
        when the model was trained on drafts (config ``source``)."""
        return draft if self.source == "draft" and draft is not None else cuda

    def encode_pair(
        self, cuda: bytes, other: bytes | None
    ) -> tuple[list[int], list[int] | None, Table | None] | None:
        """Ids of a unit and of its draft (or target), with the unit's names and comments
        as placeholders when the model has them; None when the unit cannot be written
        that way (it spells a placeholder itself)."""
        if self.keep is None:
            ids = None if other is None else self.encode_text(other)
            return self.encode_text(cuda), ids, None
        done = abstract(cuda, [] if other is None else [other], self.keep)
        if done is None:
            return None
        src, others, table = done
        enc = self.tokenizer.encode_batch([src, *others])
        return enc[0].ids, (enc[1].ids if others else None), table

    def decode_ids(self, ids: list[int], table: Table | None = None) -> bytes | None:
        """Token ids back to bytes, placeholders made concrete from ``table``; None when
        they spell something no source byte can, or a placeholder the unit lacks."""
        if table is None:
            return self._text(ids)
        out: list[bytes] = []
        run: list[int] = []
        for tid in ids:
            n = self.placeholder_ids.get(tid)
            if n is None:
                run.append(tid)
                continue
            text, piece = self._text(run), table.concrete(n)
            if text is None or piece is None:
                return None
            out += (text, piece)
            run = []
        text = self._text(run)
        return None if text is None else b"".join([*out, text])

    def _text(self, ids: list[int]) -> bytes | None:
        text: str = self.tokenizer.decode(ids, skip_special_tokens=True)
        try:
            return text.encode("latin-1")
        except UnicodeEncodeError:
            return None

    # -- decoding --------------------------------------------------------------
    def _cross(self, src: list[int]) -> dict[str, Any]:
        """What every decoder call of a unit takes besides its tokens and cache."""
        np = self.np
        src_ids = np.array([src], dtype=np.int64)
        fixed = {"cross_kv": self.encoder.run(None, {"src_ids": src_ids})[0]}
        if self.copies:  # a copying decoder points into the source's ids
            fixed["src_ids"] = src_ids
        return fixed

    def _step(self, feed: list[int], past: Any, cross: dict[str, Any]) -> tuple[Any, Any]:
        np = self.np
        nxt, present = self.decoder.run(
            None, {"tgt_ids": np.array([feed], dtype=np.int64), "past_kv": past, **cross}
        )
        return nxt[0], present

    def teacher_forced(self, src: list[int], tgt: list[int]) -> list[int]:
        """The model's token after each prefix of ``tgt`` (BOS first), in one decoder
        call: what it would write at every position given the right text before it."""
        nxt, _ = self._step([BOS, *tgt], self.empty, self._cross(src))
        return [int(t) for t in nxt]

    def greedy(self, src: list[int], stats: UnitStats | None = None) -> list[int] | None:
        """Plain greedy decoding, one token per decoder call: the reference."""
        stats = stats if stats is not None else UnitStats()
        cross = self._cross(src)
        out: list[int] = []
        past, tok = self.empty, BOS
        limit = self.max_len - 1
        while len(out) < limit:
            nxt, past = self._step([tok], past, cross)
            stats.calls += 1
            tok = int(nxt[-1])
            if tok == EOS:
                return out
            out.append(tok)
        return None  # no end token within the limit

    def drafted(
        self,
        src: list[int],
        draft: list[int],
        stats: UnitStats | None = None,
        *,
        give_up_after: int | None = None,
    ) -> list[int] | None:
        """Greedy decoding that checks ``draft`` a block at a time (same output as greedy).

        With ``give_up_after``, decoding stops (None) once the model has departed from
        the draft that many times: the caller would reject such a rewrite anyway.
        """
        stats = stats if stats is not None else UnitStats()
        departures = 0
        cross = self._cross(src)
        draft = [*draft, EOS]
        out: list[int] = []
        past = self.empty
        last = BOS  # the newest token whose cache entry is not written yet
        d = 0  # where the draft is expected to continue
        limit = self.max_len - 1
        # A call costs a fixed part plus a part per token fed. After a departure the
        # model often keeps departing (on code unlike its training data it writes
        # its own text for many tokens), so the next call checks only a few draft
        # tokens; each call whose guesses are all kept widens the block again.
        block = self.block
        while len(out) < limit:
            # Positions run to max_len - 1: the block may not feed past the last one.
            room = self.max_len - 1 - past.shape[4]
            guess = draft[d : d + min(block - 1, room)]
            feed = [last, *guess]
            nxt, present = self._step(feed, past, cross)
            stats.calls += 1
            # nxt[j] is the model's token after feed[:j+1]; the guesses it agrees with
            # are kept, then its own token at the first disagreement.
            j = 0
            while j < len(guess) and int(nxt[j]) == guess[j]:
                if guess[j] == EOS:  # the model agrees that the unit ends here
                    out.extend(guess[:j])
                    return out
                j += 1
            kept = guess[:j]
            tok = int(nxt[j])
            # The cache is valid for feed[: j + 1]: drop the rest of the block.
            past = present[:, :, :, :, : present.shape[4] - (len(feed) - j - 1)]
            out.extend(kept)
            if tok == EOS:
                return out
            out.append(tok)
            last = tok
            if j < len(guess) or d + j >= len(draft) or draft[d + j] != tok:
                stats.edits += 1
                departures += 1
                if give_up_after is not None and departures > give_up_after:
                    stats.gave_up += 1
                    return None
                d = self._realign(out, draft, d + j)
                block = self.block_after_edit
            else:
                d += j + 1
                block = min(self.block, block * 4)
        return None

    @staticmethod
    def _realign(out: list[int], draft: list[int], expect: int, span: int = 3) -> int:
        """Where the draft continues after ``out``: after the nearest copy of its tail."""
        tail = out[-span:]
        n = len(tail)
        best, best_dist = -1, 1 << 30
        lo = max(0, expect - 64)
        hi = min(len(draft) - n, expect + 64)
        for i in range(lo, hi + 1):
            if draft[i : i + n] == tail and abs(i + n - expect) < best_dist:
                best, best_dist = i + n, abs(i + n - expect)
        if best >= 0:
            return best
        return min(expect + 1, len(draft) - 1)  # assume a substitution

    def translate_unit(
        self,
        cuda: bytes,
        draft: bytes | None,
        stats: UnitStats,
        *,
        use_draft: bool = True,
        hazard_lines: Collection[int] | None = None,
    ) -> bytes | None:
        """The model's translation of one unit, or None when the rules should have it.

        The model was trained to reproduce the rules' translation plus local warp-size
        fixes. A result that departs from the rules' draft more than ``max_departures``
        times is outside what it learned (it happens on code unlike its training data)
        and is rejected. The count is a function of the output and the draft alone
        (:func:`departures`), so drafted and plain decoding reject the same units, and
        drafted decoding can stop as soon as the limit is passed.

        Training units start with the newline that ends the line before them; a unit
        right after a directive (`#define X 1` then `__global__ ...`) lacks it, and the
        model then drops the `__` of `__global__`. Such a unit and its draft get the
        newline for decoding, and the output must keep it (it is stripped again).

        ``hazard_lines`` are the lines of ``cuda`` where the rules report a warp-size
        hazard; with them, an output that changes an equality test elsewhere is refused
        (:func:`~.guards.comparisons_lost`).
        """
        lead = not cuda.startswith(b"\n")
        if lead:
            out = self._translate(
                b"\n" + cuda, None if draft is None else b"\n" + draft, stats, use_draft=use_draft
            )
            if out is not None and not out.startswith(b"\n"):
                stats.fallbacks.append("drops the unit's leading newline")
                return None
            out = None if out is None else out[1:]
        else:
            out = self._translate(cuda, draft, stats, use_draft=use_draft)
        if out is None or draft is None or hazard_lines is None:
            return out
        if lost := comparisons_lost(cuda, draft, out, hazard_lines):
            tests = ", ".join(t.decode("latin-1") for t in lost)
            stats.fallbacks.append(f"changes a test no hazard points at ({tests})")
            return None
        return out

    def _translate(
        self, cuda: bytes, draft: bytes | None, stats: UnitStats, *, use_draft: bool
    ) -> bytes | None:
        encoded = self.encode_pair(self.source_text(cuda, draft), draft)
        if encoded is None:
            stats.fallbacks.append("spells a placeholder mark (<@)")
            return None
        src, draft_ids, table = encoded
        stats.src_tokens += len(src)
        if len(src) > self.max_len:
            stats.fallbacks.append("too long")
            return None
        limit = self.max_departures
        if use_draft and draft_ids is not None:
            before = stats.gave_up
            ids = self.drafted(src, draft_ids, stats, give_up_after=limit)
            if ids is None and stats.gave_up > before:
                stats.fallbacks.append("rewrites too much of the draft")
                return None
        else:
            ids = self.greedy(src, stats)
        if ids is None:
            stats.fallbacks.append("no end token")
            return None
        if draft_ids is not None and departures(ids, draft_ids) > limit:
            stats.fallbacks.append("rewrites too much of the draft")
            return None
        stats.out_tokens += len(ids)
        out = self.decode_ids(ids, table)
        if out is None:
            stats.fallbacks.append("not a byte sequence, or a placeholder the unit lacks")
        elif draft is not None and narrows(draft, out):
            stats.fallbacks.append("narrows a 64-bit integer type")
            return None
        return out


def departures(out: list[int], draft: list[int]) -> int:
    """How often ``out`` leaves ``draft``, walked as drafted decoding walks it.

    Drafted decoding counts a departure each time the model's token is not the one
    the draft expected, then re-aligns; walking a finished output the same way gives
    the same count, so a limit on it means the same with and without a draft.
    """
    draft = [*draft, EOS]
    d = 0
    count = 0
    for k, tok in enumerate(out):
        if d < len(draft) and draft[d] == tok:
            d += 1
        else:
            count += 1
            d = Runner._realign(out[: k + 1], draft, d)
    return count


_LOCK = threading.Lock()
_RUNNERS: dict[str, Runner] = {}


def load(directory: Path | None = None) -> Runner:
    """The runner of ``directory`` (the packaged model by default), loaded once per process."""
    path = (directory or model_dir()).resolve()
    key = str(path)
    with _LOCK:
        runner = _RUNNERS.get(key)
        if runner is None:
            runner = _RUNNERS[key] = Runner(path)
        return runner


def translate_bytes(
    data: bytes,
    path: str,
    settings: Settings,
    *,
    runner: Runner | None = None,
    use_draft: bool = True,
    stats: UnitStats | None = None,
    every_unit: bool = False,
    ruled: RuleResult | None = None,
    trace: Trace | None = None,
) -> bytes:
    """Translate a whole source: the rules' text, with the model's version of each
    declaration where the rules left a warp-size hazard warning.

    The model learned from synthesized programs; on code unlike them it can rewrite a
    correct declaration into a wrong one, and a declaration with no hazard has
    nothing for it to fix. ``every_unit`` sends every declaration to the model (the
    held-out measurements use it); ``ruled`` is the file's rules translation when the
    caller already has it. ``trace`` collects each flagged declaration's decision.
    """
    from ..rules import translate_bytes as rules
    from .units import split_units

    stats = stats if stats is not None else UnitStats()
    # The rules see the whole file (some of their decisions look beyond one
    # declaration); the model's accepted changes are spliced into that text, each
    # where its declaration's own rules translation appears.
    if ruled is None:  # the caller may already hold the file's rules translation
        ruled = rules(data, path, settings)
    whole = ruled.data
    changes: list[tuple[bytes, bytes]] = []
    changed_lines: list[tuple[int, int]] = []  # the CUDA lines of each changed declaration
    decisions: list[Decision] = []
    kept_hazard = False  # a flagged declaration the model left as the rules had it
    for seg in split_units(data):
        piece = data[seg.start : seg.end]
        if seg.kind != "decl" or piece.isspace():
            continue
        checked = rules(piece, path, settings)
        if not every_unit and not any(
            d.severity == "warning" and d.rule in hazard_rules() for d in checked.diagnostics
        ):
            continue
        draft = checked.data
        stats.units += 1
        if runner is None:
            # Loaded at the first declaration that needs it: most files have none, and
            # a build runs one process per file.
            runner = load()
        before = len(stats.fallbacks)
        hazard_lines = {d.line for d in checked.diagnostics if d.rule in hazard_rules()}
        translated = runner.translate_unit(
            piece, draft, stats, use_draft=use_draft, hazard_lines=hazard_lines
        )
        if translated is not None and translated != draft:
            changes.append((draft, translated))
            first = data.count(b"\n", 0, seg.start) + 1
            changed_lines.append((first, first + piece.count(b"\n")))
            decisions.append(Decision(seg.start, seg.end, draft, translated))
        else:
            kept_hazard = True
            why = "; ".join(stats.fallbacks[before:]) or "the model proposed no change"
            decisions.append(Decision(seg.start, seg.end, draft, None, why))
    if trace is not None:
        trace.units = decisions
    if not changes or every_unit:
        return _splice(whole, changes, stats)
    # The file-level guards (guards.py; each one's held-out case is in docs/model.md).
    changes, why = drop_dangling(changes, whole)
    if why:
        stats.fallbacks.append(why)
        kept_hazard = True
        _refuse(decisions, changes, why)
    if why := partial_fix(changes, kept_hazard):
        stats.fallbacks.append(why)
        _refuse_file(trace, why)
        return whole
    spliced = _splice(whole, changes, stats)
    if not changes:
        return spliced
    view = FileView(data, spliced, ruled.diagnostics, changed_lines, path, settings)
    for guard in (warp_constant_left, host_sizing_left):
        if why := guard(view):
            stats.fallbacks.append(why)
            _refuse_file(trace, why)
            return ruled.data
    return spliced


def _refuse(decisions: list[Decision], kept: Sequence[tuple[bytes, bytes]], why: str) -> None:
    """Mark the accepted decisions whose change is no longer in ``kept`` as refused."""
    for i, d in enumerate(decisions):
        if d.translated is not None and (d.draft, d.translated) not in kept:
            decisions[i] = Decision(d.start, d.end, d.draft, None, why)


def _refuse_file(trace: Trace | None, why: str) -> None:
    if trace is not None:
        trace.file_reason = why


def _splice(
    whole: bytes, changes: Sequence[tuple[bytes, bytes]], stats: UnitStats | None = None
) -> bytes:
    """``whole`` with each change's draft replaced by its translation, in order."""
    pos = 0
    for draft, translated in changes:
        at = whole.find(draft, pos)
        if at < 0:
            if stats is not None:
                stats.fallbacks.append("declaration not found in the file's rules translation")
            continue
        whole = whole[:at] + translated + whole[at + len(draft) :]
        pos = at + len(translated)
    return whole
