#!/usr/bin/env python3
"""Regenerates Sources/BoardConfig/BuiltinBoards.swift from Boards/*.toml.

Each file's text is embedded verbatim in a raw multi-line string literal, so the library can
load a board by name without the repository. A test (BoardConfigTests) re-reads Boards/ and
fails when the embedded copy differs from the files: run this script after editing a board.
"""
import pathlib
import sys

root = pathlib.Path(__file__).resolve().parent.parent
boards = sorted((root / "Boards").glob("*.toml"))


def literal(text: str) -> str:
    """A Swift raw multi-line string literal whose value is exactly `text`."""
    if "\r" in text:
        sys.exit("embed-boards: CR characters are not allowed in board files")
    hashes = 1
    while f'"""{"#" * hashes}' in text or f'\\{"#" * hashes}' in text or f'"{"#" * hashes}' in text:
        hashes += 1
    h = "#" * hashes
    # The value of a multi-line literal is the lines between the delimiter lines; the newline
    # before the closing delimiter is not part of it, so a final newline needs an empty line.
    return f'{h}"""\n{text}\n"""{h}'


out = [
    "// Generated from Boards/*.toml by .ci/embed-boards.py; do not edit.",
    "// A test re-reads Boards/ and requires these texts to equal the files.",
    "",
    "/// The text of every file in the repository's `Boards/` folder, by board name, in name order.",
    "enum BuiltinBoards {",
    "    static let files: [(name: String, text: String)] = [",
]
for path in boards:
    out.append(f'        ("{path.stem}", {literal(path.read_text(encoding="utf-8"))}),')
out += ["    ]", "}"]
target = root / "Sources/BoardConfig/BuiltinBoards.swift"
target.write_text("\n".join(out) + "\n", encoding="utf-8")
print(f"embed-boards: {len(boards)} boards -> {target.relative_to(root)}")
