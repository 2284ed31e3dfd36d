"""Pure: which model a listing serves, whatever its provider calls it, and how it serves it.

The rule (one, for the model pages and for the cost to serve's matching, tables/cost_to_serve.py):
two ids name one model when they have the same **identity key**, and the words dropped on the
way to it are the listing's **variant**. The key is made from the canonical id
(normalize/model_ids.py: the last part of the path, case-folded, `_` as `-`, no version pin or
host suffix such as `-maas`, `:free`, nor Bedrock's `-1:0`), in five steps:

1. A router's tag after `:` is a variant (`claude-opus-4.6:thinking`, `gpt-4o:extended`); a size
   after `:` is part of the name (Ollama's `llama3:70b`, `gpt-oss:120b-cloud`). A longer tail
   (`ft:gpt-4o`, a fine-tune) stays in the name.
2. Host, region and maker prefixes go: dotted ones as Bedrock and OCI write them (`us.`,
   `global.`, `meta.`, `amazon.`, `qwen.`, …; `deepseek.r1` keeps its maker as `deepseek-r1`,
   since `r1` alone names nothing), `meta-` before `llama`, Databricks' `databricks-`, and
   Mistral's `open-` before `mistral`/`mixtral`.
3. Spelling of versions: Fireworks' `p` for a point (`v3p3`, `qwen2p5`) and `llama-v3` for
   `llama-3`; then the id is cut into words at `-` and `.` and where a name runs into a number
   (`llama3` → `llama 3`, but one letter and a number stay one word: `r1`, `v3`, `k2`, `8x7b`),
   so `llama3.3`, `llama-3-3`, `llama-3.3` and `Llama-3_3` are the same words.
4. Words that leave the weights as they are go, wherever they stand, and are the variant:
   - a precision (`fp8`, `fp8-dynamic`, `int4`, `bf16`, `awq`, …), anywhere after the first word;
   - the chat or instruct packaging (`instruct`, `chat`, `it`, `hf`) after a word with a digit
     (`70b-instruct`, `27b-it`; `deepseek-chat` stays: it names a model);
   - a host's serving tier (`turbo`, `fast`, `versatile`, `instant`, `basic`, `specdec`,
     `lite`, `free`, `tee`, `cloud`, `nitro`) and a context length written as a power of two
     (`-32768`), after a size or version word that is not a bare small number
     (`70b-versatile`, `r1-basic`, `0528-turbo`) or after another dropped word
     (`instruct-turbo`, `fp8-fast`): `gpt-4-turbo`, `gpt-3.5-turbo` and `grok-4-fast` keep the
     word, which names a model of its own there.
5. DeepSeek's R1 and V3 come in 671B only: `deepseek-r1-671b` is `deepseek-r1`.

The key is the remaining words joined by `-` (`llama-3-3-70b`). What stays apart: other sizes
(`70b`, `8b`), distillations and fine-tunes (`deepseek-r1-distill-llama-70b`,
`deepseek-llama3.3-70b`, `hermes-3-llama-3.1-405b`, `llama-3.3-70b-instruct-abliterated`),
dated or numbered releases (`deepseek-r1-0528`, `claude-3-5-sonnet-20241022`, `mistral-7b-v0.3`),
and models a word names (`-thinking` in an id, `-mini`, `-flash-lite`). models.dev's `family`
is not used: it names a line of models, not one model's weights, and spans sizes.
"""

from __future__ import annotations

import functools
import re
from typing import NamedTuple

from pipeline.normalize.model_ids import canonical_model

PRECISIONS = frozenset({"fp8", "fp4", "fp6", "fp16", "bf16", "fp32", "int4", "int8", "nvfp4",
                        "mxfp4", "awq", "gptq", "w4a16", "w8a8", "gguf"})
"""Words that say the precision weights are served at."""
QUANTIZED = frozenset(PRECISIONS - {"fp16", "bf16", "fp32"})
"""The precisions below the 16 bits open weights are published in."""
PACKAGING = frozenset({"instruct", "chat", "it", "hf"})
TOLD_PACKAGING = frozenset({"chat"})
"""The packaging words a page tells as a variant: a chat tuning beside a base model."""
SERVING = frozenset({"turbo", "fast", "versatile", "instant", "basic", "specdec", "free", "tee",
                     "cloud", "nitro"})
CONTEXTS = frozenset(str(2 ** n) for n in range(10, 18))
"""A context length written as a power of two (Groq's `llama2-70b-4096`); a date is none."""

_NUMBERED_PIN = re.compile(r"-\d+:\d+$")
"""Bedrock's version pin without its `v` (`openai.gpt-oss-120b-1:0`)."""
_COLON_SIZE = re.compile(r"\d+(\.\d+)?[bm](-cloud)?")
_DOTTED = re.compile(r"^([a-z]+|ai21)\.(?=.)")
_BARE_VERSION = re.compile(r"^[a-z]?\d")
_DASHED = re.compile(r"^(meta-(?=llama)|databricks-|open-(?=mi[sx]tral))")
_POINT = re.compile(r"(?<=\d)p(?=\d)")
_LLAMA_V = re.compile(r"\bllama-v(?=\d)")
_WORDS = re.compile(r"[-.]+")
_NAME_NUMBER = re.compile(r"(?<=[a-z]{2})(?=\d)")
_SIZE = re.compile(r"(\d+x)?\d+[bmk]|a\d+b|\d+e")
_ONLY_SIZE = re.compile(r"^(deepseek-(r1|v3(-\d)?))-671b\b")


class Identity(NamedTuple):
    key: str
    """The words that name the model's weights, joined by `-` (`llama-3-3-70b`)."""
    variant: tuple[str, ...]
    """The words dropped that say how this listing serves them, in the id's order
    (`("fp8", "fast")`); the packaging words (`instruct`) are dropped but not told."""


@functools.lru_cache(maxsize=65_536)  # the Market repeats ids across providers
def model_identity(model: str) -> Identity:
    """Return the identity key of a model id and the variant its listing serves (the module
    says the rule)."""
    name = canonical_model(_NUMBERED_PIN.sub("", model.strip()))
    base, *tags = name.split(":")
    tail: list[str] = []
    if len(tags) == 1 and _COLON_SIZE.fullmatch(tags[0]):
        base = f"{base}-{tags[0]}"
    elif tags and all(re.fullmatch(r"[a-z0-9]+", t) for t in tags):
        tail = tags
    else:
        base = name.replace(":", "-")
    maker = ""
    while match := _DOTTED.match(base):
        maker, base = match.group(1), base[match.end():]
    if maker and _BARE_VERSION.match(base):
        base = f"{maker}-{base}"
    base = _DASHED.sub("", _DASHED.sub("", base, count=1), count=1)
    base = _LLAMA_V.sub("llama-", _POINT.sub(".", base))
    words = [w for part in _WORDS.split(base) if part
             for w in ([part] if part in PRECISIONS else _NAME_NUMBER.split(part))]
    kept: list[str] = []
    variant: list[str] = []
    dropped = False  # whether the word before was dropped
    for i, word in enumerate(words):
        before = words[i - 1] if i else ""
        after_shape = dropped or _is_size(before)
        if i and (word in PRECISIONS or (word == "dynamic" and before in PRECISIONS)):
            variant.append(word)
        elif i and word in PACKAGING and after_shape:
            if word in TOLD_PACKAGING:
                variant.append(word)
        elif i and (word in SERVING or word in CONTEXTS) and (
                after_shape or _is_date(before) or (word == "basic" and _is_version(before))):
            variant.append(word)
        else:
            kept.append(word)
            dropped = False
            continue
        dropped = True
    if model.strip().casefold().endswith(":free"):  # gone from the canonical id
        tail.append("free")
    key = _ONLY_SIZE.sub(r"\1", "-".join(kept)) or name
    return Identity(key, (*variant, *tail))


def _is_size(word: str) -> bool:
    """Is `word` a size: parameters (`70b`, `8x7b`, `a22b` active, `5b` of `1.5b`), experts
    (`16e`) or a context (`4k` of `phi-3-mini-4k`)?"""
    return bool(_SIZE.fullmatch(word))


def _is_date(word: str) -> bool:
    """Is `word` a release date or number of four digits or more (`0528`, `2507`)?"""
    return word.isdigit() and len(word) >= 4


def _is_version(word: str) -> bool:
    """Is `word` a one-letter version (`r1`, `v3`)?"""
    return bool(re.fullmatch(r"[a-z]\d+", word))


def identity_key(model: str) -> str:
    """Return the identity key of a model id (model_identity)."""
    return model_identity(model).key


def variant_text(model: str) -> str:
    """Return a listing's variant for people: its words joined by `, ` (`fp8, fast`), empty
    when it serves the weights as published."""
    return ", ".join(model_identity(model).variant)
