"""Comments, docstrings and the guides name `.py` files that exist: a module moved or renamed leaves
no comment pointing at its old place (issue 38: a dozen did, after two reorganisations of pipeline/)."""

from __future__ import annotations

import ast
import io
import os
import re
import tokenize
from collections.abc import Iterator
from pathlib import Path

from conftest import REPO

CODE = ("pipeline", "tests", "benchmarks", "scripts")
GUIDES = ("ARCHITECTURE.md", "CONTRIBUTING.md", "README.md", "benchmarks/README.md")
# Files of other projects that comments cite as their source of a rule.
ELSEWHERE = {
    "utils/process_result.py",  # InferenceX
    "tools/submission/submission_checker.py",  # mlcommons/inference
}
# `render/chart_image.py`, `cli/main.py`, `keys.py`: a path not inside another path or a dotted name.
NAMED = re.compile(r"(?<![\w/.-])((?:[\w-]+/)*[\w-]+\.py)\b")


def prose(path: Path) -> Iterator[tuple[int, str]]:
    """Yield (line, text) of the comments and docstrings of a module, or every line of a guide;
    nothing of a file that names no `.py` file at all."""
    text = path.read_text(encoding="utf-8")
    if not NAMED.search(text):
        return
    if path.suffix == ".md":
        yield from enumerate(text.splitlines(), 1)
        return
    # Tokenizing whole modules takes seconds; a comment is one token, so its line alone will do.
    for number, line in enumerate(text.splitlines(), 1):
        if "#" in line and NAMED.search(line):
            try:
                yield from ((number, token.string) for token in tokenize.generate_tokens(
                    io.StringIO(line).readline) if token.type == tokenize.COMMENT)
            except (tokenize.TokenError, SyntaxError):  # a line of a string that spans lines
                pass
    # Docstrings, including those of attributes and constants: every string that is a statement.
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) \
                and isinstance(node.value.value, str):
            for offset, line in enumerate(node.value.value.splitlines()):
                yield node.lineno + offset, line


def exists(named: str, basenames: set[str]) -> bool:
    """Whether `named` is a file of the repository: a bare name anywhere in the code, a path from
    the root or from `pipeline/`."""
    if "/" not in named:
        return named in basenames
    return (REPO / named).is_file() or (REPO / "pipeline" / named).is_file() or named in ELSEWHERE


def test_comments_name_files_that_exist() -> None:
    modules = sorted(p for top in CODE for p in (REPO / top).rglob("*.py"))
    basenames = {p.name for p in modules}
    missing = [
        f"{path.relative_to(REPO)}:{line}: {named}"
        for path in modules + [REPO / guide for guide in GUIDES]
        for line, text in prose(path)
        for named in NAMED.findall(text)
        if not exists(named, basenames)
    ]
    assert not missing, "comments name files that do not exist:\n" + "\n".join(missing)


# Spelt in parts, so this file does not name them either.
NOTES_ELSEWHERE = ("DESIGN" + ".md", "STACK" + "-NOTES")
SKIPPED_DIRS = {".git", ".venv", ".cache", "node_modules", "public", "mutants", "__pycache__",
                "test-artifacts"}


def test_no_file_cites_notes_that_are_not_in_the_repository() -> None:
    # Issue 40: docstrings, comments and the JSON schemas editors see cited two project notes
    # kept outside the repository; what the code relies on is in ARCHITECTURE.md now.
    citing = []
    for folder, dirs, files in os.walk(REPO):
        dirs[:] = [d for d in dirs if d not in SKIPPED_DIRS and not d.startswith(".public-")]
        for name in files:
            path = Path(folder) / name
            if path.is_symlink():
                continue
            data = path.read_bytes()
            citing += [f"{path.relative_to(REPO)}: {note}" for note in NOTES_ELSEWHERE
                       if note.encode() in data]
    assert citing == []
