"""The host's commands: create a game, record moves, the opening's waivers, the end, the mailbox.

(Imports inside command bodies are for start-up speed.)
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from pbem.cli.shell import _is_mail, _pairs, _report, games_option, main
from pbem.errors import Exit, FormatError
from pbem.i18n import Msg


def transport_options(command: Any) -> Any:
    """The six options of `pbem mail` and `pbem serve` that say where the mail comes from and goes."""
    for option in reversed((
        click.option("--inbox", type=click.Path(file_okay=False, path_type=Path),
                     help="The Maildir where players' moves arrive."),
        click.option("--imap", metavar="HOST[:PORT]",
                     help="Or read the moves from an IMAP folder (TLS: port 993, else STARTTLS; "
                          "$PBEM_IMAP_USER/_PASSWORD, $PBEM_IMAP_CAFILE)."),
        click.option("--folder", default="INBOX", show_default=True, help="The IMAP folder of --imap."),
        click.option("--outbox", type=click.Path(file_okay=False, path_type=Path),
                     help="Put the replies into this Maildir (made one if it is empty)."),
        click.option("--smtp", metavar="HOST:PORT",
                     help="Send the replies by SMTP (STARTTLS if offered; $PBEM_SMTP_USER/_PASSWORD)."),
        click.option("--from", "from_address", envvar="PBEM_FROM",
                     help="The host's own From address (required, or 'mail_from' in host.yaml)."),
    )):
        command = option(command)
    return command


# --- host commands ------------------------------------------------------------------

@main.command()
@click.argument("game_id", metavar="GAME")
@click.option("--players", help="Seat order, comma-separated: red,green,blue (with --open N alone: the first N "
                                 "of red,green,blue,yellow).")
@click.option("--first", help="The first player (R2.1); drawn from the seed if not named.")
@click.option(
    "--secret-file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Use this file's 64 hex digits as the secret (tests and demos; recorded as 'supplied').",
)
@click.option("--seat-key", "keys", multiple=True, metavar="SEAT=FILE",
              help="Register a seat's public key file (.pub), repeated for each seat: its moves must then be "
                   "signed (P8).")
@click.option("--host-key", type=click.Path(dir_okay=False, path_type=Path),
              help="The host's private key: it signs every entry (P8); its path goes to host.yaml.")
@click.option("--seat-email", "emails", multiple=True, metavar="SEAT=ADDRESS",
              help="A seat's e-mail address for 'pbem mail', repeated for each seat (kept in host.yaml, not in "
                   "the log).")
@click.option("--data", "data_dir", type=click.Path(file_okay=False, path_type=Path),
              help="A folder with map.yaml and tokens.yaml: a custom game (P3), said in every output.")
@click.option("--deadline", help="Time a turn may take, e.g. 72h or 3d (R8.1); then 'pbem tick' records a timeout.")
@click.option("--reminder", help="Remind the player this long before the deadline, e.g. 24h.")
@click.option("--absence", type=int, metavar="DAYS",
              help="Each seat's absence allowance in whole days (R8.5): 'pbem away' declares an absence, which "
                   "extends the seat's deadlines; none if unset.")
@click.option("--bot", "bots", multiple=True, metavar="PLAYER=LEVEL",
              help="The host's bot plays this seat (random, greedy, mcts); named in entry 0.")
@click.option("--bot-seconds", type=float, metavar="S",
              help="How long the bot seats think per decision (mcts, CPU seconds; default 1; kept in host.yaml); "
                   "measured, 0.25 s plays as well as 4 s (docs/benchmarks.md).")
@click.option("--reveal-secret", "reveal", type=click.Choice(["auto", "manual"]), default="auto", show_default=True,
              help="When the game is over: reveal the secret at once (auto), or wait for 'pbem reveal' "
                   "(manual); kept in host.yaml (P6).")
@click.option("--seat-lang", "langs", multiple=True, metavar="SEAT=LANG",
              help="The language a seat reads: en (the default), hu, el or uk; kept in host.yaml, and the "
                   "player may change it by mail ('language uk').")
@click.option("--mail", "mail_mode", type=click.Choice(["turn", "every", "digest"]), default="turn",
              show_default=True,
              help="What each seat is mailed: one mail when it is its turn (turn), a report of every entry "
                   "(every), or its turn's mail and at most one summary a day (digest); kept in host.yaml, "
                   "and each player may choose by mail ('mail every').")
@click.option("--open", "open_seats", type=click.IntRange(1, 4), default=None, metavar="N",
              help="Leave N seats (those with no --seat-email) for strangers to join by mail ('join GAME'); the "
                   "opening starts by itself once every seat is filled.")
@click.option("--press", type=click.Choice(["on", "public", "off"]), default="on", show_default=True,
              help="Press by mail ('press all', 'press SEAT'): to one seat or all (on), to all only (public), "
                   "or none (off).")
@games_option
def new(
    game_id: str, players: str | None, first: str | None, secret_file: Path | None,
    keys: tuple[str, ...], host_key: Path | None, emails: tuple[str, ...], data_dir: Path | None,
    deadline: str | None, reminder: str | None, absence: int | None, bots: tuple[str, ...],
    bot_seconds: float | None, reveal: str, langs: tuple[str, ...], mail_mode: str, open_seats: int | None,
    press: str, games: Path,
) -> None:
    """Create the game GAME: its directory, secret (mode 0600) and first log entry (P3)."""
    from pbem.data import read_data_dir
    from pbem.fair.keys import read_public_key
    from pbem.host.create import NewGame, create
    from pbem.host.settings import RevealWhen, load_settings
    from pbem.rules.data import GameDataError

    names = _seat_names(players, open_seats)
    spec = NewGame(game_id, names, first, _secret_of(secret_file), host_key_file=host_key)
    spec.open_seats, spec.press = open_seats or 0, press
    if data_dir is not None:
        try:
            spec.board, spec.catalogue = read_data_dir(data_dir)
        except GameDataError as err:
            raise FormatError(Msg("--data {folder}: {reason}", folder=str(data_dir), reason=str(err)), "P3") from None
    spec.keys = {p: read_public_key(Path(f)) for p, f in _pairs(keys, "--seat-key").items()}
    spec.emails = _pairs(emails, "--seat-email")
    spec.bots = _pairs(bots, "--bot")
    spec.bot_seconds, spec.mail, spec.absence = bot_seconds, mail_mode, absence
    spec.reveal = RevealWhen(reveal)
    spec.languages = _pairs(langs, "--seat-lang")
    if deadline is not None or reminder is not None:
        from pbem.referee.deadlines import parse_duration

        spec.deadline = parse_duration(deadline, "--deadline") if deadline is not None else None
        spec.reminder = parse_duration(reminder, "--reminder") if reminder is not None else None
    path = create(games, spec)
    from pbem.host.games import load_game
    from pbem.views.trust import notices

    click.echo(f"created game {game_id} in {path}")
    click.echo(f"players (seat order): {', '.join(names)}")
    made = load_game(path)
    if spec.bots:  # P4: the bot seats commit to their nonces at once (the host's step); the
        from pbem.host.games import answer  # report ends with the notices: once per command

        _report(answer(games, game_id))
    else:
        for line in notices(made):
            click.echo(line)
    from pbem.referee.deadlines import rule_text

    rule = rule_text(made)
    if rule is not None:
        click.echo(f"{rule}; no deadline runs during the opening (P4)")
    if spec.open_seats:
        click.echo(f"open to strangers by mail: {', '.join(load_settings(path).waiting())} ('join {game_id}'); "
                   "the opening starts once every seat is filled")
    click.echo("next (P4): each player commits to a nonce ('pbem nonce GAME --player P' writes the "
               "move), then, when all have, reveals it; the last reveal starts the game")


def _seat_names(players: str | None, open_seats: int | None) -> tuple[str, ...]:
    """``--players``, or with ``--open N`` alone the first N of red, green, blue, yellow."""
    if players is None:
        if open_seats is None:
            raise FormatError(Msg("pbem new needs --players (the seat order), or --open N for N seats "
                                  "strangers join by mail"), "R2")
        return ("red", "green", "blue", "yellow")[:open_seats]
    return tuple(p.strip() for p in players.split(",") if p.strip())


def _secret_of(secret_file: Path | None) -> bytes | None:
    """``--secret-file``'s 32 bytes (tests and demos), or None: the OS's CSPRNG (P1)."""
    from pbem.files import read_limited

    if secret_file is None:
        return None
    text = read_limited(secret_file, 1024, Msg("secret file")).decode("ascii", "replace").strip()
    try:
        return bytes.fromhex(text)
    except ValueError:
        raise FormatError(Msg("the secret file must hold 64 hex digits"), "P1") from None



@main.command()
@click.argument("game_id", metavar="GAME")
@click.option("--player", required=True, help="The seat whose nonce is waived.")
@games_option
def waive(game_id: str, player: str, games: Path) -> None:
    """Host: record that a seat of GAME adds no nonce (P4; only before the first reveal)."""
    from pbem.host.games import waive as do_waive

    _report(do_waive(games, game_id, player))


@main.command()
@click.argument("game_id", metavar="GAME")
@games_option
def abandon(game_id: str, games: Path) -> None:
    """Host: abandon GAME, a game that cannot start (a nonce never revealed), on the record (P4)."""
    from pbem.host.games import abandon as do_abandon

    _report(do_abandon(games, game_id))


@main.command()
@click.argument("move_file", type=click.Path(path_type=Path))
@click.option("--from", "from_address", envvar="PBEM_FROM",
              help="For a mailed move: the host's From address for the replies (or 'mail_from' in host.yaml).")
@click.option("--confirm-key", is_flag=True,
              help="A move file (not a mail) whose commitment registers a key: you confirmed with the "
                   "seat's player that the key is theirs (P8).")
@games_option
def apply(move_file: Path, from_address: str | None, confirm_key: bool, games: Path) -> None:
    """Check a player's move file, MOVE_FILE, and record it in the game's log.  A mailed message
    (MSG.eml) is admitted as 'pbem mail' admits it; its replies are queued in
    GAMES/+mail-queue for 'pbem mail' to deliver."""
    from pbem.host.games import apply_move
    from pbem.log.moves import read_move

    if _is_mail(move_file):  # an RFC 5322 message (pbem/mail/)
        if confirm_key:
            raise FormatError(Msg("--confirm-key is for a move file: a key sent by mail is confirmed from "
                                  "the seat's address, with the code the host mails there"), "P8")
        from pbem.files import read_limited
        from pbem.mail.admission import apply_mail_file
        from pbem.mail.headers import MAIL_LIMIT
        from pbem.mail.host import host_address

        data = read_limited(move_file, MAIL_LIMIT, Msg("message"))
        try:
            address: str | None = host_address(games, from_address)
        except FormatError:
            if from_address:
                raise
            address = None  # no From address known: the verdict alone, no reply queued
        _report(apply_mail_file(games, data, address))
        return
    move = read_move(move_file)
    _report(apply_move(games, move, key_confirmed=confirm_key))



@main.command()
@click.argument("game_id", metavar="GAME")
@games_option
def reveal(game_id: str, games: Path) -> None:
    """When GAME is over, publish its secret so anyone can audit (P6)."""
    from pbem.host.games import reveal as do_reveal

    _report(do_reveal(games, game_id))



@main.command()
@click.argument("game_id", metavar="GAME")
@click.argument("seat")
@click.argument("language", metavar="LANG")
@games_option
def lang(game_id: str, seat: str, language: str, games: Path) -> None:
    """Host: the language SEAT of GAME reads from now on, LANG: en, hu, el or uk (host.yaml; the player may
    also change it by mail: 'language uk')."""
    from pbem.host.games import game_dir, load_game
    from pbem.host.settings import set_language

    path = game_dir(games, game_id)
    before = set_language(path, load_game(path).players, seat, language)
    click.echo(f"{seat} reads {language} from now on (before: {before}); the log is unchanged")


@main.command()
@transport_options
@click.option("--stdin", "from_stdin", is_flag=True,
              help="Read one message from standard input (an MTA's pipe: .forward, procmail).")
@click.option("--flush", is_flag=True, help="Only deliver the replies still queued (at once, backoff or not).")
@click.option("--now", "at", help="The time to act as of (tests, catching up): 2026-12-02T09:15:00Z.")
@games_option
def mail(inbox: Path | None, imap: str | None, folder: str, from_stdin: bool, outbox: Path | None,
         smtp: str | None, from_address: str | None, flush: bool, at: str | None, games: Path) -> None:
    """Apply every message not yet handled of a Maildir or an IMAP folder (or the one message
    on standard input), file it as seen (or quarantine it), queue the replies, then deliver the queue.  Exit 3 if a
    message was quarantined, 11 if a reply was refused for good (moved to
    GAMES/+mail-queue/failed/), 12 if replies are still queued after a temporary failure
    (retried, with backoff, by a later run or at once by --flush).  With --stdin (an MTA's pipe):
    0 once the message is kept, whatever its verdict; 75 (EX_TEMPFAIL: the MTA tries again) if it
    could not be."""
    from pbem.mail.headers import MAIL_LIMIT
    from pbem.mail.imap import ImapBox
    from pbem.mail.run import process

    box = ImapBox(imap, folder) if imap is not None else None
    if from_stdin and not flush and inbox is None and box is None:  # an MTA's pipe: its own exit codes
        from pbem.mail.run import piped

        found, code = piped(games, outbox, smtp, from_address, sys.stdin.buffer.read(MAIL_LIMIT + 1), at,
                            lambda line: click.echo(line, err=True))  # more than the limit: told, quarantined
        if found is not None:
            _said_run(found)
        sys.exit(code)
    data = None
    if from_stdin:
        data = sys.stdin.buffer.read(MAIL_LIMIT + 1)  # more than the limit: quarantined as too large
    run = process(inbox, games, outbox, smtp, from_address, flush_only=flush, stdin=data, at=at, imap=box)
    _said_run(run)
    if run.quarantined:
        sys.exit(int(Exit.FORMAT))
    if run.failed:
        sys.exit(int(Exit.UNDELIVERED))
    if run.kept:
        sys.exit(int(Exit.DEFERRED))


def _said_run(run: Any) -> None:
    """What one ``pbem mail`` run did: a line a message, then the counts."""
    for item in run.done:
        click.echo(f"{item.key} from {item.sender or '?'}: {item.result}")
    for line in run.open:
        click.echo(line)
    click.echo(f"{len(run.done)} message(s) processed, {run.quarantined} quarantined; "
               f"{run.sent} repl(ies) delivered, {run.kept} kept for the next run"
               + (f", {run.failed} failed for good (see GAMES/+mail-queue/failed/failed.log)"
                  if run.failed else ""))


@main.command()
@click.option("--now", "at", help="The time to act as of (tests, catching up): 2026-12-02T09:15:00Z.")
@click.option("--from", "from_address", envvar="PBEM_FROM",
              help="The host's From address for reminders and notices (or 'mail_from' in host.yaml).")
@games_option
def tick(at: str | None, from_address: str | None, games: Path) -> None:
    """Host, from cron: remind players before their deadline (once), and record a timeout,
    played by the stand-in rule, for each turn whose deadline has passed (R8.1-R8.3).
    Mail is queued in GAMES/+mail-queue; 'pbem mail' (or 'pbem mail --flush') delivers it."""
    from contextlib import nullcontext

    from pbem.log.clock import now, pinned
    from pbem.mail.tick import tick as run_tick

    with pinned(at) if at is not None else nullcontext():
        result = run_tick(games, from_address)
        for line in result.lines:
            click.echo(line)
        click.echo(f"tick at {now()}: {result.timeouts} timeout(s) recorded, {result.queued} mail(s) queued")


@main.command()
@click.argument("game_id", metavar="GAME")
@click.option("--seat", required=True, help="The seat handed to a new player.")
@click.option("--email", help="The new player's address (host.yaml); without it the seat gets no mail.")
@click.option("--key", "key_file", type=click.Path(dir_okay=False, path_type=Path),
              help="The new player's public key (.pub): their moves must be signed with it (P8).")
@games_option
def replace(game_id: str, seat: str, email: str | None, key_file: Path | None, games: Path) -> None:
    """Host: hand a seat of GAME to a new player (R8.4); the seat's cubes, cards and turn order stay."""
    from pbem.fair.keys import read_public_key
    from pbem.host.games import replace as do_replace

    key = read_public_key(key_file) if key_file is not None else None
    _report(do_replace(games, game_id, seat, email, key))


@main.command()
@transport_options
@click.option("--interval", type=click.FloatRange(0.05, 3600), default=60.0, show_default=True,
              help="Seconds between two rounds (doubled, up to 15 minutes, while a server is down).")
@click.option("--site", type=click.Path(file_okay=False, path_type=Path),
              help="Keep the static site in this folder current after each round (see 'pbem site').")
@games_option
def serve(inbox: Path | None, imap: str | None, folder: str, outbox: Path | None, smtp: str | None,
          from_address: str | None, interval: float, site: Path | None, games: Path) -> None:
    """Host: run the mail host until stopped: fetch and apply the moves, run the deadlines
    (R8), deliver the replies, sleep, again.  SIGTERM stops it cleanly (the message being
    handled is finished first); a mail server that is down is retried with backoff."""
    from pbem.mail.imap import ImapBox
    from pbem.mail.run import process
    from pbem.mail.serve import Server

    if (inbox is None) == (imap is None):
        raise FormatError(Msg("pbem serve reads one inbox: give --inbox MAILDIR or --imap HOST[:PORT]"), "P1")
    if inbox is not None and not ((inbox / "new").is_dir() and (inbox / "cur").is_dir()):
        raise FormatError(Msg("--inbox {inbox}: not a Maildir (it needs new/ and cur/)", inbox=str(inbox)), "P1")
    box = ImapBox(imap, folder) if imap is not None else None
    server = Server(games, inbox, box, outbox, smtp, from_address, interval, lambda line: click.echo(line, err=False))
    server.handle_signals()  # first: a SIGTERM from now on stops it between two messages
    if site is not None:
        from pbem.host.site import build_site

        build_site(games, site)  # the folder checked at once (a refusal stops here), and the site there from the start
        from pbem.cli.publishing import site_builder

        server.after_round = site_builder(games, site)
    process(inbox, games, outbox, smtp, from_address, flush_only=True, imap=box)  # the setup checked at once
    if server.stop.is_set():
        return
    click.echo(f"pbem serve: every {interval:g} s; stop it with SIGTERM (kill PID), it finishes the message in hand")
    server.serve()
