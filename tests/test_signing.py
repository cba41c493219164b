"""P8: key files, signing move files, the host refusing unsigned or wrongly signed
moves, the host signing every entry, and `pbem verify` naming what fails."""

from __future__ import annotations

import json
import random
import re
import stat
from pathlib import Path

import pytest
from clitools import cli as run
from clitools import ok, snapshot

from pbem.demo import bot_actions, write_move
from pbem.host import load_game
from pbem.logfile import LOG_NAME, check_chain, link
from pbem.moves import after_of, parse_move, read_move, schema
from pbem.protocol import ZERO_HASH, entry_hash
from pbem.replay import Game, replay
from pbem.signing import move_message, verify
from pbem.yamlio import dump_entry, dump_yaml, load_stream


@pytest.fixture()
def keys(tmp_path: Path) -> Path:
    for name in ("host", "red", "blue", "mallory"):
        ok("keygen", "--out", tmp_path / f"{name}.key")
    return tmp_path


def nonce_file(games: Path, game_id: str, player: str, folder: Path) -> Path:
    out = folder / f"{player}-nonce.yaml"
    ok("template", game_id, "--player", player, "--out", out, "--games", games)
    return out


def new_signed_game(keys: Path, host_key: bool = True) -> Path:
    games = keys / "games"
    args: list[str | Path] = ["new", "g", "--players", "red,blue", "--first", "red", "--games", games,
            "--key", f"red={keys / 'red.key.pub'}"]
    if host_key:
        args += ["--host-key", keys / "host.key"]
    ok(*args)
    return games


def load_game_unchecked(log: Path) -> Game:
    entries = load_stream(log.read_text(), "log")
    return replay(entries, check_chain(entries))


def test_keygen_files(keys: Path) -> None:
    private, public = keys / "red.key", keys / "red.key.pub"
    assert stat.S_IMODE(private.stat().st_mode) == 0o600
    line = public.read_text()
    assert line.endswith("\n") and line.count("\n") == 1
    assert re.match(schema("move.json")["properties"]["key"]["pattern"], line.strip())
    result = run("keygen", "--out", private)
    assert result.exit_code == 10 and "does not overwrite" in result.output


def test_sign_keeps_the_file_text_and_replaces_an_old_signature(keys: Path) -> None:
    games = new_signed_game(keys)
    path = nonce_file(games, "g", "red", keys)
    before = path.read_text()
    ok("sign", path, "--key", keys / "blue.key")
    ok("sign", path, "--key", keys / "red.key")
    text = path.read_text()
    assert text.startswith(before) and text.count("signature:") == 1
    move = read_move(path)
    public = (keys / "red.key.pub").read_text().strip()
    assert verify(public, move.data["signature"], move_message(move.data))
    # CRLF files stay CRLF; a flow-style document is rewritten plainly
    crlf = keys / "crlf.yaml"
    crlf.write_bytes(before.replace("\n", "\r\n").encode())
    ok("sign", crlf, "--key", keys / "red.key")
    assert b"\r\nsignature: " in crlf.read_bytes() and b"\n" not in crlf.read_bytes().replace(b"\r\n", b"")
    flow = keys / "flow.yaml"
    flow.write_text(json.dumps({k: v for k, v in move.data.items() if k != "signature"}))
    ok("sign", flow, "--key", keys / "red.key")
    assert read_move(flow).data == move.data


def test_apply_refuses_unsigned_and_wrongly_signed_moves(keys: Path) -> None:
    games = new_signed_game(keys)
    path = nonce_file(games, "g", "red", keys)
    before = snapshot(games)
    result = run("apply", path, "--games", games)
    assert result.exit_code == 8 and "(P8)" in result.output and "not signed" in result.output
    ok("sign", path, "--key", keys / "mallory.key")
    result = run("apply", path, "--games", games)
    assert result.exit_code == 8 and "does not verify" in result.output
    # signed, then changed: the signature is over the parsed move
    ok("sign", path, "--key", keys / "red.key")
    path.write_text(path.read_text().replace('nonce: "00"', 'nonce: "01"'))
    assert run("apply", path, "--games", games).exit_code == 8
    assert snapshot(games) == before
    path.write_text(path.read_text().replace('nonce: "01"', 'nonce: "00"'))
    # comments and quoting do not matter, only the parsed move does
    path.write_text("# a comment added after signing\n" + path.read_text().replace('"00"', "'00'"))
    ok("apply", path, "--games", games)


def test_a_nonce_registers_a_key_it_is_signed_with(keys: Path) -> None:
    games = new_signed_game(keys)
    blue = nonce_file(games, "g", "blue", keys)
    ok("sign", blue, "--key", keys / "blue.key", "--register")
    text = blue.read_text()
    # registering a key, but signed with another: refused
    forged = keys / "forged.yaml"
    forged.write_text(text)
    ok("sign", forged, "--key", keys / "blue.key")
    mallory = (keys / "mallory.key.pub").read_text().strip()
    blue_pub = (keys / "blue.key.pub").read_text().strip()
    forged.write_text(forged.read_text().replace(blue_pub, mallory))
    assert run("apply", forged, "--games", games).exit_code == 8
    # red may not swap the key registered at 'pbem new' for another
    red = nonce_file(games, "g", "red", keys)
    ok("sign", red, "--key", keys / "red.key", "--register")
    ok("apply", red, "--games", games)
    ok("apply", blue, "--games", games)
    game = load_game(games / "g")
    assert game.keys["blue"] == blue_pub and game.started
    # from now on blue's moves must be signed with that key
    assert game.state is not None and game.state.to_move == "red"
    move = write_move(game, "red", bot_actions(game.state, random.Random(1)), keys, 1)
    assert run("apply", move, "--games", games).exit_code == 8
    ok("sign", move, "--key", keys / "red.key")
    ok("apply", move, "--games", games)
    game = load_game(games / "g")
    assert game.state is not None
    move = write_move(game, "blue", bot_actions(game.state, random.Random(2)), keys, 2)
    assert run("apply", move, "--games", games).exit_code == 8
    ok("sign", move, "--key", keys / "blue.key")
    ok("apply", move, "--games", games)
    out = ok("verify", games / "g" / LOG_NAME)
    assert "all 6 entries carry the host's signature (P8)" in out
    assert "4 signed moves verify" in out


def test_host_signs_every_entry_and_verify_names_an_altered_one(keys: Path) -> None:
    games = new_signed_game(keys)
    for player, key in (("red", "red.key"), ("blue", "blue.key")):
        path = nonce_file(games, "g", player, keys)
        ok("sign", path, "--key", keys / key, "--register")
        ok("apply", path, "--games", games)
    log = games / "g" / LOG_NAME
    entries = load_stream(log.read_text(), "log")
    host_pub = (keys / "host.key.pub").read_text().strip()
    assert entries[0]["host_key"] == host_pub
    for entry in entries:
        assert verify(host_pub, entry["signature"], entry_hash(entry).encode("ascii"))
    assert "all 4 entries carry" in ok("verify", log)
    # alter entry 2's signature (the hash chain ignores it, the signature check does not)
    other = entries[1]["signature"]
    entries[2]["signature"] = other
    log.write_text("".join(dump_entry(e) for e in entries))
    result = run("verify", log)
    assert result.exit_code == 8
    assert "entry 2: the host signature does not verify" in result.output
    assert "entry 1" not in result.output
    # the host refuses to add to such a log, and the audit does not call it fair
    game = load_game_unchecked(log)
    assert game.state is not None
    move = write_move(game, "red", bot_actions(game.state, random.Random(1)), keys, 1)
    ok("sign", move, "--key", keys / "red.key")
    before = snapshot(games)
    result = run("apply", move, "--games", games)
    assert result.exit_code == 8 and "entry 2: the host signature" in result.output
    assert snapshot(games) == before
    # dropping a signature is named too
    del entries[2]["signature"]
    log.write_text("".join(dump_entry(e) for e in entries))
    result = run("verify", log)
    assert result.exit_code == 8 and "entry 2: no host signature" in result.output


def test_verify_checks_player_signatures_in_the_log(keys: Path) -> None:
    games = new_signed_game(keys, host_key=False)
    path = nonce_file(games, "g", "red", keys)
    ok("sign", path, "--key", keys / "red.key")
    ok("apply", path, "--games", games)
    log = games / "g" / LOG_NAME
    entries = load_stream(log.read_text(), "log")
    assert "1 signed moves verify" in ok("verify", log)
    # a host who rewrites red's nonce (and re-chains the log) is caught by red's signature
    entries[1]["move"]["nonce"] = "ff"
    prev = ZERO_HASH
    for seq, entry in enumerate(entries):
        entries[seq] = link(entry, seq, prev)
        prev = entry_hash(entries[seq])
    log.write_text("".join(dump_entry(e) for e in entries))
    result = run("verify", log)
    assert result.exit_code == 8 and "entry 1: red's move signature does not verify" in result.output


def test_the_host_needs_its_key(keys: Path) -> None:
    games = new_signed_game(keys)
    settings = games / "g" / "host.yaml"
    assert stat.S_IMODE(settings.stat().st_mode) == 0o600
    assert str((keys / "host.key").resolve()) in settings.read_text()
    settings.write_text("emails: {}\n")
    path = nonce_file(games, "g", "red", keys)
    ok("sign", path, "--key", keys / "red.key")
    before = snapshot(games)
    result = run("apply", path, "--games", games)
    assert result.exit_code == 8 and "host key" in result.output
    settings.write_text(f"host_key: {keys / 'mallory.key'}\n")
    result = run("apply", path, "--games", games)
    assert result.exit_code == 8 and "not the key recorded in entry 0" in result.output
    after = snapshot(games)
    assert {k: v for k, v in after.items() if k != "g/host.yaml"} == {
        k: v for k, v in before.items() if k != "g/host.yaml"
    }


def test_new_refuses_bad_registrations(keys: Path) -> None:
    games = keys / "games"
    base: list[str | Path] = ["new", "g", "--players", "red,blue", "--games", games]
    assert run(*base, "--key", f"green={keys / 'red.key.pub'}").exit_code == 3
    result = run(*base, "--key", f"red={keys / 'red.key'}")
    assert result.exit_code == 3 and "private key" in result.output
    assert run(*base, "--email", "red=not-an-address").exit_code == 3
    assert run(*base, "--host-key", keys / "host.key.pub").exit_code == 3
    assert not games.exists() or not (games / "g").exists()


def test_a_signed_move_of_a_player_without_key_is_refused(tmp_path: Path) -> None:
    games = tmp_path / "games"
    ok("new", "g", "--players", "red,blue", "--games", games)
    ok("keygen", "--out", tmp_path / "k")
    path = nonce_file(games, "g", "red", tmp_path)
    ok("sign", path, "--key", tmp_path / "k")
    result = run("apply", path, "--games", games)
    assert result.exit_code == 8 and "no registered key" in result.output
    data = parse_move(path.read_bytes()).data
    del data["signature"]
    path.write_text(dump_yaml(data))
    ok("apply", path, "--games", games)
    assert after_of(load_game(games / "g"))["seq"] == 1


def test_check_tells_a_player_before_mailing_that_the_signature_is_missing_or_wrong(keys: Path) -> None:
    """`pbem check` runs the host's P8 check on the public log, so a player learns
    of a missing or wrong signature before the move travels."""
    games = new_signed_game(keys)
    log = games / "g" / "log.yaml"
    path = nonce_file(games, "g", "red", keys)
    result = run("check", path, "--log", log)
    assert result.exit_code == 8 and "not signed" in result.output
    ok("sign", path, "--key", keys / "mallory.key")
    assert run("check", path, "--log", log).exit_code == 8
    ok("sign", path, "--key", keys / "red.key")
    assert "ok:" in ok("check", path, "--log", log)
