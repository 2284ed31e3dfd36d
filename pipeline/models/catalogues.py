"""Price catalogues: the public price maps we follow (`sources/catalogues.yaml`) and the state
ingest keeps of each (`sources/snapshots/prices/<id>.health.json`; the price history beside it
is a table, tables/catalogue_history.py)."""

from __future__ import annotations

import datetime as dt
import math
import re
from typing import Annotated, Literal

from pydantic import AfterValidator, Field, model_validator

from pipeline.models.base import SourceModel
from pipeline.models.entries import HttpUrl, Slug
from pipeline.models.ids import Id

CatalogueFormat = Literal["litellm", "genai-prices", "llm-prices", "models-dev"]


class Catalogue(SourceModel):
    """One public price catalogue we follow."""

    id: Slug
    """Stable id, lower-case with hyphens; names `snapshots/prices/<id>.csv`."""
    name: str = Field(min_length=1, max_length=120)
    """The catalogue as readers know it."""
    url: HttpUrl
    """Where its machine-readable file is fetched from."""
    page: HttpUrl
    """Where a reader can see the catalogue and its history (cited beside its prices)."""
    format: CatalogueFormat
    """How the file is read: `litellm` (model_prices_and_context_window.json),
    `genai-prices` (prices/new_data/v2/data.json), `llm-prices` (simonw/llm-prices'
    data/<vendor>.json files) or `models-dev` (models.dev's api.json, or its repository's
    TOML files)."""
    files: list[str] = Field(default=[], max_length=200)
    """For a catalogue published as several files (llm-prices: one per vendor): their names,
    each fetched from `url` (then a folder, ending in `/`) and read together as one snapshot.
    Empty: `url` is the one file."""
    licence: str = Field(min_length=1, max_length=60)
    """The data's licence (SPDX id), or `none` when the repository gives none."""
    attribution: str = Field(min_length=1, max_length=300)
    """The credit its licence asks for, as the site prints it."""
    use: Literal["published", "cross-check"]
    """`published`: its prices appear on the site; `cross-check`: only compared with others."""
    repository: HttpUrl | None = None
    """The git repository that keeps the catalogue's history (`https://github.com/owner/name`):
    `brief ingest prices --history` replays its commits, and each move links to
    `<repository>/commit/<sha>`."""
    history_files: list[str] = Field(default=[], max_length=20)
    """The paths in `repository` whose versions make one snapshot: for a one-file format, the
    files it was published as over time, the first present in a commit's tree read (newest
    layout first); for `models-dev`, the folders of its TOML files."""
    skip_providers: list[str] = Field(default=[], max_length=200)
    """The catalogue's provider ids (shell patterns) whose listings are not per-token prices
    (subscription plans, local runtimes): left out, and counted."""

    @model_validator(mode="after")
    def _files_in_a_folder(self) -> Catalogue:
        bad = [f for f in self.files if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", f)]
        if bad:
            raise ValueError(f"files must be plain file names: {', '.join(bad)}")
        if self.files and not str(self.url).endswith("/"):
            raise ValueError("with files, url is their folder and ends in /")
        return self

    @model_validator(mode="after")
    def _licensed_to_publish(self) -> Catalogue:
        if self.use == "published" and self.licence.lower() == "none":
            raise ValueError("a catalogue without a licence can only be used as a cross-check "
                             "(use: cross-check)")
        return self


class ConfirmedJump(SourceModel):
    """A price an editor checked at its source after it moved more than 20-fold: it is taken at
    once instead of being held back until the next snapshot shows it again."""

    catalogue: Slug
    provider: str = Field(min_length=1)
    """Our provider id."""
    model: Id
    meter: str = Field(min_length=1)
    usd_per_mtok: float = Field(ge=0)
    note: str = Field(min_length=1)
    """Where and when the editor confirmed it."""


class ConfirmedListing(SourceModel):
    """A listing an editor checked at its source although it is far from the model's other
    listings or above the ceiling: it is published instead of held back."""

    catalogue: Slug
    provider: str = Field(min_length=1)
    """Our provider id."""
    model: str = Field(min_length=1)
    """The model id as the catalogue spells it."""
    note: str = Field(min_length=1)
    """Where and when the editor confirmed it."""


class TrackedModel(SourceModel):
    """A model a curated file does not price that gets a page of its own: its price history
    from the catalogues."""

    provider: Slug
    """Our provider id (as the Market page shows it)."""
    model: Id
    """The model id as the catalogue spells it."""


def _model_pattern(pattern: str) -> str:
    """Refuse a pattern that can match no canonical id (normalize/model_ids.py): those are
    case-folded, with `-` for spaces, so an upper-case letter or a space means a slip."""
    if not pattern:
        raise ValueError("a pattern must not be empty")
    if pattern != pattern.casefold():
        raise ValueError(f"patterns match canonical model ids, which are lower-case: write "
                         f"{pattern.casefold()!r}")
    if any(c.isspace() for c in pattern):
        raise ValueError("patterns match canonical model ids, which hold no spaces (a space "
                         "becomes `-`)")
    return pattern


ModelPattern = Annotated[str, AfterValidator(_model_pattern)]
"""A shell pattern (`*`, `?`, `[...]`) of canonical model ids: `llama-3*`, `*.anthropic.claude-*`."""


class Billing(SourceModel):
    """Listings billed otherwise than by their token price (a SageMaker endpoint by the
    instance hour, a router at the model it picks): a zero there is not free, and a price
    there is not the model's."""

    catalogue_providers: list[str] = Field(default=[], max_length=200)
    """Shell patterns of a catalogue's own provider ids (LiteLLM's `sagemaker`)."""
    models: list[ModelPattern] = Field(default=[], max_length=200)
    """Shell patterns of canonical model ids (OpenRouter's `auto`)."""

    @model_validator(mode="after")
    def _some_pattern(self) -> Billing:
        if not (self.catalogue_providers or self.models):
            raise ValueError("a billing needs at least one pattern under catalogue_providers "
                             "or models")
        return self


class Maker(SourceModel):
    """A company that makes models: which canonical model ids are its models, and which of
    those it published the weights of."""

    models: list[ModelPattern] = Field(default=[], max_length=200)
    """Shell patterns of the canonical ids of its models whose weights are not published (or
    not known to be)."""
    open_weight: list[ModelPattern] = Field(default=[], max_length=200)
    """Shell patterns of the canonical ids of its models whose weights anyone can download from
    it, whatever their licence. A model matching one is this maker's too: it need not be
    repeated under `models`."""

    @model_validator(mode="after")
    def _some_pattern(self) -> Maker:
        if not (self.models or self.open_weight):
            raise ValueError("a maker needs at least one pattern under models or open_weight")
        return self


class CataloguesFile(SourceModel):
    """`sources/catalogues.yaml`: the catalogues we follow and our provider ids for theirs."""

    catalogues: list[Catalogue] = Field(default=[])
    providers: dict[str, Slug] = Field(default={})
    """A catalogue's provider id → ours, one id per company that sells (LiteLLM's `gemini` and
    `vertex_ai-language-models` are both `google`). Ids not listed become ours lower-cased,
    with `_` as `-`; the catalogue's own id is kept beside ours."""
    confirmed: list[ConfirmedJump] = Field(default=[])
    ceilings_usd_per_mtok: dict[str, float] = Field(default={"text": 1000.0})
    """Mode → the highest price per million tokens (any meter) a listing of that mode may have
    before it is held back as a likely unit slip (`text`: chat, completion and responses
    models)."""
    modes: dict[str, list[str]] = Field(default={})
    """Mode (`image`, `embedding`, `audio`, `rerank` …) → shell patterns of canonical model ids
    (normalize/model_ids.py) of that mode. A model no pattern matches is `text`. Only text
    models are ranked on the Market; the others are left out and counted there."""
    billing: dict[str, Billing] = Field(default={})
    """How a kind of listing is billed when not per token, as the Market page says it
    (`billed per instance hour`) → which listings. They are left out of the Market, its
    calculator, the rankings and the index, and counted there."""
    confirmed_listings: list[ConfirmedListing] = Field(default=[])
    """Listings an editor checked that stay published though they look implausible."""
    track: list[TrackedModel] = Field(default=[])
    """Models with a page of their own besides those the curated files price."""
    makers: dict[Slug, Maker] = Field(default={})
    """Our provider id of a model's maker (`openai`, `meta`, `alibaba`) → the patterns of its
    models (normalize/makers.py). A listing whose seller is the maker is a first-party one; a
    model matching no maker's patterns has no known maker. One model must not match two
    makers (`brief check` says which)."""

    @model_validator(mode="after")
    def _unique_ids(self) -> CataloguesFile:
        ids = [c.id for c in self.catalogues]
        doubled = sorted({i for i in ids if ids.count(i) > 1})
        if doubled:
            raise ValueError(f"catalogue ids must be unique: {', '.join(doubled)}")
        bad = sorted(m for m, v in self.ceilings_usd_per_mtok.items()
                     if not (math.isfinite(v) and v > 0))
        if bad:
            raise ValueError(f"ceilings_usd_per_mtok must be finite and above zero: {', '.join(bad)}")
        return self


class HeldPrice(SourceModel):
    """A price that moved more than 20-fold, held back until a second snapshot shows it."""

    key: list[str]
    """The price's key in the history (provider, catalogue provider, model, meter, lifetime,
    band, mode, window, from, to), as text."""
    usd_per_mtok: float = Field(ge=0)
    was_usd_per_mtok: float = Field(ge=0)
    first_seen: dt.datetime
    """The snapshot that first showed it."""
    snapshot_sha256: str = ""
    """The digest of that snapshot's bytes: the same bytes fetched again (from a server without
    validators) do not confirm it, only a snapshot whose content differs."""


class CatalogueHealth(SourceModel):
    """How the fetches of one catalogue went: the only file a run without price changes
    touches."""

    catalogue_id: Slug
    url: str
    last_attempt: dt.datetime | None = None
    last_success: dt.datetime | None = None
    """The last run that read a whole, valid catalogue (changed or not)."""
    status: int | None = None
    consecutive_failures: int = Field(default=0, ge=0)
    last_error: str | None = None
    etag: str | None = None
    last_modified: str | None = None
    checked: dt.date | None = None
    """The catalogue's own date at the last success (its file's, else the server's)."""
    whole_since: dt.datetime | None = None
    """The first snapshot of the whole catalogue: prices first seen then are where its history
    starts, not new prices (a history may begin with a few models, replayed from elsewhere)."""
    prices: int = Field(default=0, ge=0)
    """Prices in force after the last success."""
    held: list[HeldPrice] = Field(default=[])
    problems: list[str] = Field(default=[])
    """What the last success found wrong (a jump held back), for people."""
