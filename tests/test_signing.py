"""P8: key files, signing move files, the host refusing unsigned or wrongly signed
moves (P4's commitments and reveals included), a key registered with a nonce
commitment, the host signing every entry, and `pbem verify` naming what fails."""

from __future__ import annotations

import json
import random
import re
import stat
from pathlib import Path
from typing import Any

from clitools import cli as run
from clitools import ok, snapshot
from signingtools import (
    commit_file,
    keys,  # noqa: F401 (a fixture)
    new_signed_game,
)

from pbem.bots.randombot import bot_actions
from pbem.errors import Exit
from pbem.fair.keys import move_message, verify
from pbem.fair.protocol import ZERO_HASH, entry_hash
from pbem.host.games import load_game
from pbem.log.game import Game
from pbem.log.logfile import LOG_NAME, link, parse_log
from pbem.log.moves import parse_move, read_move, schema
from pbem.log.yamlio import dump_entry, dump_yaml, load_stream
from pbem.referee.replay import replay
from pbem.sim.demo import write_move


def reveal_file(games: Path, game_id: str, player: str, folder: Path) -> Path:
    """P4 round 2: the move revealing the nonce kept by :func:`commit_file`."""
    out = folder / f"{player}-nonce.yaml"
    ok("nonce", game_id, "--player", player, "--reveal", "--keep", folder / f"nonce-{game_id}-{player}.yaml",
       "--out", out, "--games", games)
    return out


def load_game_unchecked(log: Path) -> Game:
    entries = load_stream(log.read_text(), "log")
    return replay(*parse_log(entries))


def test_keygen_files(keys: Path) -> None:
    private, public = keys / "red.key", keys / "red.key.pub"
    assert stat.S_IMODE(private.stat().st_mode) == 0o600
    line = public.read_text()
    assert line.endswith("\n") and line.count("\n") == 1
    assert re.match(schema("move.json")["properties"]["key"]["pattern"], line.strip())
    result = run("keygen", "--out", private)
    assert result.exit_code == Exit.STATE and "does not overwrite" in result.output


def test_sign_keeps_the_file_text_and_replaces_an_old_signature(keys: Path) -> None:
    games = new_signed_game(keys)
    path = commit_file(games, "g", "red", keys)
    before = path.read_text()
    ok("sign", path, "--key", keys / "blue.key")
    ok("sign", path, "--key", keys / "red.key")
    text = path.read_text()
    assert text.startswith(before) and text.count("signature:") == 1
    move = read_move(path)
    public = (keys / "red.key.pub").read_text().strip()
    assert verify(public, move.to_raw()["signature"], move_message(move.to_raw()))
    # CRLF files stay CRLF; a flow-style document is rewritten plainly
    crlf = keys / "crlf.yaml"
    crlf.write_bytes(before.replace("\n", "\r\n").encode())
    ok("sign", crlf, "--key", keys / "red.key")
    assert b"\r\nsignature: " in crlf.read_bytes() and b"\n" not in crlf.read_bytes().replace(b"\r\n", b"")
    flow = keys / "flow.yaml"
    flow.write_text(json.dumps({k: v for k, v in move.to_raw().items() if k != "signature"}))
    ok("sign", flow, "--key", keys / "red.key")
    assert read_move(flow).to_raw() == move.to_raw()


def test_apply_refuses_unsigned_and_wrongly_signed_moves(keys: Path) -> None:
    """P8: red registered a key at 'pbem new', so red's nonce commitment (P4) must carry
    red's signature; a missing one, another key's, or a move changed after signing is
    refused with exit 8 and no file changes."""
    games = new_signed_game(keys)
    path = commit_file(games, "g", "red", keys)
    commitment = read_move(path).to_raw()["nonce_commitment"]
    before = snapshot(games)
    result = run("apply", path, "--games", games)
    assert result.exit_code == Exit.SIGNATURE and "(P8)" in result.output and "not signed" in result.output
    ok("sign", path, "--key", keys / "mallory.key")
    result = run("apply", path, "--games", games)
    assert result.exit_code == Exit.SIGNATURE and "(P8)" in result.output and "does not verify" in result.output
    # signed, then changed (another commitment): the signature is over the parsed move
    ok("sign", path, "--key", keys / "red.key")
    other = "ab" * 32
    path.write_text(path.read_text().replace(commitment, other))
    result = run("apply", path, "--games", games)
    assert result.exit_code == Exit.SIGNATURE and "does not verify" in result.output
    assert snapshot(games) == before
    path.write_text(path.read_text().replace(other, commitment))
    # comments and quoting do not matter, only the parsed move does
    requoted = re.sub(r"(?m)^nonce_commitment: .*$", f"nonce_commitment: '{commitment}'", path.read_text())
    path.write_text("# a comment added after signing\n" + requoted)
    assert "red's nonce commitment recorded (P4)" in ok("apply", path, "--games", games)


def test_a_commitment_registers_the_key_it_is_signed_with(keys: Path) -> None:
    """P8: a player may register a key with their nonce commitment; the commitment must be
    signed by that key, a key registered at 'pbem new' cannot be swapped, and from then on
    every move of that player, the nonce reveal (P4) first, must be signed with it."""
    games = new_signed_game(keys)
    blue = commit_file(games, "g", "blue", keys)
    ok("sign", blue, "--key", keys / "blue.key", "--register")
    text = blue.read_text()
    blue_pub = (keys / "blue.key.pub").read_text().strip()
    mallory = (keys / "mallory.key.pub").read_text().strip()
    assert read_move(blue).to_raw()["key"] == blue_pub
    before = snapshot(games)
    # registering mallory's key, but signed with blue's: refused
    forged = keys / "forged.yaml"
    forged.write_text(text.replace(blue_pub, mallory))
    result = run("apply", forged, "--games", games)
    assert result.exit_code == Exit.SIGNATURE and "(P8)" in result.output
    assert "does not verify with the key this commitment registers" in result.output
    # registering blue's key, but signed by another key (mallory's): refused
    forged.write_text(text.split("signature:")[0].replace(blue_pub, mallory))
    ok("sign", forged, "--key", keys / "mallory.key")
    forged.write_text(forged.read_text().replace(mallory, blue_pub))
    result = run("apply", forged, "--games", games)
    assert result.exit_code == Exit.SIGNATURE and "does not verify" in result.output
    assert snapshot(games) == before
    # red may not swap the key registered at 'pbem new' for another, even signed with it
    red = commit_file(games, "g", "red", keys)
    swap = keys / "swap.yaml"
    swap.write_text(red.read_text())
    ok("sign", swap, "--key", keys / "mallory.key", "--register")
    result = run("apply", swap, "--games", games)
    assert result.exit_code == Exit.SIGNATURE and "cannot replace it" in result.output
    assert snapshot(games) == before
    # registering the same key again is no swap
    ok("sign", red, "--key", keys / "red.key", "--register")
    ok("apply", red, "--games", games)
    # a new key is recorded only once the host confirmed it as the seat's (P8)
    before = snapshot(games)
    result = run("apply", blue, "--games", games)
    assert result.exit_code == Exit.SIGNATURE and "--confirm-key" in result.output
    assert snapshot(games) == before
    ok("apply", blue, "--games", games, "--confirm-key")
    game = load_game(games / "g")
    assert game.keys.get("blue") == blue_pub and game.keys.get("red") == (keys / "red.key.pub").read_text().strip()
    # P4 round 2: blue's reveal must be signed with the key blue's commitment registered
    reveal = reveal_file(games, "g", "blue", keys)
    before = snapshot(games)
    result = run("apply", reveal, "--games", games)
    assert result.exit_code == Exit.SIGNATURE and "not signed" in result.output
    ok("sign", reveal, "--key", keys / "mallory.key")
    result = run("apply", reveal, "--games", games)
    assert result.exit_code == Exit.SIGNATURE and "does not verify with the key registered for blue" in result.output
    assert snapshot(games) == before
    ok("sign", reveal, "--key", keys / "blue.key")
    ok("apply", reveal, "--games", games)
    reveal = reveal_file(games, "g", "red", keys)
    ok("sign", reveal, "--key", keys / "red.key")
    assert "the game starts" in ok("apply", reveal, "--games", games)
    game = load_game(games / "g")
    assert game.started
    # from now on every move must be signed with the player's key
    assert game.state is not None and game.state.to_move == "red"
    move = write_move(game, "red", bot_actions(game.state, random.Random(1)), keys, 1)
    assert run("apply", move, "--games", games).exit_code == Exit.SIGNATURE
    ok("sign", move, "--key", keys / "red.key")
    ok("apply", move, "--games", games)
    game = load_game(games / "g")
    assert game.state is not None
    move = write_move(game, "blue", bot_actions(game.state, random.Random(2)), keys, 2)
    assert run("apply", move, "--games", games).exit_code == Exit.SIGNATURE
    ok("sign", move, "--key", keys / "mallory.key")
    assert run("apply", move, "--games", games).exit_code == Exit.SIGNATURE
    ok("sign", move, "--key", keys / "blue.key")
    ok("apply", move, "--games", games)
    out = ok("verify", games / "g" / LOG_NAME)
    # create, 2 commits, 2 reveals, start, 2 moves; every player's move signed
    assert "all 8 entries carry the host's signature (P8)" in out
    assert "6 signed moves verify" in out


def test_a_reveal_cannot_register_a_key(keys: Path) -> None:
    """P8: a key is registered at 'pbem new' or with the commitment, never later: a nonce
    reveal (P4) carrying 'key:' is malformed, and 'pbem sign --register' refuses it."""
    games = keys / "games"
    ok("new", "g", "--players", "red,blue", "--games", games)
    for player in ("red", "blue"):
        ok("apply", commit_file(games, "g", player, keys), "--games", games)
    reveal = reveal_file(games, "g", "blue", keys)
    result = run("sign", reveal, "--key", keys / "blue.key", "--register")
    assert result.exit_code == Exit.FORMAT and "only a nonce commitment registers a key" in result.output
    blue_pub = (keys / "blue.key.pub").read_text().strip()
    reveal.write_text(reveal.read_text() + f'key: "{blue_pub}"\n')
    before = snapshot(games)
    result = run("apply", reveal, "--games", games)
    assert result.exit_code == Exit.FORMAT and "schemas/move.json" in result.output
    assert snapshot(games) == before


def test_host_signs_every_entry_and_verify_names_an_altered_one(keys: Path) -> None:
    games = new_signed_game(keys)
    for player in ("red", "blue"):
        path = commit_file(games, "g", player, keys)
        ok("sign", path, "--key", keys / f"{player}.key", "--register")
        ok("apply", path, "--games", games, "--confirm-key")
    for player in ("red", "blue"):
        path = reveal_file(games, "g", player, keys)
        ok("sign", path, "--key", keys / f"{player}.key")
        ok("apply", path, "--games", games)
    log = games / "g" / LOG_NAME
    entries = load_stream(log.read_text(), "log")
    assert [e["kind"] for e in entries] == ["create", "commit", "commit", "nonce", "nonce", "start"]
    host_pub = (keys / "host.key.pub").read_text().strip()
    assert entries[0]["host_key"] == host_pub
    for entry in entries:
        assert verify(host_pub, entry["signature"], entry_hash(entry).encode("ascii"))
    assert "all 6 entries carry" in ok("verify", log)
    # alter entry 2's signature (the hash chain ignores it, the signature check does not)
    other = entries[1]["signature"]
    entries[2]["signature"] = other
    log.write_text("".join(dump_entry(e) for e in entries))
    result = run("verify", log)
    assert result.exit_code == Exit.SIGNATURE
    assert "entry 2: the host signature does not verify" in result.output
    assert "entry 1" not in result.output
    # the host refuses to add to such a log
    game = load_game_unchecked(log)
    assert game.state is not None
    move = write_move(game, "red", bot_actions(game.state, random.Random(1)), keys, 1)
    ok("sign", move, "--key", keys / "red.key")
    before = snapshot(games)
    result = run("apply", move, "--games", games)
    assert result.exit_code == Exit.SIGNATURE and "entry 2: the host signature" in result.output
    assert snapshot(games) == before
    # dropping a signature is named too
    del entries[2]["signature"]
    log.write_text("".join(dump_entry(e) for e in entries))
    result = run("verify", log)
    assert result.exit_code == Exit.SIGNATURE and "entry 2: no host signature" in result.output


def rechain(entries: list[dict[str, Any]]) -> str:
    """The log a host would write after editing ``entries``: re-linked and re-hashed (P7)."""
    prev = ZERO_HASH
    for seq, entry in enumerate(entries):
        entries[seq] = link(entry, seq, prev, entry["at"])
        prev = entry_hash(entries[seq])
    return "".join(dump_entry(e) for e in entries)


def test_verify_checks_player_signatures_in_the_log(keys: Path) -> None:
    games = new_signed_game(keys, host_key=False)
    path = commit_file(games, "g", "red", keys)
    ok("sign", path, "--key", keys / "red.key")
    ok("apply", path, "--games", games)
    log = games / "g" / LOG_NAME
    entries = load_stream(log.read_text(), "log")
    assert "1 signed move verifies" in ok("verify", log)
    # a host who rewrites red's nonce commitment (and re-chains the log) is caught by red's signature
    entries[1]["move"]["nonce_commitment"] = "f" * 64
    log.write_text(rechain(entries))
    result = run("verify", log)
    assert result.exit_code == Exit.SIGNATURE and "entry 1: red's move signature does not verify" in result.output


def test_verify_catches_a_host_who_swaps_the_key_a_commitment_registered(keys: Path) -> None:
    """P8: blue's commitment registers blue's key and is signed with it. A host who puts its
    own key there (and re-signs the reveal with it, and re-chains) fails the commitment's
    own signature: the key it names never signed it."""
    games = keys / "games"
    ok("new", "g", "--players", "red,blue", "--games", games)
    path = commit_file(games, "g", "blue", keys)
    ok("sign", path, "--key", keys / "blue.key", "--register")
    ok("apply", path, "--games", games, "--confirm-key")
    ok("apply", commit_file(games, "g", "red", keys), "--games", games)
    path = reveal_file(games, "g", "blue", keys)  # once every seat has committed (P4)
    ok("sign", path, "--key", keys / "blue.key")
    ok("apply", path, "--games", games)
    log = games / "g" / LOG_NAME
    assert "2 signed moves verify" in ok("verify", log)
    entries = load_stream(log.read_text(), "log")
    assert [e["kind"] for e in entries] == ["create", "commit", "commit", "nonce"]
    mallory = (keys / "mallory.key.pub").read_text().strip()
    from pbem.fair.keys import load_private_key, sign

    mallory_key = load_private_key(keys / "mallory.key")
    entries[1]["move"]["key"] = mallory
    entries[3]["move"]["signature"] = sign(mallory_key, move_message(entries[3]["move"]))
    log.write_text(rechain(entries))
    result = run("verify", log)
    assert result.exit_code == Exit.SIGNATURE
    assert "entry 1: blue's move signature does not verify" in result.output


def test_the_host_needs_its_key(keys: Path) -> None:
    games = new_signed_game(keys)
    settings = games / "g" / "host.yaml"
    assert stat.S_IMODE(settings.stat().st_mode) == 0o600
    assert str((keys / "host.key").resolve()) in settings.read_text()
    settings.write_text("emails: {}\n")
    path = commit_file(games, "g", "red", keys)
    ok("sign", path, "--key", keys / "red.key")
    before = snapshot(games)
    result = run("apply", path, "--games", games)
    assert result.exit_code == Exit.SIGNATURE and "host key" in result.output
    settings.write_text(f"host_key: {keys / 'mallory.key'}\n")
    result = run("apply", path, "--games", games)
    assert result.exit_code == Exit.SIGNATURE and "not the key recorded in entry 0" in result.output
    after = snapshot(games)
    assert {k: v for k, v in after.items() if k != "g/host.yaml"} == {
        k: v for k, v in before.items() if k != "g/host.yaml"
    }


def test_new_refuses_bad_registrations(keys: Path) -> None:
    games = keys / "games"
    base: list[str | Path] = ["new", "g", "--players", "red,blue", "--games", games]
    assert run(*base, "--seat-key", f"green={keys / 'red.key.pub'}").exit_code == Exit.FORMAT
    result = run(*base, "--seat-key", f"red={keys / 'red.key'}")
    assert result.exit_code == Exit.FORMAT and "private key" in result.output
    assert run(*base, "--seat-email", "red=not-an-address").exit_code == Exit.FORMAT
    assert run(*base, "--host-key", keys / "host.key.pub").exit_code == Exit.FORMAT
    assert not games.exists() or not (games / "g").exists()


def test_a_signed_move_of_a_player_without_key_is_refused(tmp_path: Path) -> None:
    games = tmp_path / "games"
    ok("new", "g", "--players", "red,blue", "--games", games)
    ok("keygen", "--out", tmp_path / "k")
    path = commit_file(games, "g", "red", tmp_path)
    ok("sign", path, "--key", tmp_path / "k")
    before = snapshot(games)
    result = run("apply", path, "--games", games)
    assert result.exit_code == Exit.SIGNATURE and "(P8)" in result.output and "no registered key" in result.output
    assert snapshot(games) == before
    data = parse_move(path.read_bytes()).to_raw()
    del data["signature"]
    path.write_text(dump_yaml(data))
    ok("apply", path, "--games", games)
    game = load_game(games / "g")
    assert game.last_seq == 1 and "red" in game.commits and "red" not in game.keys


def test_check_tells_a_player_before_mailing_that_the_signature_is_missing_or_wrong(keys: Path) -> None:
    """`pbem check` runs the host's P8 check on the public log, so a player learns
    of a missing or wrong signature before the move travels, the reveal included."""
    games = new_signed_game(keys)
    log = games / "g" / "log.yaml"
    path = commit_file(games, "g", "red", keys)
    result = run("check", path, "--log", log)
    assert result.exit_code == Exit.SIGNATURE and "not signed" in result.output
    ok("sign", path, "--key", keys / "mallory.key")
    result = run("check", path, "--log", log)
    assert result.exit_code == Exit.SIGNATURE and "does not verify" in result.output
    ok("sign", path, "--key", keys / "red.key")
    assert "ok: red's nonce commitment would be recorded (P4)" in ok("check", path, "--log", log)
    ok("apply", path, "--games", games)
    blue = commit_file(games, "g", "blue", keys)
    ok("sign", blue, "--key", keys / "blue.key", "--register")
    ok("apply", blue, "--games", games, "--confirm-key")
    reveal = reveal_file(games, "g", "blue", keys)
    result = run("check", reveal, "--log", log)
    assert result.exit_code == Exit.SIGNATURE and "not signed" in result.output
    ok("sign", reveal, "--key", keys / "blue.key")
    assert "ok: blue's nonce matches the commitment" in ok("check", reveal, "--log", log)
