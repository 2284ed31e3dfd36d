"""CLI commands of the prices lane: `brief import …`, `brief ingest fx` and `brief ingest prices`.

`pipeline.cli.main` calls `register(main)`; these functions are the only place in the lane that
prints or exits.
"""

from __future__ import annotations

import datetime as dt
import importlib
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click

from pipeline.cli.terminal import ALLOW_NETWORK, ROOT, failed, print_problems, reports_errors
from pipeline.ingest.fx import ECB_HISTORY_URL
from pipeline.paths import CATALOGUES, PRICES

if TYPE_CHECKING:
    from collections.abc import Mapping

    import pandas as pd

    from pipeline.formats.price_map import ImportResult
    from pipeline.models.catalogues import Catalogue, CatalogueHealth, CataloguesFile

# Each reader by module and name, imported when its command runs: `brief` imports this module to
# register the commands, and `brief build` of an unchanged site must not pay for httpx and YAML.
READERS: dict[str, tuple[str, str]] = {
    "litellm": ("pipeline.formats.litellm:read_litellm",
                "https://github.com/BerriAI/litellm/blob/main/model_prices_and_context_window.json"),
    "llm-prices": ("pipeline.formats.llm_prices:read_llm_prices",
                   "https://github.com/simonw/llm-prices/tree/main/data"),
    "genai-prices": ("pipeline.formats.genai_prices:read_genai_prices",
                     "https://github.com/pydantic/genai-prices/tree/main/prices/providers"),
    "models-dev": ("pipeline.formats.models_dev:read_models_dev", "https://models.dev/api.json"),
}
# What --since means for each map: the date it stands for is the start of the prices it leaves
# undated and the checked date of those it gives none for (formats/price_map.py), and each map
# leaves different ones undated.
SINCE_HELP: dict[str, str] = {
    "litellm": "The day the map was published: the start and checked date of every price. Needed "
               "for LiteLLM's own file, which gives none; a mirror's last_updated is the default.",
    "llm-prices": "The day the files were read: the checked date of every price, which llm-prices "
                  "does not give (it dates each price's start), and the start of a price without "
                  "from_date. Needed.",
    "genai-prices": "The checked date of the models without prices_checked and the start of the "
                    "prices without a start_date. Default: the newest prices_checked in the file.",
    "models-dev": "The day api.json was read: the start and checked date of every price, which "
                  "models.dev does not date. Needed.",
}


def _import_command(fmt: str) -> click.Command:
    reader_name, default_url = READERS[fmt]

    @click.command(name=fmt, help=f"Import a {fmt} price map into sources/prices/ "
                   "(one USD list per provider), or print it with --dry-run.")
    @click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
    @click.option("--dry-run", is_flag=True, help="Print the table; write nothing.")
    @click.option("--out", type=click.Path(file_okay=False, path_type=Path),
                  default=PRICES, show_default=True,
                  help="Folder to write <provider>.yaml files into.")
    @click.option("--since", type=click.DateTime(["%Y-%m-%d"]), default=None, help=SINCE_HELP[fmt])
    @click.option("--source-url", default=default_url, show_default=True,
                  help="Where the map was read from, recorded on every record.")
    @click.option("--force", is_flag=True, help="Overwrite existing provider files.")
    @ROOT
    @reports_errors
    def command(file: Path, dry_run: bool, out: Path, since: dt.datetime | None,
                source_url: str, force: bool, root: Path) -> None:
        import yaml

        from pipeline.formats.price_map import provider_documents
        from pipeline.load.catalogues import load_catalogues_file
        from pipeline.load.yaml_lines import dump_yaml
        from pipeline.normalize.providers import our_provider

        module, name = reader_name.split(":")
        reader = getattr(importlib.import_module(module), name)
        try:
            result = reader(file.read_bytes())
        except (ValueError, KeyError, TypeError, AttributeError, yaml.YAMLError) as err:
            raise click.ClickException(f"{file}: not a {fmt} price map ({err})") from None
        except RecursionError:
            # json and YAML read nesting by recursion: a file nested thousands deep ends it.
            raise click.ClickException(f"{file}: not a {fmt} price map (nested too deeply to "
                                       "read)") from None
        if dry_run:
            click.echo("provider\tmodel\tmeter\tusd_per_mtok\tcontext_above_tokens\tmode\t"
                       "window_utc\tfrom\tto")
            for p in result.prices:
                window = f"{p.window_utc[0]:%H:%M}-{p.window_utc[1]:%H:%M}" if p.window_utc else ""
                click.echo(f"{p.provider}\t{p.model}\t{p.meter}"
                           f"{f'_{p.ttl_minutes}m' if p.ttl_minutes else ''}\t"
                           f"{p.usd_per_mtok:g}\t{p.context_above_tokens}\t{p.mode}\t{window}\t"
                           f"{p.from_date or ''}\t{p.to_date or ''}")
        else:
            dated = since.date() if since else result.dated
            if dated is None:
                raise click.ClickException(f"{file} gives no date of its own: pass --since with "
                                           "the day the map was published")
            catalogues, problems = load_catalogues_file(root)
            print_problems(problems)
            if any(p.severity == "error" for p in problems):
                raise failed()
            providers = catalogues.providers if catalogues else {}
            _hold_back_implausible(result, root, catalogues, dated)
            _one_spelling_per_page(result, lambda theirs: our_provider(theirs, providers))
            docs = provider_documents(result, source_url, dated,
                                      lambda theirs: our_provider(theirs, providers))
            clashes = [out / f"{name}.yaml" for name in docs if (out / f"{name}.yaml").exists()]
            if clashes and not force:
                raise click.ClickException(
                    f"{len(clashes)} provider file(s) exist ({', '.join(map(str, clashes[:5]))}"
                    f"{' …' if len(clashes) > 5 else ''}); pass --force to overwrite or --out "
                    "to write elsewhere")
            out.mkdir(parents=True, exist_ok=True)
            for name, doc in docs.items():
                (out / f"{name}.yaml").write_text(
                    dump_yaml(doc), encoding="utf-8")
            click.echo(f"wrote {len(docs)} provider file(s) to {out}")
        _report(result, err=dry_run)

    return command


def _hold_back_implausible(result: ImportResult, root: Path, catalogues: CataloguesFile | None,
                           dated: dt.date) -> None:
    """Leave out of `result` the listings that the repository's market holds back as
    implausible (tables/plausibility.py), and say which: `brief check` would refuse them in a
    curated file (W&B's per-Mtok figures in LiteLLM's per-token fields, say)."""
    from pipeline.load.price_histories import load_histories
    from pipeline.models.catalogues import CataloguesFile
    from pipeline.tables.catalogue_history import snapshot_table
    from pipeline.tables.plausibility import plausible_histories

    catalogues = catalogues or CataloguesFile()
    table = snapshot_table(result.prices, catalogues.providers, dated).assign(
        first_seen=dated.isoformat(), gone_seen="")
    histories, _problems = load_histories(root, catalogues)
    held = plausible_histories({**histories, "": table}, catalogues).held
    held = held[held["catalogue"] == ""].drop_duplicates(["catalogue_provider", "model"])
    drop = set(zip(held["catalogue_provider"], held["model"], strict=True))
    result.prices = [p for p in result.prices if (p.provider, p.model) not in drop]
    for r in held.itertuples():
        result.skipped[f"held back as implausible: {r.catalogue_provider} {r.model} ({r.cause})"] += 1


def _one_spelling_per_page(result: ImportResult, ours: Callable[[str], str]) -> None:
    """Leave out of `result` a model whose page an earlier model of the same provider takes (a
    map listing one model under two spellings: LiteLLM's `anthropic/claude-3-5-sonnet` and
    `anthropic/claude-3.5-sonnet` at Vercel's gateway), and say which: `brief check` refuses two
    ids of a curated file that share a page (load/page_names.py). The map's first one stays."""
    from pipeline.compose.model_pages import model_slug

    first: dict[str, str] = {}
    kept, left_out = [], {}
    for price in result.prices:
        page = model_slug(ours(price.provider), price.model)
        if first.setdefault(page, price.model) == price.model:
            kept.append(price)
        else:
            left_out[(price.provider, price.model)] = first[page]
    result.prices = kept
    for (provider, model), other in left_out.items():  # one line a model, not a meter
        result.skipped[f"another spelling of a model imported already (one page for both): "
                       f"{provider} {model}, as {other}"] += 1


def _report(result: ImportResult, err: bool) -> None:
    click.echo(f"read {result.models} models, {len(result.prices)} prices", err=err)
    for what, count in sorted(result.unrepresented.items(), key=lambda kv: (-kv[1], kv[0])):
        click.echo(f"  not representable: {what}: {count}", err=err)
    for why, count in sorted(result.skipped.items(), key=lambda kv: (-kv[1], kv[0])):
        click.echo(f"  skipped: {why}: {count}", err=err)


@click.command(name="fx")
@click.option("--url", default=ECB_HISTORY_URL, show_default=True,
              help="The ECB reference-rate history zip.")
@ROOT
@reports_errors
def ingest_fx(url: str, root: Path) -> None:
    """Refresh the ECB reference rates into sources/snapshots/fx/ (the build prefers them)."""
    import httpx

    from pipeline.formats.ecb import EcbFormatError
    from pipeline.ingest.fx import fetch_ecb_history

    try:
        path = fetch_ecb_history(root, url=url)
    except httpx.HTTPError as err:
        raise click.ClickException(f"could not download {url}: {err}; the old snapshot, if "
                                   "any, is kept") from None
    except EcbFormatError as err:
        raise click.ClickException(f"{url} did not give the ECB history: {err}") from None
    click.echo(f"wrote {path}")


@click.command(name="prices")
@ROOT
@click.option("--only", multiple=True, metavar="CATALOGUE_ID", help="Fetch only these catalogues.")
@click.option("--strict", is_flag=True,
              help="Exit 1 when any catalogue fails or holds listings back as implausible.")
@ALLOW_NETWORK
@click.option("--file", "copy", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Read this copy of the catalogue instead of fetching it (one --only).")
@click.option("--at", type=click.DateTime(["%Y-%m-%dT%H:%M%z", "%Y-%m-%dT%H:%M:%S%z"]),
              default=None, help="When --file was published, as 2026-07-24T18:23+00:00 "
                                 "[default: now].")
@click.option("--history", "git_dir", type=click.Path(path_type=Path), default=None,
              metavar="GIT_DIR",
              help="Replay the commits of this clone of the catalogue's repository (one --only) "
                   "into its history instead of fetching: each version its main line published, "
                   "oldest first, after the last commit already replayed.")
@reports_errors
def ingest_prices(root: Path, only: tuple[str, ...], strict: bool, allowed: tuple[str, ...],
                  copy: Path | None, at: dt.datetime | None, git_dir: Path | None) -> None:
    """Fetch the price catalogues in sources/catalogues.yaml and update their histories in
    sources/snapshots/prices/."""
    from pipeline.ingest.catalogues import ingest_file
    from pipeline.ingest.catalogues import ingest_prices as run_ingest
    from pipeline.ingest.http import FetchSettings
    from pipeline.load.price_histories import load_catalogues

    catalogues, histories, healths, problems = load_catalogues(root)
    print_problems(problems)
    if any(p.severity == "error" for p in problems):
        raise failed()
    if catalogues is None:
        raise click.ClickException(f"no {CATALOGUES.as_posix()}: there are no catalogues to read")
    unknown = sorted(set(only) - {c.id for c in catalogues.catalogues})
    if unknown:
        raise click.BadParameter(f"no catalogue with id {', '.join(unknown)}", param_hint="--only")
    now = (at.astimezone(dt.UTC) if at else dt.datetime.now(dt.UTC)).replace(second=0,
                                                                              microsecond=0)
    if git_dir is not None:
        if len(only) != 1 or copy is not None:
            raise click.BadParameter("name the catalogue whose repository it is with one --only "
                                     "(and no --file)", param_hint="--history")
        (catalogue,) = [c for c in catalogues.catalogues if c.id == only[0]]
        _replay(root, catalogues, catalogue, git_dir, histories, healths.get(catalogue.id))
        return
    if copy is not None:
        if len(only) != 1:
            raise click.BadParameter("name the catalogue it is a copy of with one --only",
                                     param_hint="--file")
        (catalogue,) = [c for c in catalogues.catalogues if c.id == only[0]]
        runs = [ingest_file(root, catalogues, catalogue, copy.read_bytes(), histories,
                            healths.get(catalogue.id), at=now)]
    else:
        runs = run_ingest(root, catalogues, histories, healths, now=now,
                          settings=FetchSettings(allowed_networks=allowed), only=only)
    for run in runs:
        click.echo(f"{'ok ' if run.ok else 'ERR'} {run.catalogue_id}: {run.message} "
                   f"({run.seconds:.1f} s)", err=True)
    bad = [r for r in runs if not r.ok]
    click.echo(f"{len(runs)} catalogues: {len(runs) - len(bad)} ok, {len(bad)} failed", err=True)
    if strict and (bad or any(r.implausible_listings for r in runs)):
        raise failed()


def _replay(root: Path, catalogues: CataloguesFile, catalogue: Catalogue, git_dir: Path,
            histories: Mapping[str, pd.DataFrame], health: CatalogueHealth | None) -> None:
    """Replay a catalogue's repository and say what it gave."""
    from pipeline.ingest.replay import ReplayRefused, replay_history

    try:
        run = replay_history(root, catalogues, catalogue, git_dir, histories, health)
    except ReplayRefused as err:
        raise click.ClickException(str(err)) from None
    for note in run.notes:
        click.echo(f"note: {note}", err=True)
    reasons = Counter(reason.split(":")[0] for _c, _f, reason in run.unreadable)
    click.echo(f"ok  {catalogue.id}: {run.commits:,} commits read, {run.moves:,} moves, "
               f"{run.prices:,} prices in force; {len(run.unreadable):,} versions or files not "
               f"read ({run.seconds:.1f} s)", err=True)
    for reason, count in reasons.most_common():
        click.echo(f"    {count:,} × {reason}", err=True)


def register(group: click.Group) -> None:
    """Add `import litellm|llm-prices|genai-prices|models-dev` and `ingest fx` to the main
    command group."""
    importer = group.commands.get("import")
    if not isinstance(importer, click.Group):
        importer = click.Group(name="import", help="Import public price maps into sources/prices/.")
        group.add_command(importer)
    for fmt in READERS:
        importer.add_command(_import_command(fmt))
    ingest = group.commands.get("ingest")
    if not isinstance(ingest, click.Group):
        ingest = click.Group(name="ingest", help="Fetch what the build needs into sources/snapshots/.")
        group.add_command(ingest)
    ingest.add_command(ingest_fx)
    ingest.add_command(ingest_prices)
