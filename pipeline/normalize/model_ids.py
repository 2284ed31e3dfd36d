"""Pure: one id for a model however each provider and catalogue spells it, and which kind of
model (text, image, embedding, …) an id names.

The canonical id is the rule that groups a model's listings across providers: the last part of
the path (`deepseek-ai/DeepSeek-R1-0528`, `accounts/fireworks/models/deepseek-r1-0528` and
`deepseek/deepseek-r1-0528` are all `deepseek-r1-0528`), case-folded, with `_` and spaces as
`-`, without a version pin (`@20240620`, Bedrock's `-v1:0`) or a host's packaging suffix
(Vertex AI's `-maas`, OpenRouter's `:free`). Distillations, quantizations and sizes keep their
own ids: they are other models at other prices.
"""

from __future__ import annotations

import fnmatch
import functools
import re
from collections.abc import Mapping, Sequence

from pipeline.models.catalogues import Billing

_VERSION_PIN = re.compile(r"(@[^/]*|-v\d+(:\d+)?|:\d+)$")
_HOST_SUFFIX = re.compile(r"(-maas|:free|:beta)$")

TEXT = "text"
"""The mode of a model priced per token for text generation (chat, completion, responses):
the only one the Market ranks."""


@functools.lru_cache(maxsize=65_536)  # a catalogue repeats each id once per meter and period
def canonical_model(model: str) -> str:
    """Return the id that groups a model's listings across providers (the module says how)."""
    name = model.strip().rsplit("/", 1)[-1].casefold().replace("_", "-").replace(" ", "-")
    name = _HOST_SUFFIX.sub("", name)
    return _VERSION_PIN.sub("", name) or model.casefold()


def other_billing(catalogue_provider: str, model: str,
                  billing: Mapping[str, Billing]) -> str:
    """Return how a listing is billed when not per token: the first of `billing` (as
    `sources/catalogues.yaml` lists it) whose catalogue provider patterns match the catalogue's
    own provider id or whose model patterns match the canonical id; empty when per token."""
    name = canonical_model(model)
    for how, rule in billing.items():
        if (any(fnmatch.fnmatchcase(catalogue_provider.casefold(), p.casefold())
                for p in rule.catalogue_providers)
                or any(fnmatch.fnmatchcase(name, p) for p in rule.models)):
            return how
    return ""


def model_mode(model: str, modes: Mapping[str, Sequence[str]]) -> str:
    """Return the mode of a model id: the first of `modes` (mode → shell patterns, matched
    case-folded against the canonical id, as `sources/catalogues.yaml` lists them) that
    matches, else TEXT. Catalogues label some image models as chat (LiteLLM's Fireworks
    `flux-1-dev`), so the editors' patterns decide, not the catalogue's label."""
    return _mode(canonical_model(model), tuple((m, tuple(p)) for m, p in modes.items()))


@functools.lru_cache(maxsize=65_536)
def _mode(name: str, modes: tuple[tuple[str, tuple[str, ...]], ...]) -> str:
    for mode, pattern in _compiled(modes):
        if pattern.match(name):
            return mode
    return TEXT


@functools.lru_cache(maxsize=16)
def _compiled(modes: tuple[tuple[str, tuple[str, ...]], ...]) -> list[tuple[str, re.Pattern]]:
    """Return each mode with one expression for all its patterns (fnmatch's translation)."""
    return [(mode, re.compile("|".join(fnmatch.translate(p.casefold()) for p in patterns)))
            for mode, patterns in modes if patterns]
