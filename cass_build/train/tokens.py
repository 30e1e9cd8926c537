"""The model's tokenizer: byte-level BPE trained with ``tokenizers``.

Source bytes are read as latin-1 text, one character per byte, before the
byte-level pre-tokenizer sees them. Every byte sequence, valid UTF-8 or not,
therefore has a spelling, and decoding then encoding as latin-1 gives the bytes
back: the round trip the runtime relies on (``cass_build.model``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

__all__ = ["SPECIALS", "train_tokenizer"]

#: Ids 0..3, in this order: padding, start and end of a sequence, unknown.
SPECIALS = ("<pad>", "<s>", "</s>", "<unk>")


def train_tokenizer(
    texts: Iterable[str], vocab_size: int, out: Path, extra: Sequence[str] = ()
) -> Tokenizer:
    """Train on latin-1 texts and save ``tokenizer.json`` to ``out``; ``extra`` are more
    special tokens (the placeholders), ids 4 on, one token each."""
    tok = Tokenizer(models.BPE(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        min_frequency=2,
        special_tokens=[*SPECIALS, *extra],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(texts, trainer)
    out.parent.mkdir(parents=True, exist_ok=True)
    tok.save(str(out))
    return tok
