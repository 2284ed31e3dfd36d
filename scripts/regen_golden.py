"""Rewrite the golden files under tests/golden/ from what the code writes now.

The tests only ever compare with these files; this is the one way to change them. Read what it
changed, and commit only the changes you meant:

    .venv/bin/python -m scripts.regen_golden
    git diff tests/golden
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from tests.conftest import tiny_tree
from tests.test_text_edition import BUNDLED, GOLDEN, TINY, bundled_text, tiny_text

REPO = Path(__file__).resolve().parents[1]


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        texts = {TINY: tiny_text(tiny_tree(Path(tmp) / "repo")), BUNDLED: bundled_text()}
    for name, text in texts.items():
        path = GOLDEN / name
        shown = path.relative_to(REPO)
        if path.exists() and path.read_text(encoding="utf-8") == text:
            print(f"{shown}: unchanged")
        else:
            path.write_text(text, encoding="utf-8")
            print(f"{shown}: rewritten; read `git diff {shown}` before committing it")


if __name__ == "__main__":
    main()
