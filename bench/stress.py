"""The long hardening campaign, one command printing every figure (docs/benchmarks.md, "Robustness").

    python bench/stress.py            # the full campaign (about 6-8 minutes on 2 cores)
    python bench/stress.py --quick    # a short one (about a minute)

Figures (the targets are all 0 except the last):
- inputs tried, crashes (a traceback or exit 1 "internal error"), files
  changed by a refused input: random and hostile move files (turns, and the
  opening's commitments and nonces, P4) and mail messages (``pbem apply MESSAGE.eml``), tampered logs
  (each run through verify, show, show --json, template, apply, check, audit),
  damaged secret files;
- peak memory (max RSS) of refusing a 100 MB move file, a 100 MB message and a
  100 MB log, beside ``pbem --version``;
- torn entries and lost entries after SIGKILLs at random moments of
  ``pbem apply`` processes;
- lost updates and interleaved entries with rival processes on one game and
  one process per game on many games;
- leaks (P6): a face-down token's face or salt in any public output, over
  whole bot games, and secret/private files not 0600;
- the mail host (``--mail`` runs only this): hostile messages mixed
  with valid moves in one Maildir, replies through an aiosmtpd server on
  127.0.0.1 that answers 451 to every third message (applied, quarantined,
  delivered exactly once), and the 226,000-part MIME bomb's time and memory.

The tools are tests/hardening.py's, the same the test suite uses.
"""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing
import random
import string
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import yaml
from hardening import (
    ACTIONS_ONLY,
    PBEM,
    Changed,
    Crash,
    FuzzHost,
    LeakCheck,
    hostile_emls,
    hostile_moves,
    kill_campaign,
    leak_game,
    leak_game_memory,
    make_game,
    mutate_bytes,
    mutate_log,
    race_many_games,
    race_one_game,
    valid_eml,
)


class Tally:
    def __init__(self) -> None:
        self.inputs = 0
        self.crashes: list[str] = []
        self.changed: list[str] = []

    def run(self, what: str, fn: Any, *args: Any) -> None:
        self.inputs += 1
        try:
            fn(*args)
        except Changed as err:
            self.changed.append(f"{what}: {err}")
        except Crash as err:
            self.crashes.append(f"{what}: {err}")
        except Exception:
            self.crashes.append(f"{what}: {traceback.format_exc(limit=3)}")


def random_doc(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.randrange(9 if depth < 4 else 6)
    if kind == 0:
        return None
    if kind == 1:
        return rng.choice([True, False])
    if kind == 2:
        return rng.choice([0, -1, 2**53, 2**53 + 1, 10**30, rng.randrange(-100, 100)])
    if kind == 3:
        return rng.choice([1.5, float("inf"), float("nan"), -0.0])
    if kind in (4, 5):
        return "".join(rng.choice(string.printable) for _ in range(rng.randrange(12)))
    if kind == 6:
        return [random_doc(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {rng.choice(["game", "player", "kind", "after", "actions", "seq", "hash", "x", 1, True]):
            random_doc(rng, depth + 1) for _ in range(rng.randrange(4))}


def fuzz(root: Path, n: int, seed: int, tally: Tally) -> None:
    """Move files, logs, secret files: ``n`` random inputs of each family (logs n // 3)."""
    host = FuzzHost(root)
    rng = random.Random(seed)
    for name, data in hostile_moves(host.valid).items():
        tally.run(f"hostile move {name!r}", host.apply, data, name, name not in ("crlf", "bom"))
        tally.run(f"hostile move {name!r} (check)", host.check, data, name)
    for which, valid in (("commit", host.valid_commit), ("nonce", host.valid_nonce)):  # the opening (P4)
        for name, data in hostile_moves(valid).items():
            if name not in ACTIONS_ONLY:
                tally.run(f"hostile {which} {name!r}", host.apply, data, name, name not in ("crlf", "bom"))
    families = [
        ("random bytes", lambda: bytes(rng.randrange(256) for _ in range(rng.randrange(2000)))),
        ("random text", lambda: "".join(rng.choice(string.printable) for _ in range(rng.randrange(400))).encode()),
        ("random YAML", lambda: yaml.safe_dump(random_doc(rng)).encode()),
        ("edited move", lambda: edited_move(host.valid, rng)),
        ("byte-edited move", lambda: mutate_n(host.valid, rng, mutate_bytes)),
        ("edited commit", lambda: edited_move(host.valid_commit, rng)),
        ("byte-edited nonce", lambda: mutate_n(host.valid_nonce, rng, mutate_bytes)),
    ]
    for family, make in families:
        for _ in range(n):
            data = make()
            tally.run(family, host.apply, data, family)
    eml_may_pass = {"crlf", "mbox separator", "bad base64", "format flowed junk", "many headers", "huge header",
                    "nul bytes", "unknown charset", "bare cr", "bounce", "no From", "two From"}
    for name, data in hostile_emls(host.valid).items():
        tally.run(f"hostile mail {name!r}", host.apply_eml, data, name, name not in eml_may_pass)
    for _ in range(n):
        data = mutate_n(valid_eml(host.valid, attach=rng.random() < 0.5), rng, mutate_bytes)
        tally.run("byte-edited mail", host.apply_eml, data, "byte-edited mail")
    for _ in range(n // 3):
        data = bytes(rng.randrange(256) for _ in range(rng.randrange(2000)))
        tally.run("random bytes as .eml", host.apply_eml, data, "random .eml", True)
    for _ in range(n // 3):
        data = mutate_n(host.log_bytes, rng, mutate_log)
        tally.run("tampered log", host.try_log, data)
        tally.inputs += 6  # seven commands ran on it
    for _ in range(n // 3):
        data = mutate_n(host.secret_bytes, rng, mutate_bytes)
        tally.run("damaged secret", host.try_secret, data)


def mutate_n(data: bytes, rng: random.Random, how: Any) -> bytes:
    for _ in range(rng.randrange(1, 4)):
        data = how(data, rng)
    return data


def edited_move(valid: bytes, rng: random.Random) -> bytes:
    move = yaml.safe_load(valid)
    for _ in range(rng.randrange(1, 3)):
        key = rng.choice(["game", "player", "kind", "after", "actions", "nonce", "nonce_commitment", "key",
                          "comment", "extra"])
        if key == "after" and rng.random() < 0.5 and isinstance(move.get("after"), dict):
            move["after"][rng.choice(["seq", "hash"])] = random_doc(rng)
        elif (key == "actions" and rng.random() < 0.5 and isinstance(move.get("actions"), list)
              and move["actions"] and isinstance(move["actions"][0], dict)):
            move["actions"][0] = {**move["actions"][0], rng.choice(["count", "region", "token", "x"]): random_doc(rng)}
        else:
            move[key] = random_doc(rng)
    return yaml.safe_dump(move).encode()


def max_rss_kib(cmd: list[str]) -> tuple[int, int, float]:
    """(max RSS in KiB, exit code, seconds) of ``cmd`` run in a fresh child."""
    probe = ("import resource, subprocess, sys, time; t = time.perf_counter(); "
             "rc = subprocess.run(sys.argv[1:], capture_output=True).returncode; "
             "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, rc, time.perf_counter() - t)")
    out = subprocess.run([sys.executable, "-c", probe, *cmd], capture_output=True, text=True, check=True).stdout
    rss, rc, secs = out.split()
    return int(rss), int(rc), float(secs)


def big_inputs(root: Path) -> list[str]:
    games = root / "games"
    make_game(games, "big", 3, seed=2, moves=4)
    big = root / "big.yaml"
    chunk = ("- {action: place, region: gallia, count: 1}\n" * 20_000).encode()
    with big.open("wb") as f:  # streamed, real YAML all the way
        f.write(b"game: big\nplayer: red\nkind: move\nafter: {seq: 1, hash: '0000000000000000'}\nactions:\n")
        while f.tell() < 100 * 1024 * 1024:
            f.write(chunk)
    lines = []
    try:
        rss, rc, secs = max_rss_kib([*PBEM, "apply", str(big), "--games", str(games)])
        lines.append(f"100 MB move file: refused with exit {rc} in {secs:.2f} s; peak memory (max RSS) "
                     f"{rss / 1024:.1f} MiB")
    finally:
        big.unlink()
    eml = root / "big.eml"
    with eml.open("wb") as f:
        f.write(valid_eml(b"game: big\n", attach=False))
        while f.tell() < 100 * 1024 * 1024:
            f.write(chunk)
    try:
        rss, rc, secs = max_rss_kib([*PBEM, "apply", str(eml), "--games", str(games)])
        lines.append(f"100 MB mail message: refused with exit {rc} in {secs:.2f} s, max RSS {rss / 1024:.1f} MiB")
    finally:
        eml.unlink()
    many = root / "many.yaml"
    many.write_bytes(b"game: big\nplayer: red\nkind: move\nafter: {seq: 1, hash: '0000000000000000'}\nactions:\n"
                     + b"- {action: end}\n" * 16_000)
    rss, rc, secs = max_rss_kib([*PBEM, "apply", str(many), "--games", str(games)])
    lines.append(f"256 KiB move file of 16,000 actions (worst case under the cap): refused with exit {rc} "
                 f"in {secs:.2f} s, max RSS {rss / 1024:.1f} MiB")
    log = games / "big" / "log.yaml"
    with log.open("r+b") as f:
        f.truncate(100 * 1024 * 1024)
    rss, rc, secs = max_rss_kib([*PBEM, "verify", str(log)])
    lines.append(f"100 MB log: refused with exit {rc} in {secs:.2f} s, max RSS {rss / 1024:.1f} MiB")
    rss, rc, secs = max_rss_kib([*PBEM, "--version"])
    lines.append(f"(for scale: 'pbem --version' max RSS {rss / 1024:.1f} MiB)")
    return lines


def mail_host_campaign(root: Path) -> tuple[list[str], bool]:
    """One Maildir of hostile messages mixed with valid moves, replies through a
    real aiosmtpd server on 127.0.0.1 that answers 451 to every third message, then the
    runs it takes to deliver everything; and the MIME bomb's cost.  (lines, all good)"""
    import mailbox
    import tracemalloc
    from email.message import EmailMessage
    from email.utils import make_msgid

    from aiosmtpd.controller import Controller
    from mailhostile import HOST, hostile_messages, part_bomb

    from pbem.host.create import NewGame, create
    from pbem.host.games import load_game
    from pbem.mail.host import MailHost
    from pbem.mail.outbox import QUEUE_NAME
    from pbem.mail.run import process
    from pbem.mail.verdict import Recorded
    from pbem.player.nonces import commit_move, reveal_move

    emails = {"red": "red@example.org", "blue": "blue@example.net"}
    nonces = {"red": bytes(range(1, 33)), "blue": bytes(range(101, 133))}
    root.mkdir(parents=True, exist_ok=True)
    games, inbox = root / "mail-games", root / "mail-in"
    box = mailbox.Maildir(str(inbox), create=True)
    create(games, NewGame("g", ("red", "blue"), first="red", emails=emails))

    def eml(player: str, move: dict[str, Any]) -> bytes:
        msg = EmailMessage()
        msg["From"], msg["To"], msg["Subject"] = emails[player], HOST, "my move"
        msg["Message-ID"] = make_msgid(domain="example.org")
        msg.set_content("Here it is:\n\n" + yaml.safe_dump(move, sort_keys=False))
        return bytes(msg)

    class Flaky:
        def __init__(self) -> None:
            self.count, self.ids = 0, []  # type: ignore[var-annotated]

        async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
            self.count += 1
            if self.count % 3 == 0:
                return "451 4.3.0 try again later"
            for line in envelope.content.split(b"\r\n"):
                if line.lower().startswith(b"message-id:"):
                    self.ids.append(line.split(b":", 1)[1].strip())
            return "250 OK"

    handler = Flaky()
    with socket_port() as port:
        pass
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    tried = quarantined = applied = runs = 0
    kept = 0
    try:
        hostile = hostile_messages()
        half = len(hostile) // 2
        rounds = [(commit_move, hostile[:half]), (reveal_move, hostile[half:])]
        for make, bad in rounds:
            game = load_game(games / "g")
            valid = [eml(p, make(game, p, nonces[p])) for p in emails]
            for data in [valid[0], *(d for _n, d in bad), valid[1]]:
                box.add(data)
                tried += 1
            run = process(inbox, games, None, f"127.0.0.1:{port}", HOST)
            runs += 1
            quarantined += run.quarantined
            applied += sum(1 for p in run.done if isinstance(p.outcome, Recorded))
            kept = run.kept
        while kept and runs < 10:  # the next runs (nothing new) deliver what was kept
            kept = process(inbox, games, None, f"127.0.0.1:{port}", HOST, flush_only=True).kept
            runs += 1
    finally:
        controller.stop()
    queued = len(list((games / QUEUE_NAME).rglob("*.eml*")))
    delivered, once = len(handler.ids), len(set(handler.ids))
    started = load_game(games / "g").started
    # the bomb: ~226,000 parts in 8 MiB from a registered player, handled in-process
    bomb_box = root / "mail-bomb"
    mailbox.Maildir(str(bomb_box), create=True).add(part_bomb(b"red@example.org"))
    host = MailHost(games, lambda _m: None, HOST)
    tracemalloc.start()
    t = time.perf_counter()
    host.run(bomb_box)
    secs = time.perf_counter() - t
    _now, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    bomb_box2 = root / "mail-bomb2"
    mailbox.Maildir(str(bomb_box2), create=True).add(part_bomb(b"red@example.org"))
    rss, rc, psecs = max_rss_kib([*PBEM, "mail", "--inbox", str(bomb_box2), "--outbox", str(root / "mail-out"),
                                  "--games", str(games), "--from", HOST])
    hostile_n = len(hostile_messages())
    lines = [
        f"mail host: {tried} messages tried in 2 runs ({hostile_n} hostile, 4 valid moves): "
        f"{applied} applied, {quarantined} quarantined (targets 4 and {hostile_n}); game started: {started}",
        f"mail host: SMTP 451 to every third message: {queued} replies queued, {delivered} delivered, "
        f"{once} distinct (each once: {delivered == once == queued}) after {runs} runs; still kept: {kept}",
        f"mail host: the 226,000-part bomb quarantined in {secs * 1000:.0f} ms, Python peak {peak / 2**20:.1f} MiB; "
        f"'pbem mail' on it: exit {rc} in {psecs:.2f} s, max RSS {rss / 1024:.1f} MiB",
    ]
    good = (applied == 4 and quarantined == hostile_n and delivered == once == queued and not kept
            and started and secs < 1 and peak < 64 * 2**20)
    return lines, good


@contextlib.contextmanager
def socket_port() -> Any:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield sock.getsockname()[1]


def leak_worker(args: tuple[str, int, int]) -> tuple[int, list[str], int]:
    root, first, count = args
    leak = LeakCheck(Path(root))
    for k in range(first, first + count):
        leak_game_memory(Path(root), f"leak-{k}", 2 + k % 3, seed=k, leak=leak)
    return leak.checked, leak.leaks, count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a short campaign (about a minute)")
    parser.add_argument("--mail", action="store_true", help="only the mail host campaign")
    parser.add_argument("--seed", type=int, default=int(time.time()), help="random seed (default: the clock)")
    args = parser.parse_args()
    q = args.quick
    n_fuzz, n_kill, n_turns, n_rounds, n_leak = (150, 40, 3, 3, 60) if q else (1200, 200, 10, 10, 1000)
    print(f"python {sys.version.split()[0]} on {sys.platform}; seed {args.seed}; "
          f"{'quick' if q else 'full'} campaign")
    t0 = time.perf_counter()
    if args.mail:
        with tempfile.TemporaryDirectory(prefix="pbem-stress-") as tmp:
            lines, good = mail_host_campaign(Path(tmp))
        print("\n".join(lines))
        print(f"total {time.perf_counter() - t0:.0f} s")
        sys.exit(0 if good else 1)
    tally = Tally()
    with tempfile.TemporaryDirectory(prefix="pbem-stress-") as tmp:
        root = Path(tmp)

        (root / "fuzz").mkdir()
        fuzz(root / "fuzz", n_fuzz, args.seed, tally)
        print(f"fuzzing: {tally.inputs} inputs tried; crashes: {len(tally.crashes)}; "
              f"files changed by a refused input: {len(tally.changed)}  (targets 0, 0)")
        for line in (tally.crashes + tally.changed)[:5]:
            print(f"  ! {line[:500]}")
        print(f"  [{time.perf_counter() - t0:.0f} s]")

        (root / "big").mkdir()
        for line in big_inputs(root / "big"):
            print(line)

        inbox = root / "inbox"
        inbox.mkdir()
        t = time.perf_counter()
        kills = kill_campaign(root / "kills", n_kill, args.seed, inbox)
        print(f"SIGKILL during appends: {kills.attempts} applies, {kills.killed} killed "
              f"({kills.landed_while_killed} after their entry was in), {kills.completed} finished first; "
              f"torn entries: {kills.torn}; lost entries: {kills.lost}  (targets 0, 0); "
              f"temp files left by killed processes: {kills.leftovers}  [{time.perf_counter() - t:.0f} s]")

        t = time.perf_counter()
        games = root / "race"
        make_game(games, "rivals", n_players=4, seed=args.seed % 1000, moves=6)
        accepted = stale = lost = torn = other = 0
        for turn in range(n_turns):
            r = race_one_game(games, "rivals", 8, seed=args.seed + turn, inbox=inbox)
            accepted, stale, lost, torn = accepted + r.accepted, stale + r.stale, lost + r.lost, torn + r.torn
            other += len(r.other) + (r.accepted != 1)
        print(f"8 rival processes per turn, {n_turns} turns: {accepted} accepted, {stale} refused as stale "
              f"(exit 5); lost updates: {lost}; interleaved entries: {torn}; other outcomes: {other}  "
              f"(targets 0, 0, 0)")
        race_bad = lost + torn + other
        ids = [f"many-{i}" for i in range(6)]
        for i, g in enumerate(ids):
            make_game(games, g, n_players=2 + i % 3, seed=i)
        accepted = lost = torn = other = 0
        for round_ in range(n_rounds):
            r = race_many_games(games, ids, seed=args.seed + round_, inbox=inbox)
            accepted, lost, torn, other = accepted + r.accepted, lost + r.lost, torn + r.torn, other + len(r.other)
        race_bad += lost + torn + other
        print(f"6 games, a process each, {n_rounds} rounds: {accepted}/{6 * n_rounds} accepted; "
              f"lost updates: {lost}; interleaved entries: {torn}; refused: {other}  (targets 0, 0, 0)  "
              f"[{time.perf_counter() - t:.0f} s]")

        t = time.perf_counter()
        leak_root = root / "leaks"
        leak_root.mkdir()
        cli = LeakCheck(leak_root)
        n_cli = 1 if q else 2
        for k in range(n_cli):
            leak_game(leak_root, f"cli-{k}", 3 + k % 2, seed=args.seed + k, leak=cli, bad_per_turn=1)
        workers = 2
        share = [(str(leak_root / f"w{w}"), args.seed * 10_000 + w * n_leak, n_leak // workers)
                 for w in range(workers)]
        for w in range(workers):
            (leak_root / f"w{w}").mkdir()
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            results = pool.map(leak_worker, share)
        checked = cli.checked + sum(r[0] for r in results)
        leaks = cli.leaks + [x for r in results for x in r[1]]
        n_games = n_cli + sum(r[2] for r in results)
        print(f"leaks: {n_games} whole games ({n_cli} through the command line), {checked} public outputs "
              f"checked; leaks: {len(leaks)}  (target 0)  [{time.perf_counter() - t:.0f} s]")
        for line in leaks[:5]:
            print(f"  ! {line[:500]}")
        mail_lines, mail_good = mail_host_campaign(root / "mail")
        print("\n".join(mail_lines) + ("" if mail_good else "  ! a mail host target missed"))
    print(f"total {time.perf_counter() - t0:.0f} s")
    bad = (not mail_good) or tally.crashes or tally.changed or kills.torn or kills.lost or leaks or race_bad
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
