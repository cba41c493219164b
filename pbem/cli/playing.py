"""A player's commands: the nonce of the opening, templates, checking and signing a move, keys.

(Imports inside command bodies are for start-up speed.)
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from pbem.cli.shell import force_option, game_log, games_option, lang_option, main, writable
from pbem.errors import FormatError, StateError, TamperError, UnknownError
from pbem.i18n import LANGS, Msg


@main.command()
@click.argument("game_id", metavar="GAME")
@click.option("--player", required=True, help="Your seat.")
@click.option("--reveal", "reveal_it", is_flag=True, help="Round 2: write the move revealing the kept nonce.")
@click.option("--from-words", "from_words", is_flag=True,
              help="Make the secret number from secret words you type (5 or more, nobody could guess them) and a "
                   "code of 80 random bits it shows you: keep both; after the game they prove the number was yours "
                   "(docs/fairplay.md). With --reveal: the words and the code again (on any device).")
@click.option("--code", metavar="CODE", help="With --reveal --from-words: the code you wrote down in round 1 "
                                             "(else it is asked for; empty: a game opened before codes).")
@click.option("--keep", type=click.Path(dir_okay=False, path_type=Path),
              help="Where the nonce is kept (default: ./nonce-GAME-PLAYER.yaml, mode 0600).")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), help="Write the move here, not stdout.")
@lang_option
@games_option
def nonce(game_id: str, player: str, reveal_it: bool, from_words: bool, code: str | None, keep: Path | None,
          out: Path | None, lang: str, games: Path) -> None:
    """A player's nonce (P4) for GAME: make and keep one and write its commitment; with --reveal, reveal it.
    GAME is a game's id, or the path of its log (the log a mail brought: it needs no host's folder)."""
    from pbem.log.yamlio import dump_yaml
    from pbem.player.nonces import commit_move, keep_path, reveal_move
    from pbem.views.timeline import game_at, read_checked

    entries, hashes = read_checked(game_log(games, game_id)[0])
    game = game_at(entries, hashes, len(entries) - 1)
    game_id = game.game_id
    if player not in game.players:
        raise UnknownError(Msg("{player} is not a player in game {game}", player=repr(player), game=repr(game_id)),
                           "R2.1")
    where = keep or keep_path(game_id, player, Path("."))
    for target in (t for t in (out, where) if t is not None):
        if not target.parent.is_dir():  # before the nonce is kept: nothing half done
            raise UnknownError(Msg("cannot write {out}: the folder {folder} does not exist", out=str(target),
                                   folder=str(target.parent)), "P4")
    if out is not None and out.exists():
        raise StateError(Msg("{out} exists; pbem does not overwrite files", out=str(out)), "P7")
    made: str | None = None
    if reveal_it:
        text = dump_yaml(reveal_move(game, player, _revealed(game, player, where, from_words, code, lang)))
    else:
        from pbem.player.nonces import keep as keep_new

        number, made = _made_from_words(game, player, lang) if from_words else (None, None)
        text = dump_yaml(commit_move(game, player, keep_new(where, game, player, number, made)))
    kept_in = "" if from_words and reveal_it else str(where)  # a reveal from the words keeps nothing
    _written(text, out, reveal_it, {"player": player, "out": str(out), "where": kept_in}, lang)
    if made is not None:  # on stderr: stdout is the move
        from pbem.fair.words import shown_code
        from pbem.i18n import say

        click.echo(say(Msg("your code: {code}. Write it down with your secret words: round 2 on another device needs "
                           "both ('pbem nonce {game} --player {player} --reveal --from-words'); {where} keeps the "
                           "secret number on this one", code=shown_code(made), game=game_id, player=player,
                           where=str(where)), lang), err=True)


def _written(text: str, out: Path | None, reveal_it: bool, where_said: dict[str, str], lang: str) -> None:
    """The move on stdout, or in ``out`` with a line saying where it and the nonce are."""
    if out is None:
        click.echo(text, nl=False)
    else:
        out.write_text(text, encoding="utf-8")
        from pbem.i18n import say

        click.echo(say(Msg("nonce move for {player} written to {out} (the secret number of your words and code)",
                           player=where_said["player"], out=where_said["out"]) if reveal_it and not where_said["where"]
                       else Msg("nonce move for {player} written to {out}; the nonce is kept in {where} (mode 0600)",
                                **where_said) if reveal_it else
                       Msg("commitment move for {player} written to {out}; the nonce is kept in {where} (mode 0600)",
                           **where_said), lang))


def _revealed(game: Any, player: str, where: Path, from_words: bool, code: str | None, lang: str) -> bytes:
    """P4 round 2: the kept nonce, or (``from_words``) the secret number of the words and code
    typed again (``code``, else asked for), checked against the commitment; not before every
    seat has committed or been waived, as the host would refuse it."""
    from pbem.player.nonces import check_nonce, kept, words_number
    from pbem.referee.admit import check_reveal

    if not from_words:
        mine = kept(where, game, player)
        check_reveal(game, player)
        return mine
    words = read_words(Msg("{player}'s secret words", player=player), lang)
    mine, source = words_number(game, player, words, read_code(lang) if code is None else code)
    check_reveal(game, player)
    try:  # words or code typed wrong give another nonce: said now, the likelier cause first
        check_nonce(game, player, mine, source)
    except TamperError as err:
        raise TamperError(Msg("{reason}. First check what you typed: the same secret words, and the code as you "
                              "wrote it down (a wrong word or sign gives another number)", reason=err.words),
                          err.rule) from None
    return mine


def read_words(prompt: Msg, lang: str, confirm: bool = False) -> str:
    """The player's words: from the terminal, unseen (twice with ``confirm``), or one line of a pipe."""
    from pbem.i18n import say

    if not sys.stdin.isatty():
        return sys.stdin.readline().rstrip("\n")
    again = say(Msg("the same words again"), lang) if confirm else False
    return str(click.prompt(say(prompt, lang), hide_input=True, confirmation_prompt=again, prompt_suffix=": "))


def read_code(lang: str) -> str:
    """The code kept with the words: from the terminal, unseen, or the next line of a pipe
    (empty: the words alone, as games opened before codes made the nonce)."""
    from pbem.i18n import say

    if not sys.stdin.isatty():
        return sys.stdin.readline().strip()
    return str(click.prompt(say(Msg("the code you wrote down with them (empty for a game opened before codes)"),
                                lang), hide_input=True, default="", show_default=False, prompt_suffix=": "))


def _made_from_words(game: Any, player: str, lang: str) -> tuple[bytes, str]:
    """A new secret number: the player's words (refused when easy to guess) and a new code."""
    from pbem.fair.strength import check_strength
    from pbem.fair.words import MIN_WORDS, new_code, secret_number, words_of

    words = words_of(read_words(Msg("{player}'s secret words ({count} or more; nobody could guess them; keep them)",
                                    player=player, count=MIN_WORDS), lang, confirm=True))
    check_strength(words)
    code = new_code()
    return secret_number(game.hashes[0], player, words, code), code


@main.command()
@click.argument("page", required=False, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--log", "log", type=click.Path(path_type=Path),
              help="For the audit page of a long game, which carries no copy of its log: the log.yaml.gz (or "
                   "log.yaml) its mail attaches.")
@lang_option
def fingerprint(page: Path | None, log: Path | None, lang: str) -> None:
    """The fingerprints of this version's composer page and end-mail audit page; with PAGE, check
    that the file is exactly such a page (a composer page: its head, and nothing else that can run;
    an audit page: the page pbem writes for the log it carries, line for line: docs/fairplay.md)."""
    from pbem import __version__
    from pbem.i18n import say

    if page is None:
        from pbem.views.compose import fingerprint as made
        from pbem.views.endpage import fingerprint as audit_print

        click.echo(say(Msg("composer page of pbem {version}: fingerprint {print}", version=__version__,
                           print=made()), lang))
        click.echo(say(Msg("audit page of pbem {version}: fingerprint {print}", version=__version__,
                           print=audit_print()), lang))
        return
    from pbem.player.pagecheck import check_page

    click.echo(f"ok: {say(check_page(page, log), lang)}")


@main.command()
@click.argument("game_id", metavar="GAME")
@click.option("--player", help="The player the template is for (default: the one to move).")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), help="Write here, not stdout.")
@click.option("--resign", "resigning", is_flag=True,
              help="The move that resigns PLAYER's seat: the stand-in plays it from then on (R8.4).")
@force_option
@click.option("--lang", "lang", type=click.Choice(LANGS), default=None,
              help="The language to write in: en, hu (magyar), el (ελληνικά), uk (українська) [default: the "
                   "seat's language in the host's settings, else en]; the notation's keywords stay as they are.")
@games_option
def template(game_id: str, player: str | None, out: Path | None, resigning: bool, force: bool, lang: str | None,
             games: Path) -> None:
    """A move file for the player to move (or, before the start, P4's commitment or nonce).
    GAME is a game's id, or the path of its log (a mailed log.yaml)."""
    from pbem.host.private import seat_view
    from pbem.views.template import template as make
    from pbem.views.timeline import game_at, read_checked

    log, path = game_log(games, game_id)
    entries, hashes = read_checked(log)
    game = game_at(entries, hashes, len(entries) - 1)
    if resigning:
        if player is None:
            raise FormatError(Msg("--resign: name the resigning player with --player"), "R8.4")
        from pbem.views.template import resign_template

        make = resign_template  # the resignation's move file instead
    who = player or game.to_move
    if who is None:
        raise StateError(
            Msg("name the player with --player (before the start every player commits to a nonce, then reveals it)")
            if not game.started else Msg("the game is over: no more moves"),
            "P4" if not game.started else "R6.5",
        )
    if lang is None:  # the seat's own language, as its mails are written (the host's settings), else English
        from pbem.host.settings import SETTINGS_NAME, load_settings  # lazily, as every command body (start-up)

        lang = load_settings(path).language(who) if (path / SETTINGS_NAME).is_file() else "en"
    text = make(seat_view(path, game, who), lang=lang)  # refuses a seat that is not a player (R2.1)
    if out is None:
        click.echo(text, nl=False)
    else:
        writable(out, force)
        out.write_text(text, encoding="utf-8")
        from pbem.i18n import say

        click.echo(say(Msg("template for {player} written to {out}", player=who, out=str(out)), lang))


@main.command()
@click.argument("game_id", metavar="GAME")
@click.argument("words", nargs=-1, required=True, metavar="DAYS")
@click.option("--player", required=True, help="Your seat.")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), help="Write the move here, not stdout.")
@force_option
@lang_option
@games_option
def away(game_id: str, words: tuple[str, ...], player: str, out: Path | None, force: bool, lang: str,
         games: Path) -> None:
    """The move declaring an absence of PLAYER (R8.5) for DAYS whole days ('3'), or until a date
    ('until 2026-12-10': the whole days from today, UTC); checked against the log and the
    allowance left before it is written.  GAME is a game's id, or the path of its log (a mailed
    log.yaml)."""
    from pbem.host.private import seat_view
    from pbem.log.clock import now
    from pbem.log.moves import after_of
    from pbem.log.records import AwayMove
    from pbem.referee.absence import days_asked
    from pbem.referee.admit import judge
    from pbem.views.template import away_template
    from pbem.views.timeline import game_at, read_checked

    log, path = game_log(games, game_id)
    entries, hashes = read_checked(log)
    game = game_at(entries, hashes, len(entries) - 1)
    days = days_asked([w for word in words for w in word.split()], now())  # "until DATE" quoted as one word too
    judge(game, AwayMove.write(game.game_id, player, after_of(game), days), signatures=False)  # R8.5, or refused
    text = away_template(seat_view(path, game, player), days, lang=lang)
    if out is None:
        click.echo(text, nl=False)
        return
    writable(out, force)
    out.write_text(text, encoding="utf-8")
    from pbem.i18n import say

    click.echo(say(Msg("the absence of {player} written to {out}: sign it if you have a key, and mail it",
                       player=player, out=str(out)), lang))


@main.command()
@click.argument("move_file", type=click.Path(path_type=Path))
@click.option("--log", "log", type=click.Path(path_type=Path),
              help="The game's public log (default: the move's game under --games).")
@lang_option
@games_option
def check(move_file: Path, log: Path | None, lang: str, games: Path) -> None:
    """Before mailing: check MOVE_FILE's schema, staleness and rules against the public log only."""
    from pbem.i18n import say
    from pbem.player.check import check_move, move_game

    for line in check_move(move_file, log if log is not None else game_log(games, move_game(move_file))[0]):
        click.echo(say(line, lang))



# --- signatures and mail (P8; pbem/fair/keys.py, pbem/mail/) ---------------------------

@main.command()
@click.option("--out", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="The private key file (mode 0600); the public key goes to OUT.pub.")
@lang_option
def keygen(out: Path, lang: str) -> None:
    """Make an Ed25519 key pair for signing moves or, for the host, log entries (P8)."""
    from pbem.fair.keys import keygen as make
    from pbem.i18n import say

    private, public_path, public = make(out)
    click.echo(say(Msg("private key: {path} (mode 0600; keep it, never send it)", path=str(private)), lang))
    click.echo(say(Msg("public key:  {path}: {key}", path=str(public_path), key=public), lang))


@main.command()
@click.argument("move_file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--key", "key", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="Your private key file.")
@click.option("--register", is_flag=True, help="Commit moves: also add your public key ('key:').")
@click.option("--log", "log", type=click.Path(path_type=Path),
              help="The game's log: a text move's region words are read through the game's own map, "
                   "as the host reads them (a custom map, P3).")
@lang_option
def sign(move_file: Path, key: Path, register: bool, log: Path | None, lang: str) -> None:
    """Sign MOVE_FILE in place (a 'signature:' line over the parsed move, P8)."""
    from pbem.i18n import say
    from pbem.player.signfile import sign_move_file

    move = sign_move_file(move_file, key, register, log)
    click.echo(say(Msg("signed {file} ({player}'s {kind} for game {game})", file=str(move_file),
                       player=move.player, kind=move.KIND, game=move.game), lang))


@main.command()
@click.argument("code")
@click.option("--key", "key", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="Your private key file: the key the commitment registers.")
@lang_option
def confirm(code: str, key: Path, lang: str) -> None:
    """Confirm the key your commitment registers (P8): the line to send back to the host's
    code mail, 'confirm CODE SIGNATURE', signed with that key.  Send it only if the code mail
    names your key's fingerprint."""
    from pbem.fair.keys import fingerprint
    from pbem.i18n import say
    from pbem.player.signfile import confirm_line

    line, public = confirm_line(code, key)
    click.echo(line)
    click.echo(say(Msg("signed with the key {fingerprint}... ({key}): send the line above from your address, "
                       "only in answer to the code mail that names this key", fingerprint=fingerprint(public),
                       key=public), lang), err=True)


@main.command("sign-press")
@click.argument("text_file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--key", "key", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="Your private key file: the key your seat holds.")
@click.option("--game", required=True, help="The game's id.")
@click.option("--seat", required=True, help="Your seat (red, green, blue, yellow).")
@click.option("--to", "to", required=True, help="'all', or the seats the press is for: blue or blue,green.")
@lang_option
def sign_press(text_file: Path, key: Path, game: str, seat: str, to: str, lang: str) -> None:
    """Sign press for a seat that holds a key (P8): TEXT_FILE's words, then their 'sig' line, to
    mail with the subject '[rattus GAME] press TO'.  The host relays signed press at once;
    unsigned, it waits for a code mailed to your address."""
    from pbem.fair.keys import fingerprint
    from pbem.files import read_limited
    from pbem.i18n import say
    from pbem.player.signfile import press_line

    text = read_limited(text_file, 64 * 1024, Msg("press file")).decode("utf-8", "replace").strip()
    line, public = press_line(text, key, game, seat, to)
    click.echo(text + "\n\n" + line)
    click.echo(say(Msg("signed with the key {fingerprint}...: mail the text above, its last line too, from your "
                       "address with the subject '[rattus {game}] press {to}'", fingerprint=fingerprint(public),
                       game=game, to=to.lower()), lang), err=True)


@main.command()
@click.argument("query", required=False)
@lang_option
def rules(query: str | None, lang: str) -> None:
    """The rules reference: all of it, or QUERY: one rule (R3.2, P7) or the rules mentioning a word;
    'notation': how to write a move. With --lang, in Hungarian, Greek or Ukrainian."""
    from pbem.views.rulesref import lookup

    for line in lookup(query, lang):
        click.echo(line)
