"""The package split: held-out sdist packages are the test split, whole."""

from __future__ import annotations

from cass_build.train.dataset import HELD_OUT_SHARE, held_out_packages, split_of

PACKAGES = [f"pkg-{i}" for i in range(20)]


def test_held_out_packages_are_seeded_and_a_fixed_share() -> None:
    held = held_out_packages(PACKAGES, 0)
    assert held == held_out_packages(list(reversed(PACKAGES)), 0)  # order does not matter
    assert len(held) == round(HELD_OUT_SHARE * len(PACKAGES)) == 4
    assert held <= set(PACKAGES)
    assert held != held_out_packages(PACKAGES, 1)
    assert len(held_out_packages(["only"], 0)) == 1  # at least one package is held out
    assert held_out_packages([], 0) == frozenset()


def test_a_held_out_package_never_reaches_train_or_valid() -> None:
    held = held_out_packages(PACKAGES, 0)
    splits: dict[str, set[str]] = {}
    for pkg in PACKAGES:
        for k in range(200):
            splits.setdefault(pkg, set()).add(split_of(f"{pkg}/src/f{k}.cu", 0, held))
    for pkg, seen in splits.items():
        assert seen == ({"test"} if pkg in held else {"train", "valid"}), pkg
    # Synthesized programs keep their per-file 90/5/5 split.
    synth = {split_of(f"synth_{k:06d}", 0) for k in range(400)}
    assert synth == {"train", "valid", "test"}
