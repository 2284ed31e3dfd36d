"""The characters a model or provider id may hold, stated once for curated files, catalogues and
the price maps `brief import` reads.

An id reaches page titles, headings, links, chart text, feeds, e-mail and data files. The
templates escape it in every one of those, but an id is a name, not text: one with markup,
quotes, spaces or control characters is a mistake or an attack, and is refused where it is read
(a problem naming the file and field, or a catalogue's recorded problem), never renamed.

The set covers every id of the bundled sources and of the LiteLLM, llm-prices and genai-prices
maps of 2026 (`~` is genai-prices' prefix of OpenRouter's aliases, `~openai/gpt-latest`; `:`
Bedrock's versions, `@` Vertex AI's, `/` routers' provider prefixes).
"""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import AfterValidator, Field

ID_PUNCTUATION = "._:/@+~-"
ID_CHARACTERS = f"ASCII letters, digits and {ID_PUNCTUATION}"
"""What an id may hold, as messages say it."""
ID_MAX_LENGTH = 200
_ID = re.compile(r"[A-Za-z0-9" + re.escape(ID_PUNCTUATION) + r"]+")
ID_PATTERN = _ID.pattern
"""A regular expression an id matches whole (its length aside)."""


def id_problem(value: str) -> str | None:
    """Return why `value` is not an id (None when it is one)."""
    if len(value) > ID_MAX_LENGTH:
        return f"an id is at most {ID_MAX_LENGTH} characters; this one has {len(value)}"
    if _ID.fullmatch(value):
        return None
    if not value:
        return "an id may not be empty"
    others = sorted({c for c in value if not _ID.fullmatch(c)})
    shown = " ".join(repr(c) if c.isprintable() else f"U+{ord(c):04X}"
                     for c in others)
    return f"an id holds only {ID_CHARACTERS}; this one also has {shown}"


def _checked(value: str) -> str:
    problem = id_problem(value)
    if problem is not None:
        raise ValueError(problem)
    return value


# The schema's pattern is for editors' YAML plugins; the check, with its message, is `_checked`.
Id = Annotated[str, AfterValidator(_checked), Field(json_schema_extra={
    "pattern": f"^{_ID.pattern}$", "maxLength": ID_MAX_LENGTH})]
"""A model id as the provider's API or a catalogue spells it: `deepseek-v4-flash`,
`anthropic.claude-3-5-sonnet-20240620-v1:0`, `claude-3-5-sonnet@20240620`."""
