#!/usr/bin/env python3
"""Write the fuzz target's inputs from the TOML tables: the table (table.tsv) and a
libFuzzer dictionary (cuda.dict) of every CUDA name in it plus CUDA's tokens.

    python cpp/fuzz/dump_table.py OUT_DIR
"""

from __future__ import annotations

import sys
from pathlib import Path

# Tokens the rewriter and the lexer treat specially, beside the tables' names.
TOKENS = (
    "<<<",
    ">>>",
    ">>",
    "<<",
    "::",
    "->",
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    ",",
    ";",
    "#if 0\n",
    "#if ",
    "#elif ",
    "#else\n",
    "#endif\n",
    "#ifdef ",
    "#define ",
    "#include <",
    '#include "',
    "defined(",
    "\\\n",
    "//",
    "/*",
    "*/",
    'R"(',
    ')"',
    'R"x(',
    ')x"',
    'u8"',
    "L'",
    "0xffffffff",
    "0xffffffffu",
    "32",
    "31",
    "16",
    "5",
    "warpSize",
    "threadIdx.x",
    "blockDim.x",
    "lane",
    "for (int o = 16; o > 0; o /= 2)",
    "__global__",
    # inline PTX (cpp/src/ptx.cpp): statement syntax and a few instructions
    'asm volatile("',
    '" : "=r"(x) : "r"(y));',
    '"l"(p)',
    '"n"(3)',
    "%0",
    "%%laneid",
    "%[a]",
    "%=",
    ".reg .b32 r<4>;",
    ".reg .pred p;",
    "@!p ",
    "shfl.sync.bfly.b32 ",
    "setp.lt.s32 ",
    "cvt.rni.s32.f32 ",
    "add.cc.u32 ",
    "ld.global.nc.v4.u32 ",
    "cp.async.ca.shared.global ",
    "__cvta_generic_to_shared(",
    "{%0, %1}",
    "[%1+4]",
    "0f3F800000",
    "__device__",
    "asm(",
    "texture<",
    "unsigned ",
    "long long ",
    "= ",
    "& 31",
    "% 32",
    "/ 32",
    ">> 5",
    "1u << ",
)


def _escape(s: str) -> str:
    return s.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")


def _dict_entry(s: str) -> str:
    out = []
    for b in s.encode():
        c = chr(b)
        out.append(c if 32 <= b < 127 and c not in '"\\' else f"\\x{b:02x}")
    return '"' + "".join(out) + '"'


def main(argv: list[str]) -> int:
    out = Path(argv[1] if len(argv) > 1 else ".")
    out.mkdir(parents=True, exist_ok=True)
    from cass_build.rules import _core_input

    rows, families = _core_input()
    lines = [f"F\t{_escape(name)}\t{','.join(prefixes)}" for name, prefixes in families]
    lines += ["R\t" + "\t".join(_escape(str(field)) for field in row) for row in rows]
    (out / "table.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    names = sorted({str(row[0]) for row in rows} | set(TOKENS))
    (out / "cuda.dict").write_text("\n".join(_dict_entry(n) for n in names) + "\n")
    print(f"{out}/table.tsv: {len(rows)} rows; {out}/cuda.dict: {len(names)} entries")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
