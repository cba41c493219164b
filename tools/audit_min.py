#!/usr/bin/env python3
"""A minimal auditor of a finished pbem game, independent of pbem: read it next to docs/protocol.md.
Usage: python tools/audit_min.py LOG.yaml [LOG.yaml.gz ...].  Standard library only (`cryptography` for keys).  It
checks steps 1-5 of docs/protocol.md section 5, not the rules of Rattus (`pbem audit` replays them).  Exit codes are
pbem's: 0 verified, 7 the log does not verify, 8 a signature fails, 10 no secret yet.  The last line is the verdict.
"""

import base64, gzip, hashlib, hmac, itertools, json, pathlib, re, sys  # noqa: E401 (one line: this file stays under 300)
from collections.abc import Iterator
from typing import Any

DOC = "docs/protocol.md"
PROTOCOL, TAG, ZERO = "pbem-rattus/v2", b"pbem-rattus/v1", "0" * 64
STANDARD_DATA = {"e0f86fa0d1d799615f005d3242a854c84b646916a8fa9230c9d69b1bc23d2a42"}  # pbem's data/
REMOVED_NORMALS = {2: 12, 3: 6, 4: 0}  # P5 step 3, by player count
AT = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z\Z")
Entry = Any  # one JSON object of the log (P2: str, int, bool, null, list, map)

class Refused(Exception):  # the log fails: ``entry`` is the first failing entry (None: the log as a whole)
    def __init__(self, entry: int | None, rule: str, why: str, code: int = 7) -> None:
        super().__init__(why)
        self.entry, self.rule, self.why, self.code = entry, rule, why, code

# --- P2: bytes -----------------------------------------------------------------------
def H(data: bytes) -> bytes: return hashlib.sha256(data).digest()  # SHA-256
def HMAC(key: bytes, msg: bytes) -> bytes: return hmac.new(key, msg, hashlib.sha256).digest()  # HMAC-SHA-256

def canonical(value: Any) -> bytes:
    """Canonical JSON: sorted keys, no spaces, UTF-8 (JCS within P2's limits)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()

def is_hex(value: Any, length: int | None = None) -> bool:  # lowercase, whole bytes, exact length
    return isinstance(value, str) and bool(re.fullmatch(r"([0-9a-f]{2})*", value)) and length in (None, len(value))

# --- P7: read the log and check the chain -------------------------------------------
def unique(pairs: list[tuple[str, Any]]) -> Entry:  # P2: no key twice
    if len({k for k, _ in pairs}) != len(pairs):
        raise ValueError("a key appears twice")
    return dict(pairs)

def reject(text: str) -> Any:  # P2: no float, no NaN or Infinity
    raise ValueError(f"{text} is not a JSON value P2 admits (no floats, NaN or Infinity)")

def plain(value: Any, depth: int = 0) -> Any:  # P2: integers (not booleans) within 2^53, at most 32 levels deep
    if depth > 32 or (type(value) is int and abs(value) > 2**53):
        raise ValueError("nested more than 32 levels deep" if depth > 32 else f"the integer {value} is beyond 2^53")
    for item in value.values() if isinstance(value, dict) else value if isinstance(value, list) else ():
        plain(item, depth + 1)
    return value

def b64(text: Any, size: int) -> bytes:  # P2: the canonical base64 of `size` bytes (re-encoded and compared)
    raw = base64.b64decode(str(text), validate=True)
    if len(raw) != size or base64.b64encode(raw).decode() != text:
        raise ValueError("not canonical base64")
    return raw

def read_docs(path: str) -> list[Entry]:
    """A YAML stream whose documents are JSON objects: split at '---', read each as JSON (gzipped: log.yaml.gz)."""
    data = pathlib.Path(path).read_bytes()
    try:  # a gzip cut short or broken (OSError, EOFError), or not UTF-8 (ValueError): refused as below
        text = (gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data).decode("utf-8")
        return [plain(json.loads(doc, object_pairs_hook=unique, parse_float=reject, parse_constant=reject))
                for doc in re.split(r"(?m)^---[ \t]*\r?\n", text) if doc.strip()]
    except (ValueError, RecursionError, OSError, EOFError) as err:  # RecursionError: json.loads, very deep nesting
        raise Refused(None, "P2", f"the log cannot be read: {'too deep' if type(err) is RecursionError else err}") from None

def entry_hash(entry: Entry) -> str:  # P7: H(canonical JSON of the entry without its signature), as hex
    return H(canonical({k: v for k, v in entry.items() if k != "signature"})).hex()

def check_chain(entries: list[Entry]) -> list[str]:
    if not entries:
        raise Refused(None, "P3", "the log is empty")
    hashes, prev = [], ZERO
    for seq, entry in enumerate(entries):
        if not isinstance(entry, dict) or type(entry.get("seq")) is not int or entry["seq"] != seq:
            raise Refused(seq, "P7", f"its seq is not {seq} (an entry was dropped, inserted or moved)")
        if entry.get("prev") != prev:
            raise Refused(seq, "P7", "its prev is not the hash of the entry before")
        hashes.append(prev := entry_hash(entry))
    return hashes

# --- P3: entry 0 ------------------------------------------------------------------------
def check_first(first: Entry) -> None:
    try:
        data, secret, edition = first["data"], first["secret"], first["edition"]
        for holds, why in [
            (first["kind"] == "create" and first["protocol"] == PROTOCOL, f"not a 'create' entry of {PROTOCOL}"),
            (AT.match(str(first["at"])), "its 'at' is not a time like 2026-11-30T09:15:00Z"),
            (H(canonical({"map": data["map"], "tokens": data["tokens"]})).hex() == first["data_hash"],
             "its data_hash is not the hash of its map and token catalogue"),
            (edition == "custom" or first["data_hash"] in STANDARD_DATA, "it claims the standard edition, "
             "but its map or token catalogue differ from the data pbem ships"),
            (edition in ("standard", "custom") and secret["made"] in ("os-csprng", "supplied")
             and is_hex(secret["commitment"], 64), "a bad edition, secret.made or secret commitment"),
        ]:
            if not holds:
                raise Refused(0, "P3", f"the first entry is malformed: {why}")
    except (KeyError, TypeError) as err:
        raise Refused(0, "P3", f"the first entry is malformed: no field {err}") from None

def notices(first: Entry, nonces: list[bytes]) -> list[str]:  # what a reader of such a game must know (P3, P4, P7)
    bots = ", ".join(f"{p} ({level})" for p, level in sorted(first["options"].get("bots", {}).items()))
    seeds = ", ".join(p for p, n in zip(first["players"], nonces) if n and p not in first["options"].get("bots", {}))
    return [f"seed (P4): from the host's secret and the nonces of {seeds or 'no player'}"] + [text for holds, text in [
        (not seeds, "HOST'S DEAL: no player's nonce went into the seed (P4): the host alone could choose the deal"),
        (first["secret"]["made"] == "supplied", "TEST GAME: its secret was supplied, not made by the OS (P7); "
         "whoever knows it knows every face, so it proves nothing about fair play"),
        (bots, f"BOT SEATS: {bots} played by the host's bots: the host holds those seats and made their nonces (P4)"),
        (first["edition"] == "custom", "CUSTOM GAME: not pbem's standard map or rat tokens (P3)"),
        (True, "not checked: the moves were not replayed under the rules of Rattus (pbem audit does)")] if holds]

# --- P4, P6, P7: each entry in order, with public data only ----------------------------
def check_entries(entries: list[Entry], hashes: list[str]) -> dict[str, Any]:
    """Returns what the secret-based audit needs: the start entry, its seq, the nonces, the secret."""
    first, players = entries[0], list(entries[0]["players"])
    commits, nonces, waived = dict[str, str](), dict[str, str](), set[str]()  # P4, player by player
    found: dict[str, Any] = {"start": None, "secret": None, "flips": 0}
    last_at, seq = first["at"], 0
    try:  # a field missing or of the wrong type: the entry is malformed
        for seq, e in enumerate(entries[1:], start=1):
            kind, player, move = e.get("kind"), e.get("player"), e.get("move")
            if not AT.match(str(e.get("at"))) or e["at"] < last_at:
                raise Refused(seq, "P7", "its 'at' is not a time, or earlier than the entry before")
            last_at = e["at"]
            if kind in ("commit", "nonce", "move", "resign", "away"):  # P7: a move names the entry it answers
                answers, after = (0 if kind in ("commit", "nonce") else seq - 1), move.get("after", {})
                while answers and after.get("seq") != answers and entries[answers].get("kind") == "away" \
                        and entries[answers].get("player") != player: answers -= 1  # R8.5: others' absences
                if (type(after.get("seq")) is not int or after["seq"] != answers or player not in players
                        or len(after.get("hash", "")) < 16 or not hashes[answers].startswith(after["hash"])
                        or (move["player"], move["kind"]) != (player, kind)):
                    raise Refused(seq, "P7", f"the recorded move does not answer entry {answers}, or is not {player}'s")
            if kind == "commit":  # P4 round 1
                if player in commits or player in waived or nonces or not is_hex(move.get("nonce_commitment"), 64):
                    raise Refused(seq, "P4", f"{player}'s commitment cannot be recorded here")
                commits[player] = move["nonce_commitment"]
            elif kind == "waive":  # P4: only before the first reveal
                if player not in players or player in commits or player in waived or nonces:
                    raise Refused(seq, "P4", f"{player!r}'s seat cannot be waived here")
                waived.add(player)
            elif kind == "nonce":  # P4 round 2: every seat committed or waived; the nonce opens its commitment
                nonce = move.get("nonce")
                if len(commits) + len(waived) != len(players) or player not in commits or player in nonces:
                    raise Refused(seq, "P4", f"{player}'s nonce cannot be revealed here")
                if not is_hex(nonce) or not 32 <= len(nonce) <= 128 \
                        or H(TAG + b"/nonce" + bytes.fromhex(nonce)).hex() != commits[player]:
                    raise Refused(seq, "P4", f"{player}'s nonce does not match the commitment")
                nonces[player] = nonce
            elif kind == "start":  # P4: the entry after the last reveal, with every nonce
                if found["start"] or len(nonces) != len(commits) or len(commits) + len(waived) != len(players):
                    raise Refused(seq, "P4", "a start before every nonce was revealed")
                if e.get("nonces") != {p: nonces.get(p, "") for p in players}:
                    raise Refused(seq, "P4", "the nonces differ from the revealed ones")
                commitments = e.get("commitments")
                if not isinstance(commitments, list) or [is_hex(c, 64) for c in commitments] != [True] * 49:
                    raise Refused(seq, "P6", "the start entry is malformed: there must be 49 commitments")
                found["start"], found["start_seq"] = e, seq
            elif kind in ("move", "timeout", "standin"):  # P6: every revealed face opens its commitment
                if kind == "timeout" and not e["at"] >= e["due"]:  # R8.2 (pbem verify recomputes 'due')
                    raise Refused(seq, "R8.2", f"a timeout at {e['at']}, before its deadline {e['due']}")
                for ev in e.get("outcome") or []:
                    if isinstance(ev, dict) and ev.get("event") == "token_flipped":
                        token, token_id, salt = str(ev.get("token")), ev.get("token_id"), str(ev.get("salt"))
                        i = int(token[1:]) if re.fullmatch(r"t[0-9]{2}", token) else 0
                        if not 1 <= i <= 49 or not is_hex(salt, 32) or not isinstance(token_id, str) or \
                                H(TAG + b"/token" + bytes([i]) + bytes.fromhex(salt) + token_id.encode()).hex() \
                                != found["start"]["commitments"][i - 1]:
                            raise Refused(seq, "P6", f"the reveal of {token} ({token_id}) does not match its "
                                          "commitment in the start entry")
                        found["flips"] += 1
            elif kind == "reveal":  # P3: the secret opens the commitment of entry 0
                secret = bytes.fromhex(e["secret"])
                if found["secret"] or H(TAG + b"/secret" + secret).hex() != first["secret"]["commitment"]:
                    raise Refused(seq, "P3", "the revealed secret does not match the commitment of entry 0")
                found["secret"] = secret
            elif kind not in ("abandon", "resign", "replace", "away"):  # R8.4-R8.5: rules, not P3-P7
                raise Refused(seq, "P7", f"unknown entry kind {kind!r}")
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as err:
        raise Refused(seq, "P7", f"the entry is malformed ({type(err).__name__}: {err})") from None
    return {**found, "nonces": [bytes.fromhex(nonces.get(p, "")) for p in players]}

# --- P8: signatures (only when the log has keys) ----------------------------------------
def check_signatures(entries: list[Entry]) -> str | None:
    first, moves = entries[0], [e["move"] for e in entries if isinstance(e.get("move"), dict)]
    if not (first.get("host_key") or first.get("keys") or any("signature" in e for e in entries + moves)
            or any("key" in m for m in moves) or any(e.get("kind") == "replace" and "key" in e for e in entries)):
        return None
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey  # P8: only for a log with keys
    def verify(public: Any, signature: Any, message: bytes) -> bool:  # canonical base64 only (P2)
        try:
            Ed25519PublicKey.from_public_bytes(b64(str(public)[8:], 32)).verify(b64(signature, 64), message)
            return str(public).startswith("ed25519:")
        except Exception:  # not canonical base64, cryptography's InvalidSignature, a point that is not a key
            return False
    host, keys = first.get("host_key"), dict(first.get("keys") or {})
    for seq, e in enumerate(entries):
        if (host is not None or "signature" in e) and not verify(host, e.get("signature"), entry_hash(e).encode()):
            raise Refused(seq, "P8", "the host signature does not verify (or entry 0 names no host key)", 8)
        move, player, kind = e.get("move"), e.get("player"), e.get("kind")
        if kind == "replace":  # R8.4: the seat's new key from here on (none: unsigned)
            keys.pop(player, None) if "key" not in e else keys.update({player: e["key"]})
        public = keys.get(player) or (move.get("key") if kind == "commit" and isinstance(move, dict) else None)
        body = {k: v for k, v in move.items() if k != "signature"} if isinstance(move, dict) else None
        if body is not None and (public is not None or "signature" in move):
            if not verify(public, move.get("signature"), canonical(body)):
                raise Refused(seq, "P8", f"{player}'s move signature does not verify", 8)
            keys.update({player: public} if kind == "commit" else {})  # the key a commitment registers
        if len(set(keys.values())) < len(keys) or (host is not None and host in keys.values()):
            raise Refused(seq, "P8", "one key sits on two seats, or on a seat and the host")
    return f"every signature verifies ({'host key, ' if host else ''}{len(keys)} player key(s), P8)"

# --- P4-P6: with the revealed secret, recompute the seed, the deal, the commitments ----
def stream(seed: bytes) -> Iterator[int]:  # P5: the u64 words of HMAC(seed, tag/drbg || u64(k)), k = 0, 1, ...
    for k in itertools.count():
        block = HMAC(seed, TAG + b"/drbg" + k.to_bytes(8, "big"))
        yield from (int.from_bytes(block[i:i + 8], "big") for i in range(0, 32, 8))

def below(words: Iterator[int], n: int) -> int:  # P5: the first word under 2^64 - (2^64 mod n), mod n
    return next(x % n for x in words if x < 2**64 - 2**64 % n)

def shuffle(words: Iterator[int], items: list[str]) -> None:  # P5: Fisher-Yates, i = len-1 .. 1, j = below(i + 1)
    for i in range(len(items) - 1, 0, -1):
        j = below(words, i + 1)
        items[i], items[j] = items[j], items[i]

def audit_with_secret(first: Entry, found: dict[str, Any]) -> list[str]:
    players, secret, start, seq = first["players"], found["secret"], found["start"], found["start_seq"]
    gid = first["game"].encode()
    msg = TAG + b"/seed" + bytes([len(gid)]) + gid + bytes([len(players)])
    seed = HMAC(secret, msg + b"".join(bytes([len(n)]) + n for n in found["nonces"]))  # P4
    regions = [r["id"] for r in first["data"]["map"]["regions"]
               if r["shade"] in first["data"]["map"]["players"][str(len(players))]]
    catalogue = first["data"]["tokens"]["tokens"]
    starting, normal = [t["id"] for t in catalogue if t["start"]], [t["id"] for t in catalogue if not t["start"]]
    words = stream(seed)  # P5, the draws in this order:
    first_player = first["options"]["first"] or players[below(words, len(players))]
    shuffle(words, starting)
    on_board, unused = starting[:len(regions)], starting[len(regions):]
    shuffle(words, normal)
    removed, kept = normal[:REMOVED_NORMALS[len(players)]], normal[REMOVED_NORMALS[len(players)]:]
    supply = kept + unused
    shuffle(words, supply)
    plague = regions[below(words, len(regions))]
    dealt = on_board + supply + removed  # P6: position i is dealt[i - 1]
    names = [f"t{i:02d}" for i in range(1, len(dealt) + 1)]
    setup = {"first_player": first_player, "board": dict(zip(regions, names, strict=False)),
             "supply": names[len(on_board):len(on_board) + len(supply)],
             "removed": names[len(on_board) + len(supply):], "plague": plague}
    salts = [HMAC(seed, TAG + b"/salt" + bytes([i]))[:16] for i in range(1, len(dealt) + 1)]
    commits = [H(TAG + b"/token" + bytes([i]) + salts[i - 1] + dealt[i - 1].encode()).hex()
               for i in range(1, len(dealt) + 1)]
    if start.get("setup") != setup:
        raise Refused(seq, "P5", "the published setup is not what the revealed secret gives")
    if start["commitments"] != commits:
        raise Refused(seq, "P5", "the published commitments are not what the revealed secret gives")
    if sorted(dealt) != sorted(t["id"] for t in catalogue) or len(dealt) != 49:
        raise Refused(None, "P6", "the 49 committed tokens are not the game's catalogue")
    # Flipped faces opened their commitments (check_entries), which are the deal's: each is the dealt token, salted.
    return ["the secret matches its commitment (P3)",
            "the seed, every draw and the public setup are what the secret and nonces give (P4-P5)",
            "all 49 commitments recomputed; they commit to exactly the game's catalogue (P6)",
            f"all {found['flips']} flipped tokens are the dealt tokens, with their salts (P6)"]

def audit(path: str) -> tuple[int, list[str]]:  # (exit code, lines to print) for one log; the last is the verdict
    try:
        entries = read_docs(path)
        hashes = check_chain(entries)
        lines = [f"ok: {len(entries)} entries; the chain holds (P7)"]
        check_first(entries[0])
        found = check_entries(entries, hashes)
        signatures = check_signatures(entries)  # before the secret: a bad signature is not "not yet"
        if found["secret"] is None:
            raise Refused(None, "P6", "the audit needs the revealed secret", 10)
        lines += [f"ok: {signatures}"] if signatures else []
        lines += [f"ok: {line}" for line in audit_with_secret(entries[0], found)]
    except Refused as err:
        where = f"entry {err.entry}" if err.entry is not None else "the log"
        return err.code, [f"failed: {where}: {err.why} ({err.rule})", verdict(err)]
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as err:  # a malformed entry
        return 7, [f"failed: malformed log ({type(err).__name__}: {err})", verdict(Refused(None, "P7", ""))]
    return 0, [*lines, *(notes := notices(entries[0], found["nonces"])), verdict(None, notes)]

def verdict(err: Refused | None, notes: Any = ()) -> str:  # word for word as `pbem audit` prints it
    if err is None:  # P4: a deal that no player's nonce went into is never FAIR
        return (f"verdict: HOST'S DEAL. No player's nonce went into the seed, so the host alone could choose the deal "
                f"(P4; how to check: {DOC})." if any(n.startswith("HOST'S DEAL") for n in notes) else
                f"verdict: FAIR. The rat order was fixed at the start and never touched (how to check: {DOC}).")
    if err.code == 10:
        return f"verdict: NOT YET. The secret is revealed when the game is over (P6; how to check: {DOC})."
    where = f"at entry {err.entry}" if err.entry is not None else "as a whole"
    return f"verdict: REFUSED. The log does not verify {where} ({err.rule}; how to check: {DOC})."

def main(paths: list[str]) -> int:  # several logs: each under a '== PATH' line; the exit code is the worst
    results = [(path, *audit(path)) for path in paths]
    print("\n".join(line for path, _, lines in results for line in [f"== {path}"] * (len(paths) > 1) + lines))
    return max((code for _, code, _ in results), default=2)

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
