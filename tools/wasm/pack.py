"""Packs a chapter's WebAssembly build for its page: PROGRAM.js and PROGRAM.wasm into
PROGRAM.pack, two lines, each the file gzip-compressed then in base64 (the page inlines them and
its worker unpacks them with the browser's DecompressionStream).

    python3 tools/wasm/pack.py build/wasm/bin/ch01_dot_product_scores.js
"""
import base64
import gzip
import os
import sys


def packed(path):
    with open(path, "rb") as f:
        return base64.b64encode(gzip.compress(f.read(), compresslevel=9, mtime=0)).decode("ascii")


def main():
    glue = sys.argv[1]
    program = glue[: -len(".js")]
    out = program + ".pack"
    with open(out + ".part", "w") as f:
        f.write(packed(glue) + "\n" + packed(program + ".wasm") + "\n")
    os.replace(out + ".part", out)


if __name__ == "__main__":
    main()
