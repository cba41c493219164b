"""Anyone's commands on a log: the board, verification, the audit.

(Imports inside command bodies are for start-up speed.)
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import click

from pbem.cli.shell import games_option, main, refusals
from pbem.errors import PbemError, StateError, UnknownError
from pbem.log.logfile import read_log


@main.command()
@click.argument("game_id")
@click.option("--as", "as_player", help="Also show this player's private knowledge (Witch looks).")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@games_option
@refusals
def show(game_id: str, as_player: str | None, as_json: bool, games: Path) -> None:
    """The board as a person reads it; with --as, that player's private reveals too."""
    from pbem.host.games import game_dir, load_game, read_private
    from pbem.views.text import board_lines, private_lines, state_json

    path = game_dir(games, game_id)
    game = load_game(path)
    reveals: list[dict[str, Any]] = []
    if as_player is not None:
        if as_player not in game.players:
            raise UnknownError(f"{as_player!r} is not a player in game {game_id!r}", "R2.1")
        reveals = read_private(path, as_player, game.last_seq)
    if as_json:
        data = state_json(game)
        if as_player is not None:
            data["private"] = {"player": as_player, "looks": reveals}
        click.echo(json.dumps(data, indent=1, ensure_ascii=False))
        return
    for line in board_lines(game):
        click.echo(line)
    if as_player is not None:
        click.echo(f"private to {as_player}:")
        for line in private_lines(reveals) or ["  nothing yet"]:
            click.echo(line)


@main.command()
@click.argument("log", type=click.Path(path_type=Path))
@click.option("--extends", "old", type=click.Path(dir_okay=False, path_type=Path),
              help="The last log you received: LOG must continue it, entry for entry (P9).")
@refusals
def verify(log: Path, old: Path | None) -> None:
    """Check a log: the chain, every reveal against its commitment, a full replay (P6-P7);
    with --extends OLD, also that LOG continues the log you kept (P9)."""
    from pbem.referee.replay import check_schema, replay

    entries, hashes = read_log(log)
    check_schema(entries)
    game = replay(entries, hashes)
    click.echo(f"ok: {len(entries)} entries; the chain holds and each entry fits schemas/entry.json (P7)")
    flips = sum(
        1 for e in entries if e.get("kind") == "move"
        for ev in e["outcome"] if ev["event"] == "token_flipped"
    )
    click.echo(f"ok: {flips} reveals match their commitments (P6)")
    click.echo("ok: every move replays under the rules to its recorded outcome (R7.3)")
    from pbem.referee.signatures import require_valid  # P8; cryptography only if the log has keys

    checked = require_valid(entries)
    if checked is not None:
        if entries[0].get("host_key"):
            click.echo(f"ok: all {checked.entries_signed} entries carry the host's signature (P8)")
        click.echo(f"ok: {checked.moves_signed} signed moves verify with their players' keys (P8)")
    if game.secret is not None:  # revealed: every commitment can be checked now, flipped or not
        from pbem.referee.audit import audit as do_audit

        for finding in do_audit(game):
            click.echo(f"ok: {finding}")
    status = "over" if game.over else ("in play" if game.started else game.opening.value)
    click.echo(f"game {game.game_id}: {status}; last entry {game.last_seq} ({game.last_hash[:16]})")
    if old is not None:
        _extends(log, entries, hashes, old)
    from pbem.views.text import trust_lines

    for line in trust_lines(game):
        click.echo(line)


def _extends(log: Path, entries: list[dict[str, Any]], hashes: list[str], old: Path) -> None:
    """P9: the log kept (OLD) is a prefix of LOG; a refusal prints a fork proof if there is one."""
    from pbem.errors import TamperError
    from pbem.referee.history import compare

    try:
        old_entries, old_hashes = read_log(old)
    except TamperError as err:
        raise TamperError(f"OLD ({old}), the log you kept, does not verify: {err.message}",
                          err.rule) from None
    click.echo(f"ok: OLD ({old}), the log you kept, reads and its chain holds (P7)")
    result = compare(entries, hashes, old_entries, old_hashes)
    if result.ok:
        click.echo(f"ok: {result.message}")
        return
    if result.proof is not None:  # stdout: the statement, then both signed entries as JSON lines
        proof = result.proof
        click.echo(f"proof (P9): {proof.statement()}")
        for side, path in ((proof.new, log), (proof.old, old)):
            click.echo(json.dumps(
                {"log": side.side, "path": str(path), "seq": side.seq, "hash": side.hash,
                 "signature": side.signature, "entry": side.entry},
                ensure_ascii=False, sort_keys=True, separators=(",", ":"),
            ))
    raise result.error()


PROTOCOL_DOC = "docs/protocol.md"
"""The fair-play protocol as a document (in pbem's source); every verdict of `pbem audit` names it."""


def audit_verdict(err: PbemError | None) -> str:
    """The verdict line of `pbem audit` (tools/audit_min.py prints the same, word for word)."""
    if err is None:
        return f"verdict: FAIR. The rat order was fixed at the start and never touched (how to check: {PROTOCOL_DOC})."
    if isinstance(err, StateError):
        return f"verdict: NOT YET. The secret is revealed when the game is over (P6; how to check: {PROTOCOL_DOC})."
    found = re.match(r"entry (\d+):", err.message)
    where = f"at entry {found.group(1)}" if found else "as a whole"
    return f"verdict: REFUSED. The log does not verify {where} ({err.rule}; how to check: {PROTOCOL_DOC})."


@main.command()
@click.argument("log", type=click.Path(path_type=Path))
@refusals
def audit(log: Path) -> None:
    """After the reveal: recompute every draw and commitment and replay the game (P6).

    The protocol it checks, and how to check it yourself: docs/protocol.md."""
    from pbem.errors import SignatureError, TamperError
    from pbem.referee.audit import audit as do_audit
    from pbem.referee.replay import replay
    from pbem.rules import winner

    try:
        entries, hashes = read_log(log)  # (the entry schema is pbem verify's: slow, and not P6's)
        game = replay(entries, hashes)
        findings = do_audit(game)
    except (TamperError, SignatureError, StateError) as err:
        click.echo(audit_verdict(err))  # stdout; the reason goes to stderr as for every refusal
        raise
    for finding in findings:
        click.echo(f"ok: {finding}")
    assert game.state is not None  # audit() refuses a game that is not over
    scores = game.state.scores()
    click.echo("final scores: " + ", ".join(f"{p} {scores[p]}" for p in game.players))
    click.echo(f"winner: {winner(game.state)} (R6.5)")
    click.echo(audit_verdict(None))
    from pbem.views.text import trust_lines

    for line in trust_lines(game):
        click.echo(line)



