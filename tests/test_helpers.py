"""The shared helpers each concern has one home in: the runner, the finder, the arch
policy, the writer and the folder publisher. Real processes and files throughout."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from cass_build._files import atomic_text, publish_dir, write_if_changed
from cass_build._proc import NOT_RUN, ProcessError, first_error, run
from cass_build.pipeline.toolchain import program_candidates, target_archs


def test_run_reports_a_missing_tool_as_127_without_raising(tmp_path: Path) -> None:
    done = run([tmp_path / "no-such-tool"])
    assert (done.returncode, done.stopped) == (NOT_RUN, "no-such-tool: No such file or directory")
    assert done.output == "no-such-tool: No such file or directory"


def test_run_stops_a_hung_tool_at_its_timeout() -> None:
    done = run([sys.executable, "-c", "import time; print('started', flush=True); time.sleep(9)"],
               timeout=1)  # fmt: skip
    assert done.timed_out and done.returncode == 124
    assert done.stdout == "started\n"  # what it printed before it was stopped


def test_check_raises_one_process_error_with_the_first_error_line() -> None:
    code = "import sys; print('note: x'); print('k.cu:3:1: error: bad', file=sys.stderr); exit(3)"
    with pytest.raises(ProcessError) as info:
        run([sys.executable, "-c", code], check=True)
    exc = info.value
    assert str(exc) == "python3 exited with 3: k.cu:3:1: error: bad".replace(
        "python3", Path(sys.executable).name
    )
    assert exc.returncode == 3 and exc.argv[0] == sys.executable
    assert exc.output == "k.cu:3:1: error: bad\nnote: x\n"  # stderr first


def test_first_error_names_the_users_file_not_the_scratch_copy() -> None:
    out = "warning: argument unused during compilation\n/tmp/s/k.hip:2:1: error: nope\n"
    assert first_error(out, Path("/tmp/s")) == "k.hip:2:1: error: nope"
    assert first_error("") == "no compiler output"


def _tool(directory: Path, name: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text("#!/bin/sh\n")
    path.chmod(0o755)
    return path


def test_finder_takes_the_variable_alone_then_roots_then_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    on_path = _tool(tmp_path / "path", "cass-probe-tool")
    in_root = _tool(tmp_path / "root" / "bin", "cass-probe-tool")
    monkeypatch.setenv("PATH", f"{on_path.parent}{os.pathsep}{os.environ['PATH']}")
    roots = (tmp_path / "empty", tmp_path / "root")
    found = [p for p, _ in program_candidates("cass-probe-tool", roots=roots)]
    assert found == [in_root, on_path]
    chosen = [
        p for p, _ in program_candidates("cass-probe-tool", explicit=str(on_path), roots=roots)
    ]
    assert chosen == [on_path]
    broken = program_candidates("cass-probe-tool", explicit=str(tmp_path / "nope"), roots=roots)
    assert list(broken) == []  # the user's choice or nothing: never another one


def test_arch_policy_is_the_same_for_every_caller() -> None:
    both = {"PYTORCH_ROCM_ARCH": "gfx906", "CASS_ARCHS": "gfx942"}
    assert target_archs(environ=both) == ("gfx942",)
    assert target_archs(environ={"PYTORCH_ROCM_ARCH": "gfx906;gfx90a"}) == ("gfx906", "gfx90a")
    assert target_archs(["gfx1100"], environ=both) == ("gfx1100",)


def test_unchanged_output_keeps_its_timestamp(tmp_path: Path) -> None:
    out = tmp_path / "deep" / "k.hip"
    assert write_if_changed(out, b"x")
    before = out.stat().st_mtime_ns
    assert not write_if_changed(out, b"x") and out.stat().st_mtime_ns == before
    assert write_if_changed(out, b"y") and out.read_bytes() == b"y"


def test_a_failed_stream_leaves_no_file(tmp_path: Path) -> None:
    out = tmp_path / "records.jsonl"
    with pytest.raises(RuntimeError), atomic_text(out) as fh:
        fh.write("half")
        raise RuntimeError
    assert list(tmp_path.iterdir()) == []
    with atomic_text(out) as fh:
        fh.write("whole\n")
    assert out.read_text() == "whole\n" and list(tmp_path.iterdir()) == [out]


# A builder of <final>: it fills its private folder, says so in <sync>/<name>, waits
# until every other builder has said so too, and only then leaves the block. Every
# builder thus has a finished folder when the renames race, so all but one must lose.
BUILDER = """
import sys, time
from pathlib import Path
from cass_build._files import publish_dir
final, sync, me, others = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], sys.argv[4:]
with publish_dir(final, marker=".complete") as work:
    for i in range(40):
        (work / f"part{i:02}.txt").write_text(me)
    (sync / me).touch()
    deadline = time.monotonic() + 60
    while not all((sync / o).exists() for o in others):
        if time.monotonic() > deadline:
            sys.exit(f"builder {me}: the others never finished")
        time.sleep(0.005)
print(me, "done")
"""


def test_processes_racing_to_build_one_folder_all_succeed_and_leave_one_whole(
    tmp_path: Path,
) -> None:
    final = tmp_path / "cache" / "layer-0123"
    sync = tmp_path / "sync"
    sync.mkdir()
    names = ["a", "b"]
    builders = [
        subprocess.Popen(
            [sys.executable, "-c", BUILDER, str(final), str(sync), me, *set(names) - {me}],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for me in names
    ]
    outputs = [b.communicate(timeout=120)[0] for b in builders]
    assert [b.returncode for b in builders] == [0, 0], outputs
    assert outputs == ["a done\n", "b done\n"]
    # One builder's folder, whole; the loser's and every temporary folder are gone.
    assert [p.name for p in final.parent.iterdir()] == [final.name]
    parts = sorted(p.name for p in final.iterdir())
    assert parts == [".complete", *(f"part{i:02}.txt" for i in range(40))]
    [winner] = {p.read_text() for p in final.glob("part*.txt")}
    assert winner in names


def test_a_folder_built_once_is_kept_and_a_stale_one_replaced(tmp_path: Path) -> None:
    final = tmp_path / "layer"
    with publish_dir(final, marker=".complete") as work:
        (work / "f").write_text("first")
    with publish_dir(final, marker=".complete") as work:
        (work / "f").write_text("second")
    assert (final / "f").read_text() == "first"  # the one there already wins
    (final / ".complete").unlink()  # as a writer that died half-way would leave it
    with publish_dir(final, marker=".complete") as work:
        (work / "f").write_text("third")
    assert (final / "f").read_text() == "third" and (final / ".complete").is_file()
    assert [p.name for p in tmp_path.iterdir()] == ["layer"]


def test_replace_swaps_in_the_new_folder_and_a_failed_build_leaves_the_old(
    tmp_path: Path,
) -> None:
    final = tmp_path / "data"
    for text in ("old", "new"):
        with publish_dir(final, replace=True) as work:
            (work / "READY").write_text(text)
    assert sorted(p.name for p in final.iterdir()) == ["READY"]
    assert (final / "READY").read_text() == "new"
    with pytest.raises(RuntimeError), publish_dir(final, replace=True) as work:
        (work / "READY").write_text("half")
        raise RuntimeError
    assert (final / "READY").read_text() == "new"
    assert [p.name for p in tmp_path.iterdir()] == ["data"]
