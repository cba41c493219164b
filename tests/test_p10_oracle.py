"""PROTOCOL P10 / RULES R7.4: no refusal is an oracle.

Whether a move is admitted, its exit code and every word said about it depend
only on the public log and the move, never on a face still hidden from the
sender.  Each case takes a reachable position and two face assignments that
agree on every rat already flipped and differ (a random permutation) on every
rat still face down: the same public history, different hidden faces.  The
same move file is put to the host's path (the referee's verdict, then the
resolution with the faces) under both; the verdict, exit code and text (in
every language pbem speaks) must be the same, and an admitted move
must resolve under both.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from pbem.bots.randombot import bot_actions
from pbem.data import default_board, default_catalogue
from pbem.errors import PbemError
from pbem.fair.protocol import Deal
from pbem.host.step import resolve
from pbem.i18n import LANGS, error_text
from pbem.log.game import Facts, Game, Keys
from pbem.log.records import Create, TurnMove
from pbem.log.yamlio import dump_yaml
from pbem.referee import admit as referee
from pbem.rules import MappingFaces, Phase, Stage, State, play
from pbem.rules.data import CLASSES, Token
from pbem.sim.simulate import new_random_game
from pbem.log.records.values import Edition, Made

ENTRY0 = "ab" * 32


class Faces(MappingFaces):
    """A face assignment, with the salt the host would publish (any fixed value here)."""

    def salt(self, token: str) -> str:
        return "00" * 16


def position(seed: int) -> tuple[Game, Faces, Faces]:
    """A reachable position (random bots, real faces) and two face sets that agree on
    every flipped rat and permute the hidden ones."""
    rng = random.Random(seed)
    n = rng.choice((2, 3, 4))
    state, dealt = new_random_game(n, seed)
    names = [Deal.name(i) for i in range(1, 50)]
    faces_one = {name: dealt.face(name) for name in names}
    one = Faces(faces_one)
    for _ in range(rng.randrange(0, 120)):
        player = state.to_move
        if player is None:
            break
        before = state
        state, _events = play(state, player, bot_actions(state, rng), one)
        if state.to_move is None:  # keep a position where someone is still to move
            state = before
            break
    hidden = [name for name in names if name not in state.flipped]
    shuffled = [faces_one[name] for name in hidden]
    rng.shuffle(shuffled)
    faces_two: dict[str, Token] = {**faces_one, **dict(zip(hidden, shuffled, strict=True))}
    facts = Facts(
        game_id="p10", players=state.players, board=default_board(), catalogue=default_catalogue(),
        first_named=None, secret_commitment="00" * 32, made=Made.SUPPLIED, edition=Edition.STANDARD,
        data_hash="00" * 32, bots={}, deadline=None, reminder=None, whole_turns=True, whole_first_turn=True,
        absence=None, absence_ruling=True,
    )
    first = Create(0, "2026-11-30T09:00:00Z", None, {"at": "2026-11-30T09:00:00Z"})
    game = Game(facts=facts, entries=[first], hashes=[ENTRY0], keys=Keys({}), state=state)
    return game, one, Faces(faces_two)


def random_action(state: State, rng: random.Random) -> dict[str, Any]:
    """Any action a player might type: legal now or not, well formed."""
    regions = list(state.regions) + ["atlantis"]
    region = rng.choice(regions)
    token = f"t{rng.randrange(1, 50):02d}"
    if state.rats[state.plague] and rng.random() < 0.5:
        token = rng.choice(state.rats[state.plague])
    near = list(state.neighbours[state.plague]) or [region]
    choices: list[dict[str, Any]] = [
        {"action": "take_card", "card": rng.choice(CLASSES)},
        {"action": "place", "region": region, "count": rng.randrange(1, 4)},
        {"action": "spread", "region": rng.choice(near)},
        {"action": "flip", "token": token},
        {"action": "knight_cubes"},
        {"action": "move_plague", "path": [rng.choice(near)]},
        {"action": "end"},
        {"action": "witch_look", "token": token},
        {"action": "king", "region": region},
        {"action": "merchant", "source": region, "target": rng.choice(regions), "count": 1},
        {"action": "monk", "token": token, "target": rng.choice(regions)},
    ]
    return rng.choice(choices)


def move_file(game: Game, rng: random.Random) -> bytes:
    """A move file: a bot's legal move, often spoiled the ways a prober would."""
    state = game.state
    assert state is not None and state.to_move is not None
    actions = [a.to_dict() for a in bot_actions(state, rng)]
    roll = rng.random()
    if roll < 0.35:  # the probe: the whole outbreak named, then one action more
        actions = [a for a in actions if a["action"] not in ("flip", "knight_cubes")]
        trial = state.copy()
        try:
            trial, _ = play(trial, state.to_move, referee.parse_actions(actions))
        except Exception:
            pass
        if trial.phase is Phase.TURN and trial.turn.stage is Stage.OUTBREAK:
            actions += [{"action": "flip", "token": t} for t in trial.rats[trial.plague]]
            rng.shuffle(actions[-len(trial.rats[trial.plague]):])
        actions += [random_action(state, rng) for _ in range(rng.randrange(1, 3))]
    elif roll < 0.5:  # a long flip list, duplicates and strangers included
        actions += [{"action": "flip", "token": f"t{rng.randrange(1, 50):02d}"} for _ in range(rng.randrange(3, 9))]
    elif roll < 0.65 and actions:
        actions[rng.randrange(len(actions))] = random_action(state, rng)
    elif roll < 0.75 and len(actions) > 1:
        actions = actions[: rng.randrange(1, len(actions))]
    player = state.to_move if rng.random() < 0.9 else rng.choice(state.players)
    data = {"game": game.game_id, "player": player, "kind": "move",
            "after": {"seq": 0, "hash": ENTRY0[:16]}, "actions": actions or [{"action": "end"}]}
    return dump_yaml(data).encode()


def host_verdict(
    game: Game, raw: bytes, faces: Faces, langs: tuple[str, ...] = ("en",)
) -> tuple[str, int, str, list[Any] | None]:
    """What the host says and records: the refusal as printed (in each of ``langs``), or the
    outcome."""
    try:
        move = referee.read(raw)
        verdict = referee.judge(game, move)
        assert isinstance(move, TurnMove)  # the oracle sends turns only
        entry, _events = resolve(game, verdict, move, faces)  # type: ignore[arg-type]  # cannot refuse (P10)
    except PbemError as err:
        return err.label, int(err.exit_code), "\n".join(error_text(err, lang) for lang in langs), None
    return "accepted", 0, "", entry.to_raw()["outcome"]


def run_cases(n: int, seed: int) -> dict[str, int]:
    counts = {"accepted": 0, "refused": 0, "R7.4": 0, "faces mattered": 0}
    for case in range(n):
        game, one, two = position(seed * 100_000 + case)
        raw = move_file(game, random.Random(case))
        first, second = host_verdict(game, raw, one, LANGS), host_verdict(game, raw, two, LANGS)
        assert first[:3] == second[:3], f"case {case}: the verdict depends on hidden faces:\n{raw.decode()}"
        if first[0] == "accepted":
            counts["accepted"] += 1
            counts["faces mattered"] += first[3] != second[3]
        else:
            counts["refused"] += 1
            counts["R7.4"] += "(R7.4)" in first[2]
    return counts


def test_p10_the_probe_from_the_report_gets_one_text_whatever_the_faces() -> None:
    """The cheating player's probe: a turn ending with flips, then `take_card`.  On
    main before v2 the text said whose turn it was when the first flip removed the
    mover's last cube, and 'taking a card must come before phase C' otherwise."""
    texts: set[str] = set()
    probes = 0
    for seed in range(400):
        game, one, two = position(seed)
        state = game.state
        assert state is not None and state.to_move is not None
        if state.phase is not Phase.TURN or state.turn.stage is not Stage.MAIN:
            continue
        actions = [a.to_dict() for a in bot_actions(state, random.Random(seed))
                   if a.kind not in ("flip", "knight_cubes")]
        trial, _ = play(state, state.to_move, referee.parse_actions(actions))
        if trial.turn.stage is not Stage.OUTBREAK or trial.to_move != state.to_move:
            continue
        flips = [{"action": "flip", "token": t} for t in trial.rats[trial.plague]]
        raw = dump_yaml({"game": "p10", "player": state.to_move, "kind": "move",
                         "after": {"seq": 0, "hash": ENTRY0[:16]},
                         "actions": [*actions, *flips, {"action": "take_card", "card": "king"}]}).encode()
        verdicts = {host_verdict(game, raw, faces)[:3] for faces in (one, two)}
        assert len(verdicts) == 1
        kind, code, text = verdicts.pop()
        assert (kind, code) == ("illegal move", 4) and "(R7.4)" in text and "outbreak" in text, text
        assert "turn, not" not in text and "phase C" not in text
        texts.add(text.split(": ", 2)[-1].split(" (")[0])
        probes += 1
    assert probes >= 10, f"only {probes} probe positions found"


def test_p10_verdicts_do_not_depend_on_hidden_faces_quick() -> None:
    counts = run_cases(150, seed=1)
    assert counts["accepted"] > 20 and counts["refused"] > 20 and counts["R7.4"] > 5, counts
    assert counts["faces mattered"] > 3, counts  # the two face sets really differ where it counts


@pytest.mark.slow
def test_p10_verdicts_do_not_depend_on_hidden_faces_2000_cases() -> None:
    counts = run_cases(2000, seed=2)
    assert counts["accepted"] > 300 and counts["refused"] > 300 and counts["R7.4"] > 100, counts
    assert counts["faces mattered"] > 50, counts
