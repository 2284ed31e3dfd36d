"""The guides name only commands that exist: every `brief ...` that README.md and CONTRIBUTING.md
show (a `$ brief` line of a console block, a `.venv/bin/brief` line, a `brief ...` code span) is a
command of the CLI, with options it has and, where an argument is a choice, a value it takes; and
both guides give the same set-up."""

from __future__ import annotations

import re
import shlex

import click
import pytest
from conftest import REPO

from pipeline.cli.main import main

GUIDES = ("README.md", "CONTRIBUTING.md")

_LINE = re.compile(r"^\s*(?:\$ |\.venv/bin/)(brief(?: .*)?)$", re.MULTILINE)
_SPAN = re.compile(r"`(?:\.venv/bin/)?(brief(?: [^`]*)?)`")


def named_commands(text: str) -> list[str]:
    """Return every `brief ...` command line the text shows, comments after `#` cut off."""
    found = [m[1] for m in _LINE.finditer(text)] + [m[1] for m in _SPAN.finditer(text)]
    return [command.split("  #")[0].strip() for command in found]


def unknown_in(command_line: str) -> str | None:
    """Say what of `command_line` the CLI does not know, or None: a command, an option, a
    value of a choice. Upper-case words and `<...>` are placeholders (FILE, DATE, <id>)."""
    words = shlex.split(command_line)[1:]
    command: click.Command = main
    ctx = click.Context(main, info_name="brief")
    path = "brief"
    while isinstance(command, click.Group) and words and not words[0].startswith("-"):
        name = words.pop(0)
        sub = command.get_command(ctx, name)
        if sub is None:
            return f"`{path} {name}`: no such command"
        command, path = sub, f"{path} {name}"
        ctx = click.Context(command, info_name=name, parent=ctx)
    options = {opt: p for p in command.params if isinstance(p, click.Option)
               for opt in (*p.opts, *p.secondary_opts)}
    options.update(dict.fromkeys(ctx.help_option_names))
    arguments = [p for p in command.params if isinstance(p, click.Argument)]
    while words:
        word = words.pop(0)
        if word.startswith("-"):
            name = word.split("=")[0]
            if name not in options:
                return f"`{path}` has no option {name}"
            option = options[name]
            if option is not None and not option.is_flag and "=" not in word and words:
                words.pop(0)  # its value
            continue
        argument = arguments.pop(0) if arguments else None
        if argument is None:
            return f"`{path}` takes no argument {word!r}"
        placeholder = word.isupper() or word.startswith("<")
        if isinstance(argument.type, click.Choice) and not placeholder \
                and word not in argument.type.choices:
            return f"`{path}`: {word!r} is not one of {', '.join(argument.type.choices)}"
    return None


@pytest.mark.parametrize("guide", GUIDES)
def test_every_named_command_exists(guide: str) -> None:
    commands = named_commands((REPO / guide).read_text(encoding="utf-8"))
    assert len(commands) > 5
    assert [why for c in commands if (why := unknown_in(c))] == []


def test_the_check_catches_what_does_not_exist() -> None:
    assert unknown_in("brief check --strict --format github") is None
    assert unknown_in("brief new KIND") is None
    assert unknown_in("brief ingest prices --only <id> --file <copy> --at <time>") is None
    assert unknown_in("brief frobnicate") == "`brief frobnicate`: no such command"
    assert unknown_in("brief ingest nothing") == "`brief ingest nothing`: no such command"
    assert unknown_in("brief check --fast") == "`brief check` has no option --fast"
    assert unknown_in("brief new recipe") == (
        "`brief new`: 'recipe' is not one of benchmark, cost, entry, price, series")
    assert named_commands("run `brief check`, then\n$ brief new cost --date 2026-12-01\n"
                          ".venv/bin/brief send D --dry-run   # what would go where\n") == [
        "brief new cost --date 2026-12-01", "brief send D --dry-run", "brief check"]


def set_up(guide: str) -> list[str]:
    """Return the make targets a guide names, in order (`make site`, `make test`)."""
    return list(dict.fromkeys(re.findall(r"\bmake ([a-z]+)\b",
                                         (REPO / guide).read_text(encoding="utf-8"))))


def test_both_guides_give_the_same_set_up() -> None:
    # Issue 40: README said set up with `make site`, CONTRIBUTING with `make test`.
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    for guide in GUIDES:
        targets = set_up(guide)
        assert targets[:2] == ["site", "test"], f"{guide} names {targets}"
        assert all(re.search(rf"^{t}:", makefile, re.MULTILINE) for t in targets), targets


def table_commands(text: str) -> list[str]:
    """Return the command of each row of README's table of commands (its first cell)."""
    return re.findall(r"^\| `(brief[^`]*)` \|", text, re.MULTILINE)


def test_the_table_of_commands_gives_each_required_option() -> None:
    # Issue 52: the table said `brief hardware`, which refuses to run without --as-of.
    missing = []
    for line in table_commands((REPO / "README.md").read_text(encoding="utf-8")):
        words = shlex.split(line)[1:]
        command: click.Command = main
        ctx = click.Context(main, info_name="brief")
        while isinstance(command, click.Group) and words and not words[0].startswith("-"):
            command = command.get_command(ctx, words.pop(0))
            ctx = click.Context(command, parent=ctx)
        if isinstance(command, click.Group):
            continue  # a group's row (`brief ingest`) names no command to run
        missing += [f"{line}: {p.opts[0]}" for p in command.params
                    if isinstance(p, click.Option) and p.required and p.opts[0] not in words
                    and not p.envvar]  # `--host` may come from BRIEF_SMTP_HOST
    assert missing == []
    assert "brief hardware --as-of DATE" in table_commands(
        (REPO / "README.md").read_text(encoding="utf-8"))
