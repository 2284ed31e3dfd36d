"""A Markdown extension that passes a marked block of HTML through as it is, without parsing it.

Python-Markdown reads every raw HTML block with its HTML parser only to find where the block
ends, then copies it out unchanged. For the Market page's table (3,140 rows, 1.4 MB of HTML in
the bundled sources) that was 2.9 s of a 14 s build. The page's renderer writes the table,
already escaped and with its links checked (render/market_page.py), between a START and an END
line; this puts the lines between them in Markdown's stash before the HTML block step, and
Markdown restores them as it restores any raw block. Nothing is given up: raw HTML was never in
the tree the SafeLinks guard walks.
"""

from __future__ import annotations

from markdown import Extension, Markdown
from markdown.preprocessors import Preprocessor

START = "<!-- verbatim -->"
END = "<!-- /verbatim -->"


def verbatim(html: str) -> str:
    """Return `html` (block-level, no line equal to END) marked to pass through unparsed."""
    return f"{START}\n{html}\n{END}"


class _Verbatim(Preprocessor):
    def run(self, lines: list[str]) -> list[str]:
        out: list[str] = []
        block: list[str] | None = None
        for line in lines:
            if block is None:
                if line == START:
                    block = []
                else:
                    out.append(line)
            elif line == END:
                # With the newline a raw block keeps after it, so the HTML is the same.
                out += ["", self.md.htmlStash.store("\n".join(block) + "\n"), ""]
                block = None
            else:
                block.append(line)
        if block is not None:  # never closed: read as it was written
            out += [START, *block]
        return out


class Verbatim(Extension):
    def extendMarkdown(self, md: Markdown) -> None:  # noqa: N802 (Python-Markdown's name)
        # After whitespace is normalized (30), before raw HTML blocks are parsed (20).
        md.preprocessors.register(_Verbatim(md), "brief_verbatim", 25)


def makeExtension(**kwargs: object) -> Verbatim:  # noqa: N802 (how Markdown loads it by name)
    return Verbatim(**kwargs)
