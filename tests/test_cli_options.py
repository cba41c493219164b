"""The command line as a user meets it: every command's --help documents each of its options
and arguments and cites no tracker; an option name means one thing in every command; every
command, a new one too, turns a refusal into its paragraph and its kind's exit code."""

from __future__ import annotations

import sys
from collections import defaultdict
from collections.abc import Iterator
from typing import Any, NoReturn

import click
import pytest
from click.testing import CliRunner

from pbem.cli.shell import Group, PbemCommand, main
from pbem.errors import (
    BusyError,
    Exit,
    FormatError,
    RulesError,
    SignatureError,
    StaleError,
    StateError,
    TamperError,
    UndeliveredError,
    UnknownError,
)

COMMANDS = main.list_commands(click.Context(main))  # loads every command's module


def meaning(param: click.Option) -> tuple[Any, ...]:
    """What an option's value is: its type (a folder, a file, a count, a choice...), a flag or not,
    one value or one for each of several (``SEAT=VALUE``, repeated)."""
    kind = param.type
    return (type(kind).__name__, getattr(kind, "file_okay", None), getattr(kind, "dir_okay", None),
            tuple(getattr(kind, "choices", ())), param.is_flag, param.multiple)


def options() -> Iterator[tuple[str, click.Option]]:
    for name in COMMANDS:
        for param in main.commands[name].params:
            if isinstance(param, click.Option):
                yield name, param


def test_there_are_commands_to_check() -> None:
    assert len(COMMANDS) >= 26 and {"apply", "mail", "serve", "simulate", "tournament", "new"} <= set(COMMANDS)


@pytest.mark.parametrize("name", COMMANDS)
def test_each_commands_help_documents_every_option_and_argument_and_names_no_issue(name: str) -> None:
    command = main.commands[name]
    result = CliRunner().invoke(main, [name, "--help"])
    assert result.exit_code == 0, result.output
    assert "issue" not in result.output.lower(), result.output
    assert command.help, f"pbem {name} has no description"
    ctx = click.Context(command, info_name=name)
    for param in command.params:
        if isinstance(param, click.Option):
            assert param.help, f"pbem {name} {param.opts[0]} has no help text"
        elif isinstance(param, click.Argument):  # no help of its own: the description names it
            metavar = param.make_metavar(ctx).strip("[].")
            assert metavar in command.help, f"pbem {name}: its description does not say what {metavar} is"


def test_an_option_name_means_one_thing_in_every_command() -> None:
    """--games is the games folder everywhere (a count is --count), --players the seats' names
    (a number is --player-count), --lang the language a command writes in (a seat's is --seat-lang),
    --email one address and --key one key file (each seat's, in `pbem new`: --seat-email and
    --seat-key, SEAT=VALUE repeated)."""
    meanings: dict[str, dict[tuple[Any, ...], list[str]]] = defaultdict(lambda: defaultdict(list))
    for name, param in options():
        for opt in param.opts:
            meanings[opt][meaning(param)].append(name)
    several = {opt: dict(kinds) for opt, kinds in meanings.items() if len(kinds) > 1}
    assert not several, several
    assert {name for name, p in options() if "--games" in p.opts and p.type.name == "directory"} >= {
        "apply", "list", "mail", "serve", "show", "tick", "demo"}
    assert [name for name, p in options() if "--players" in p.opts] == ["new"]


def test_the_check_above_sees_two_meanings_of_one_name() -> None:
    count = click.Option(["--games"], type=click.IntRange(1, 10))
    folder = click.Option(["--games"], type=click.Path(file_okay=False))
    assert meaning(count) != meaning(folder)
    one = click.Option(["--email"])
    each = click.Option(["--email"], multiple=True, metavar="SEAT=ADDRESS")
    assert meaning(one) != meaning(each)


def test_mail_and_serve_share_one_declaration_of_the_transport_options() -> None:
    shared = ["--inbox", "--imap", "--folder", "--outbox", "--smtp", "--from"]
    for name in ("mail", "serve"):
        got = {p.opts[0]: p for p in main.commands[name].params if isinstance(p, click.Option)}
        assert set(shared) <= set(got)
    for opt in shared:
        mail = next(p for p in main.commands["mail"].params if isinstance(p, click.Option) and p.opts[0] == opt)
        serve = next(p for p in main.commands["serve"].params if isinstance(p, click.Option) and p.opts[0] == opt)
        assert (mail.help, mail.default, meaning(mail)) == (serve.help, serve.default, meaning(serve))


KINDS = [(FormatError, Exit.FORMAT), (RulesError, Exit.RULES), (StaleError, Exit.STALE),
         (UnknownError, Exit.UNKNOWN), (TamperError, Exit.TAMPERED), (SignatureError, Exit.SIGNATURE),
         (BusyError, Exit.BUSY), (StateError, Exit.STATE), (UndeliveredError, Exit.UNDELIVERED)]


def refused_with(command: click.Command, name: str, error: BaseException, capsys: pytest.CaptureFixture[str]
                 ) -> tuple[int, str]:
    """Run ``command`` with a body that raises ``error``: its exit code and what it said on stderr."""

    def body(**_: Any) -> NoReturn:
        raise error

    kept = command.callback
    command.callback = body
    try:
        with click.Context(command, info_name=name) as ctx, pytest.raises(SystemExit) as done:
            command.invoke(ctx)
    finally:
        command.callback = kept
    code = done.value.code
    assert isinstance(code, int)
    return code, capsys.readouterr().err


@pytest.mark.parametrize("name", COMMANDS)
def test_every_command_turns_a_refusal_into_its_paragraph_and_exit_code(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    command = main.commands[name]
    assert isinstance(command, PbemCommand)
    for kind, code in KINDS:
        got, said = refused_with(command, name, kind("the reason", "P7"), capsys)
        assert got == code and said == f"pbem: {kind('the reason', 'P7')}\n", (kind, got, said)
    got, said = refused_with(command, name, KeyError("oops"), capsys)
    assert got == Exit.INTERNAL and said.startswith("pbem: internal error (KeyError") and "Traceback" not in said


def test_a_command_added_later_gets_the_mapping_from_the_group() -> None:
    group = Group()

    @group.command()
    def later() -> None:
        """A command written after this test."""
        raise StaleError("written against entry 3, the log is at entry 5", "P7")

    result = CliRunner().invoke(group, ["later"])
    assert isinstance(group.commands["later"], PbemCommand)
    assert result.exit_code == Exit.STALE and "stale move (P7): written against entry 3" in result.stderr


def test_a_refusal_is_said_in_the_commands_language() -> None:
    result = CliRunner().invoke(main, ["show", "no-such-game", "--games", sys.prefix, "--lang", "hu"])
    english = CliRunner().invoke(main, ["show", "no-such-game", "--games", sys.prefix])
    assert result.exit_code == english.exit_code == Exit.UNKNOWN
    assert result.stderr.startswith("pbem: ") and result.stderr != english.stderr


def test_exit_codes_are_distinct_and_documented() -> None:
    from pathlib import Path

    assert len({int(code) for code in Exit}) == len(Exit)
    table = (Path(__file__).resolve().parent.parent / "docs" / "playing.md").read_text(encoding="utf-8")
    for code in Exit:
        assert f"| {int(code)} |" in table, f"docs/playing.md does not list exit code {int(code)} ({code.name})"


def test_the_help_lists_every_command_under_who_uses_it() -> None:
    """`pbem --help` groups the commands by who uses them (the module that declares each: players,
    the host, anyone reading a game, bots); a new command lands under one of them, not 'Other'."""
    from pbem.cli.shell import AUDIENCES

    for name in COMMANDS:
        module = main.commands[name].callback.__module__
        assert module in AUDIENCES, f"pbem {name} is declared in {module}, which names no audience"
    text = CliRunner().invoke(main, ["--help"]).output
    headings = [line[:-1] for line in text.splitlines() if line.endswith(":") and not line.startswith(" ")]
    assert headings[1:] == list(dict.fromkeys(AUDIENCES.values())), headings
    section = text[text.index("For players:"):text.index("For the host:")]
    assert "  check " in section and "  apply " not in section
    assert "Other commands" not in text


def test_a_host_command_loads_only_the_hosts_command_module() -> None:
    """`pbem apply` runs once for every mailed move, a fresh process: it does not pay for
    registering the players', readers' and bots' commands (bench/bench.py times it)."""
    import subprocess

    code = ("import sys; from pbem.cli import main; from click.testing import CliRunner; "
            "assert CliRunner().invoke(main, ['apply', '--help']).exit_code == 0; "
            "print(sorted(m for m in sys.modules if m.startswith('pbem.cli.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['pbem.cli.hosting', 'pbem.cli.shell']", out
