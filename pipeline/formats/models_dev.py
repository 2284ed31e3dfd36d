"""Read models.dev (anomalyco/models.dev): its published build, `api.json`, or the TOML files of
its repository put together as that build is.

`api.json` is an object of providers, each with its `models`; a model's `cost` holds USD per
million tokens (`input`, `output`, `cache_read`, `cache_write`, `reasoning`, `input_audio`,
`output_audio`), prices above a prompt size in `cost.tiers` (`tier = {size = 200_000}`: cliff
semantics, as ours) or, in older files, `cost.context_over_200k`, and its context window in
`limit.context`.

The repository keeps `providers/<provider>/provider.toml`, `providers/<provider>/models/<model
id>.toml` (the id may hold `/`) and `models/<maker>/<id>.toml`: metadata a provider's model file
takes through `base_model = "maker/id"`, merged under the file's own fields, then the dotted
paths of `base_model_omit` removed. Its first commit (2025-06-04) kept `<provider>/provider.toml`
at the root.
"""

from __future__ import annotations

import datetime as dt
import posixpath
import tomllib
from collections.abc import Mapping

from pipeline.formats.numbers import load_json
from pipeline.formats.price_map import (
    ImportedPrice,
    ImportResult,
    ModelFacts,
    band_start,
    context_window,
    price_value,
    without_bad_ids,
)
from pipeline.limits import MAX_USD_PER_MTOK, MIN_USD_PER_MTOK

_METERS = {"input": "input", "output": "output", "cache_read": "cached_input",
           "cache_write": "cache_write"}
_NOT_METERS = frozenset({"tiers", "context_over_200k"})
_LEGACY_BAND_TOKENS = 200_000
"""`cost.context_over_200k`: the prices above 200,000 prompt tokens."""
NO_PRICES = "model without token prices"

_METADATA_NOT_INHERITED = frozenset({"id", "benchmarks", "license", "links", "weights"})
"""Fields of a `models/<maker>/<id>.toml` a provider's model does not take from it (the
maker's facts about the weights, not the provider's listing)."""


def read_models_dev(data: bytes) -> ImportResult:
    """Return the token prices of every model of every provider in models.dev's api.json."""
    repeated: list[str] = []
    doc = load_json(data, repeated)
    if not isinstance(doc, dict):
        raise ValueError("not a models.dev api.json: expected a JSON object of providers")
    result = read_models_dev_doc(doc)
    result.repeated_keys = repeated
    return result


def read_models_dev_doc(doc: Mapping) -> ImportResult:
    """Return the token prices of every model in an api.json-shaped document (parsed JSON, or
    tree_document's), with each priced model's facts. (A catalogue's `skip_providers` are left
    out where every catalogue's are, ingest/catalogues.without_skipped.)"""
    if not isinstance(doc, Mapping):
        raise ValueError("not a models.dev document: expected an object of providers")
    result = ImportResult()
    dates: dict[object, dt.date | None] = {}
    for key, provider in doc.items():
        if not _is_table(provider):
            result.skipped["not a provider object"] += 1
            continue
        provider_id = str(key)
        models = provider.get("models")
        if models is None:
            continue
        if not _is_table(models):
            result.skipped["provider whose models are not an object"] += 1
            continue
        for model_key, model in models.items():
            if not _is_table(model):
                result.skipped["not a model object"] += 1
                continue
            _model(provider_id, str(model_key), model, result, dates)
    return without_bad_ids(result)


def _model(provider: str, model_id: str, model: Mapping, result: ImportResult,
           dates: dict[object, dt.date | None]) -> None:
    cost = model.get("cost")
    if not _is_table(cost):
        result.skipped[NO_PRICES] += 1
        return
    limit = model.get("limit")
    window = context_window(result, provider, model_id, "limit.context",
                            limit.get("context")) if _is_table(limit) else None
    found: list[ImportedPrice] = []
    _band(provider, model_id, cost, 0, "cost", window, result, found)
    tiers = cost.get("tiers")
    if tiers is not None:
        # api.json repeats a single tier of 200k or more as context_over_200k: tiers win.
        for i, tier in enumerate(tiers if isinstance(tiers, list) else [tiers]):
            where = f"cost.tiers.{i}" if isinstance(tiers, list) else "cost.tiers"
            above = _tier_tokens(provider, model_id, tier, where, result)
            if above is not None:
                _band(provider, model_id, tier, above, "cost.tiers", window, result, found)
    elif _is_table(over := cost.get("context_over_200k")):
        _band(provider, model_id, over, _LEGACY_BAND_TOKENS, "cost.context_over_200k", window,
              result, found)
    elif "context_over_200k" in cost and cost["context_over_200k"] is not None:
        result.unrepresented["cost.context_over_200k (not an object)"] += 1
    if "experimental" in model and _is_table(model["experimental"]):
        modes = model["experimental"].get("modes")
        for mode in modes.values() if isinstance(modes, Mapping) else ():
            if isinstance(mode, Mapping) and mode.get("cost") is not None:
                result.unrepresented["experimental.modes.*.cost (a mode's own prices)"] += 1
    if not found:
        result.skipped[NO_PRICES] += 1
        return
    result.models += 1
    result.prices += found
    result.facts.append(ModelFacts(
        provider, model_id, _text(model.get("name")), _text(model.get("family")),
        _date(model.get("release_date"), dates), _flag(model.get("open_weights")),
        _date(model.get("last_updated"), dates)))


def _band(provider: str, model: str, prices: Mapping, above: int, where: str,
          window: int | None, result: ImportResult, found: list[ImportedPrice]) -> None:
    for name, value in prices.items():
        meter = _METERS.get(name)
        if meter is None:
            if name not in _NOT_METERS and name != "tier" and value is not None:
                result.unrepresented[f"{where}.{name}"] += 1
            continue
        # A plain number in range without price_value's call: ~13,000 of them per api.json.
        kind = type(value)
        if (kind is float or kind is int) and (
                value == 0 or MIN_USD_PER_MTOK <= value <= MAX_USD_PER_MTOK):
            price: float | None = float(value)
        else:
            price = price_value(result, provider, model, f"{where}.{name}", value)
        if price is not None:
            found.append(ImportedPrice(provider, model, meter, price, above, entry=model,
                                       context_window_tokens=window))


def _tier_tokens(provider: str, model: str, tier: object, where: str,
                 result: ImportResult) -> int | None:
    """Return the prompt size a `cost.tiers` entry's prices apply above, or None (counted, or
    a size that is no number of tokens recorded in `result.invalid`)."""
    spec = tier.get("tier") if isinstance(tier, Mapping) else None
    if not isinstance(spec, Mapping):
        result.unrepresented["cost.tiers entry without a tier"] += 1
        return None
    if spec.get("type", "context") != "context":
        result.unrepresented[f"cost.tiers of type {str(spec.get('type'))[:40]}"] += 1
        return None
    size = spec.get("size")
    if size == 0 and not isinstance(size, bool):  # a band from the start is no band
        result.unrepresented["cost.tiers size (not a positive whole number)"] += 1
        return None
    return band_start(result, provider, model, f"{where}.tier.size", size)


def _is_table(value: object) -> bool:
    # dict first: the ABC's isinstance costs ~10x, and JSON and TOML give dicts.
    return isinstance(value, (dict, Mapping))


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _flag(value: object) -> bool | None:
    return value if isinstance(value, bool) else None


def _date(value: object, seen: dict[object, dt.date | None]) -> dt.date | None:
    """Return a full date (`2024-05-13`, or a TOML date), else None: `2024-05` (a month, which
    models.dev allows) is not a day, and anything else is not a date."""
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    if not isinstance(value, str):
        return None
    if value not in seen:
        try:
            seen[value] = dt.date.fromisoformat(value) if len(value) == 10 else None
        except ValueError:
            seen[value] = None
    return seen[value]


def toml_document(data: bytes) -> dict:
    """Return one TOML file of the repository as a dict; ValueError when it is not TOML."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"not TOML: not UTF-8 (byte {e.start})") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ValueError(f"not TOML: {e}") from None


def link_target(path: str, target: bytes) -> str | None:
    """Return the repository path a symbolic link at `path` points to (its blob's bytes are
    the relative target), or None when it leaves the repository or is not UTF-8. models.dev
    links a region's model files to another provider's (`alibaba-cn/models/x.toml` →
    `../../alibaba/models/x.toml`), and its build follows them: the caller puts the target's
    parsed file under the link's path."""
    try:
        text = target.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if not text or text.startswith("/"):
        return None
    resolved = posixpath.normpath(posixpath.join(posixpath.dirname(path), text))
    return None if resolved == ".." or resolved.startswith("../") else resolved


def tree_document(files: Mapping[str, object]) -> tuple[dict, list[tuple[str, str]]]:
    """Return the api.json-shaped document of the repository's parsed TOML files (keyed by
    their paths in the repository), and (path, why) of each model file it could not put
    together.

    Paths of neither layout, or not a provider's or a model's file, are left out. The
    document shares its models with `files`: read it, never change it. (A replay passes only
    the files of the providers a commit touched, so a commit merges what changed.)
    """
    new_layout = any(path.startswith("providers/") for path in files)
    providers: dict[str, dict] = {}
    bases: dict[str, object] = {}
    models: list[tuple[str, str, str, object]] = []
    for path, parsed in files.items():
        role = _role(path, new_layout)
        if role is None:
            continue
        kind, owner, name = role
        if kind == "base":
            bases[name] = parsed
        elif kind == "provider":
            doc = providers.setdefault(owner, {})
            if isinstance(parsed, Mapping):
                doc.update((k, v) for k, v in parsed.items() if k not in ("id", "models"))
        else:
            providers.setdefault(owner, {})
            models.append((path, owner, name, parsed))
    for owner, doc in providers.items():
        doc["id"] = owner
        doc["models"] = {}
    unresolved: list[tuple[str, str]] = []
    for path, owner, name, parsed in models:
        if not isinstance(parsed, Mapping):
            unresolved.append((path, "not a TOML table"))
            continue
        base_name = parsed.get("base_model")
        base = bases.get(base_name) if isinstance(base_name, str) else None
        if base_name is None:
            merged = dict(parsed)
        elif not isinstance(base, Mapping):
            why = (f"base_model {str(base_name)[:120]!r} not found" if base is None
                   else f"base_model {str(base_name)[:120]!r} is not a TOML table")
            unresolved.append((path, why))
            continue
        else:
            merged = _merged(base, parsed)
        _legacy_band(merged)
        merged["id"] = name
        providers[owner]["models"][name] = merged
    return providers, unresolved


def _role(path: str, new_layout: bool) -> tuple[str, str, str] | None:
    """Return (kind, provider, id) of a repository path: `provider`, `model` (a provider's
    model file) or `base` (`models/<maker>/<id>.toml`), or None for any other file."""
    if not path.endswith(".toml"):
        return None
    parts = path.split("/")
    if parts[0] == "models":
        return ("base", "", path[len("models/"):-len(".toml")]) if len(parts) >= 3 else None
    if new_layout:
        if parts[0] != "providers":
            return None
        parts = parts[1:]
    if len(parts) == 2 and parts[1] == "provider.toml":
        return "provider", parts[0], ""
    if len(parts) >= 3 and parts[1] == "models":
        return "model", parts[0], "/".join(parts[2:])[:-len(".toml")]
    return None


def _merged(base: Mapping, own: Mapping) -> dict:
    """Return a provider's model file over its base model's metadata, without the fields the
    file's `base_model_omit` names (a parent table left empty goes too)."""
    inherited = {k: v for k, v in base.items() if k not in _METADATA_NOT_INHERITED}
    overrides = {k: v for k, v in own.items() if k not in ("base_model", "base_model_omit")}
    merged = _deep_merge(inherited, overrides)
    omit = own.get("base_model_omit")
    for dotted in omit if isinstance(omit, list) else ():
        if isinstance(dotted, str):
            merged = _without(merged, dotted.split("."))
    return merged


def _deep_merge(under: Mapping, over: Mapping) -> dict:
    """Return `under` with `over`'s fields on top: tables merged field by field, anything else
    (a list too) replaced. New dicts only where both sides have a table: nothing is changed."""
    out = dict(under)
    for key, value in over.items():
        below = out.get(key)
        if isinstance(value, Mapping) and isinstance(below, Mapping):
            out[key] = _deep_merge(below, value)
        else:
            out[key] = value
    return out


def _without(table: dict, path: list[str]) -> dict:
    """Return `table` without the field at `path` (copies along the path, never changing a
    shared table), and without the tables the removal leaves empty; unchanged when the path
    is not there."""
    head, rest = path[0], path[1:]
    if head not in table:
        return table
    out = dict(table)
    if not rest:
        del out[head]
        return out
    inner = table[head]
    if not isinstance(inner, dict):
        return table
    smaller = _without(inner, rest)
    if smaller is inner:
        return table
    if smaller:
        out[head] = smaller
    else:
        del out[head]
    return out


def _legacy_band(model: dict) -> None:
    """Give a model with one context tier of 200k or more `cost.context_over_200k` as well, as
    the published build does (models.dev keeps the older field for its older readers)."""
    cost = model.get("cost")
    tiers = cost.get("tiers") if isinstance(cost, dict) else None
    if not isinstance(tiers, list) or len(tiers) != 1 or not isinstance(tiers[0], dict):
        return
    spec = tiers[0].get("tier")
    if (isinstance(spec, dict) and spec.get("type", "context") == "context"
            and isinstance(spec.get("size"), int) and spec["size"] >= _LEGACY_BAND_TOKENS):
        model["cost"] = {**cost, "context_over_200k": {
            k: v for k, v in tiers[0].items() if k != "tier"}}
