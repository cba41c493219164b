"""The command line's shell: the ``pbem`` group, its shared options, and turning a refusal into
one paragraph and an exit code (:class:`pbem.errors.Exit`).

Commands import what they need inside their bodies, for start-up speed: a
``pbem apply`` never loads the mail or the audit code.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from pbem import __version__
from pbem.errors import Exit, FormatError, PbemError
from pbem.i18n import LANGS, Msg

if TYPE_CHECKING:
    from pbem.host.step import Applied

class PbemCommand(click.Command):
    """A pbem command: a refusal (:class:`pbem.errors.PbemError`) becomes one paragraph on stderr
    and its kind's exit code, and an unexpected failure says so without a traceback.  The
    ``pbem`` group makes every command of this class (``Group.command_class``), so a new command
    cannot forget it (tests/test_cli_options.py)."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except PbemError as err:
            click.echo(f"pbem: {_said(err, ctx.params.get('lang'))}", err=True)
            sys.exit(int(err.exit_code))
        except BrokenPipeError:  # `pbem show | head`: the reader left; not an error of ours
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            sys.exit(0)
        except KeyboardInterrupt:
            click.echo("pbem: interrupted; no file was changed by the unfinished step", err=True)
            sys.exit(130)
        except (click.exceptions.Exit, click.ClickException, click.Abort, SystemExit):
            raise
        except Exception as err:  # a bug in pbem: say so plainly, no traceback for players
            if os.environ.get("PBEM_DEBUG"):
                raise
            click.echo(
                f"pbem: internal error ({type(err).__name__}: {err}). "
                "Please report this with the input that caused it (PBEM_DEBUG=1 shows details).",
                err=True,
            )
            sys.exit(int(Exit.INTERNAL))


AUDIENCES = {
    "pbem.cli.playing": "For players",
    "pbem.cli.hosting": "For the host",
    "pbem.cli.publishing": "For the host",
    "pbem.cli.reading": "For anyone: read and check a game",
    "pbem.cli.bots": "Bots and practice",
}
"""Who uses a command, by the module that declares it (ARCHITECTURE.md: one module per kind of
user): ``pbem --help`` lists the commands under these headings, in this order."""


LOADING = ("pbem.cli.hosting", *(module for module in AUDIENCES if module != "pbem.cli.hosting"))
"""The modules of :data:`AUDIENCES` in the order a command is looked for: a command loads only
the modules up to its own (the host's first: ``pbem apply`` runs for every mailed move, a fresh
process whose start-up is most of its cost), the help and the command list load them all."""


class Group(click.Group):
    """The ``pbem`` group: each of its commands is a :class:`PbemCommand`; its help lists them by
    who uses them (:data:`AUDIENCES`).  Its commands are registered by the modules of
    :data:`LOADING` as they are imported, when a command is first looked for."""

    command_class = PbemCommand

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        for module in LOADING:
            if cmd_name in self.commands:
                break
            __import__(module)  # the import statement's path: `python -X importtime` times it
        return super().get_command(ctx, cmd_name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        for module in LOADING:
            __import__(module)
        return super().list_commands(ctx)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        sections: dict[str, list[tuple[str, str]]] = {heading: [] for heading in AUDIENCES.values()}
        names = self.list_commands(ctx)
        width = max((len(name) for name in names), default=0)  # one column for every section
        limit = formatter.width - 6 - width
        for name in names:
            command = self.get_command(ctx, name)
            if command is None or command.hidden:
                continue
            module = getattr(command.callback, "__module__", "")
            sections.setdefault(AUDIENCES.get(module, "Other commands"), []).append(
                (name.ljust(width), command.get_short_help_str(limit)))
        for heading, rows in sections.items():
            if rows:
                with formatter.section(heading):
                    formatter.write_dl(rows)


def _said(err: PbemError, lang: Any) -> str:
    """A refusal's paragraph, in the language of the command's ``--lang``."""
    if lang not in LANGS or lang == "en":  # a command without --lang, or English
        return str(err)
    from pbem.i18n import error_text  # lazily: only a refusal in another language needs it (start-up)

    return error_text(err, lang)


lang_option = click.option(
    "--lang", "lang", type=click.Choice(LANGS), default="en", show_default=True,
    help="The language to write in: en, hu (magyar), el (ελληνικά), uk (українська); the log, "
         "the notation's keywords and the commands stay as they are.",
)

games_option = click.option(
    "--games",
    "games",
    type=click.Path(file_okay=False, path_type=Path),
    envvar="PBEM_GAMES",
    default=".",
    show_default="$PBEM_GAMES, else the current directory",
    help="The folder holding one directory per game.",
)


force_option = click.option("--force", is_flag=True, help="Overwrite the output file if it exists.")


def game_log(games: Path, game: str) -> tuple[Path, Path]:
    """A command's GAME: a game's id under ``games``, or the path of a log file (a mailed
    ``log.yaml``); returns the log file and the folder beside it (its private files, if any)."""
    given = Path(game)
    if given.is_file():
        return given, given.parent
    from pbem.host.games import game_dir
    from pbem.log.logfile import LOG_NAME

    folder = game_dir(games, game)
    return folder / LOG_NAME, folder


def writable(out: Path, force: bool) -> None:
    """Refuse to overwrite ``out`` unless ``--force``, or to write into a missing folder."""
    from pbem.errors import StateError, UnknownError

    if out.exists() and not force:
        raise StateError(Msg("{out} exists; pbem does not overwrite files (add --force to replace it)", out=str(out)),
                         "P7")
    if not out.parent.is_dir():
        raise UnknownError(Msg("cannot write {out}: the folder {folder} does not exist", out=str(out),
                           folder=str(out.parent)), "P7")


@click.group(cls=Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="pbem")
def main() -> None:
    """Play Rattus by email, with a log anyone can verify (see README.md)."""



def _is_mail(path: Path) -> bool:
    if path.suffix.lower() == ".eml":
        return True
    try:
        with path.open("rb") as handle:
            head = handle.read(4096)
    except OSError:
        return False  # read_move says what is wrong
    if not head[:1].isalpha() or b":" not in head.split(b"\n", 1)[0]:
        return False
    if not re.search(rb"(?im)^from:", head):  # no From: header, no mail: spare importing email
        return False
    from pbem.mail.message import looks_like_mail

    return looks_like_mail(path.name, head)


def _pairs(items: tuple[str, ...], option: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items:
        player, sep, value = item.partition("=")
        if not sep or not player.strip() or not value.strip():
            raise FormatError(Msg("{option} {item}: write {option} PLAYER=VALUE", option=option, item=repr(item)))
        if player.strip() in out:
            raise FormatError(Msg("{option}: {player} is given twice", option=option, player=player.strip()))
        out[player.strip()] = value.strip()
    return out


def _report(applied: Applied) -> None:
    from pbem.views.report import report_lines  # shared with the mail host (pbem/mail/replies.py)

    for line in report_lines(applied.game, applied.entries, applied.private):
        click.echo(line)


