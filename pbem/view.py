"""What people read: the board, move reports and move templates, in plain words.

Everything here is built from public data only (a face-down token is shown by
its public name), except :func:`private_lines`, which shows one player's own
Witch reveals when they ask with ``--as``.
"""

from __future__ import annotations

from typing import Any

from pbem.game import Game, Opening
from pbem.gamedata import CLASSES
from pbem.moves import after_of
from pbem.rules import Action, Phase, Stage, State, legal_actions
from pbem.yamlio import dump_yaml

CARD_NAMES = {
    "peasant": "Peasant", "merchant": "Merchant", "monk": "Monk",
    "knight": "Knight", "witch": "Witch", "king": "King",
}


TRUST = (
    "trust (P1): the host sees every face and must hold no seat; what the protocol guarantees "
    "is that nobody, the host included, chose or changed the rat order, rewrote this history "
    "unnoticed (keep your last log: 'pbem verify NEW --extends OLD'), or learned a face through pbem"
)


def notices(game: Game) -> list[str]:
    """What every public output of this game must say about it (P3, P7)."""
    out = []
    if game.test_game:
        out.append("TEST GAME: its secret was supplied, not made by the OS (P7); whoever knows it "
                   "knows every face, so it proves nothing about fair play")
    if game.bots:
        seats = ", ".join(f"{p} ({level})" for p, level in sorted(game.bots.items()))
        out.append(f"BOT SEATS: {seats} played by the host's bots. A bot sees only its seat's view "
                   "(the log and its own Witch looks), but the host holds its seat and made its "
                   "nonce (P4): the rule that the host holds no seat does not hold for this game")
    if game.edition != "standard":
        out.append(f"CUSTOM GAME: its map or rat tokens are not pbem's standard data "
                   f"(P3, data_hash {game.data_hash[:16]})")
    return out


def trust_lines(game: Game) -> list[str]:
    """The trust model in one line, then the game's notices: every verdict ends with these."""
    return [TRUST, *notices(game)]


def opening_line(game: Game) -> str:
    """Where the opening stands (P4), in a sentence."""
    opening = game.opening
    if opening is Opening.ABANDONED:
        return "abandoned by the host before the start (P4)"
    waiting = ", ".join(game.awaited)
    waived = f"; waived: {', '.join(sorted(game.waived))}" if game.waived else ""
    if opening is Opening.COMMIT:
        return f"not started: waiting for nonce commitments from {waiting}{waived} (P4, round 1 of 2)"
    return f"not started: waiting for {waiting} to reveal their nonce{waived} (P4, round 2 of 2)"


def region_name(game: Game, region: str) -> str:
    return game.board.name_of(region)


def describe_event(game: Game, e: dict[str, Any]) -> str:
    """One event of a recorded outcome in a sentence."""
    def r(key: str) -> str:
        return region_name(game, e[key])

    kind = e["event"]
    if kind == "cubes_placed":
        return f"{e['player']} places {e['count']} cube(s) in {r('region')}"
    if kind == "card_taken":
        source = f" from {e['previous']}" if e["previous"] else ""
        return f"{e['player']} takes the {CARD_NAMES[e['card']]}{source}"
    if kind == "cubes_moved":
        return f"{e['player']} moves {e['count']} cube(s) from {r('source')} to {r('target')} (Merchant)"
    if kind == "cube_to_palace":
        return f"{e['player']} moves a cube from {r('region')} to the palace (King)"
    if kind == "rat_moved":
        return f"rat {e['token']} moves from {r('source')} to {r('target')} (Monk)"
    if kind == "token_looked":
        return f"{e['player']} looks at rat {e['token']} (Witch)"
    if kind == "tokens_swapped":
        return f"rats {e['first']} and {e['second']} swap places (Witch)"
    if kind == "plague_moved":
        path = " -> ".join(region_name(game, x) for x in e["path"])
        spread = f"; {e['spread']} rat(s) spread" if e["spread"] else ""
        return f"the plague moves to {path}{spread}"
    if kind == "rat_drawn":
        return f"rat {e['token']} is drawn and placed in {r('region')}"
    if kind == "knight_cubes":
        return f"{e['player']} counts the plague piece as 2 neutral cubes in {r('region')} (Knight)"
    if kind == "token_flipped":
        result = "the plague breaks out" if e["outbreak"] else "no outbreak"
        return (
            f"rat {e['token']} in {r('region')} is {e['token_id']} (threshold {e['threshold']}, "
            f"{e['cubes']} cube(s)): {result}"
        )
    if kind == "cube_removed":
        return f"{e['player']} loses a cube in {r('region')} ({e['symbol']})"
    if kind == "turn_started":
        what = {"setup": "places initial cubes", "turn": "is to play", "final": "plays in the final round"}
        return f"{e['player']} {what.get(e['phase'], 'is to move')}"
    if kind == "game_ending":
        return f"the game ends ({e['reason']}); final round: {', '.join(e['final_round'])}"
    if kind == "game_over":
        scores = ", ".join(f"{p} {n}" for p, n in e["scores"].items())
        return f"game over: {scores}; {e['winner']} wins"
    return str(e)


def next_step(state: State) -> str:
    """What the player to move must do now, in a sentence."""
    player = state.to_move
    if player is None:
        return "the game is over"
    if state.phase is Phase.SETUP:
        return f"{player} places 2 initial cubes on any region (R2.5)"
    if state.phase is Phase.FINAL:
        return f"{player} may use their class cards once more, then 'end' (R6.2-R6.3)"
    if state.turn.stage is Stage.SPREAD:
        return f"{player} places {state.turn.spread_left} drawn rat(s) next to {state.plague} (R4.1)"
    if state.turn.stage is Stage.OUTBREAK:
        return f"{player} flips the rats in {state.plague} (R4.2)"
    return f"{player} takes a card (optional), places cubes, then moves the plague (R3)"


def board_lines(game: Game) -> list[str]:
    state = game.state
    lines = [f"game {game.game_id}  (players in seat order: {', '.join(game.players)})"]
    lines.extend(f"  {n}" for n in notices(game))
    if state is None:
        lines.append(opening_line(game))
        return lines
    width = max(len(region_name(game, r)) for r in state.regions)
    for region in state.regions:
        rats = " ".join(state.rats[region]) or "-"
        cubes = ", ".join(f"{p} {n}" for p, n in sorted(state.cubes[region].items())) or "-"
        plague = "  <- plague" if region == state.plague else ""
        lines.append(f"  {region_name(game, region):<{width}}  rats: {rats:<12} cubes: {cubes}{plague}")
    lines.append("  palace: " + (", ".join(f"{p} {n}" for p, n in state.palace.items() if n) or "-"))
    cards = ", ".join(f"{CARD_NAMES[c]}: {state.cards[c] or 'unowned'}" for c in CLASSES)
    lines.append(f"  cards: {cards}")
    lines.append("  cube supply: " + ", ".join(f"{p} {n}" for p, n in state.supply.items()))
    lines.append(f"  rats left in supply: {len(state.rat_supply)}; flipped: {len(state.flipped)}")
    if game.over:
        scores = state.scores()
        lines.append("  final scores: " + ", ".join(f"{p} {scores[p]}" for p in state.players))
    else:
        lines.append(f"  turn {state.turn_number}: {next_step(state)}")
    return lines


def state_json(game: Game) -> dict[str, Any]:
    state = game.state
    out: dict[str, Any] = {
        "game": game.game_id,
        "players": list(game.players),
        "last_entry": {"seq": game.last_seq, "hash": game.last_hash},
        "started": state is not None,
        "opening": game.opening.value,
        "committed": sorted(game.commits),
        "waived": sorted(game.waived),
        "nonces_from": sorted(game.nonces),
        "edition": game.edition,
        "test_game": game.test_game,
    }
    if state is None:
        return out
    out.update({
        "phase": state.phase.value,
        "to_move": state.to_move,
        "next": next_step(state),
        "turn": state.turn_number,
        "plague": state.plague,
        "regions": {
            r: {"rats": list(state.rats[r]), "cubes": dict(state.cubes[r])} for r in state.regions
        },
        "palace": dict(state.palace),
        "supply": dict(state.supply),
        "cards": dict(state.cards),
        "rat_supply": len(state.rat_supply),
        "flipped": list(state.flipped),
        "scores": state.scores(),
        "over": game.over,
    })
    return out


def describe_action(game: Game, action: Action) -> str:
    d = action.to_dict()
    def name(key: str) -> str:
        return region_name(game, d[key])

    kind = d["action"]
    if kind == "take_card":
        return f"take the {CARD_NAMES[d['card']]} card"
    if kind == "place":
        return f"place {d['count']} cube(s) in {name('region')}"
    if kind == "king":
        return f"King: move a cube from {name('region')} to the palace"
    if kind == "merchant":
        return f"Merchant: move {d['count']} cube(s) from {name('source')} to {name('target')}"
    if kind == "monk":
        return f"Monk: move rat {d['token']} to {name('target')}"
    if kind == "witch_look":
        return f"Witch: look at rat {d['token']}"
    if kind == "witch_swap":
        return "Witch: swap the two rats you looked at"
    if kind in ("move_plague", "knight_move"):
        return "move the plague to " + " -> ".join(region_name(game, r) for r in d["path"])
    if kind == "spread":
        return f"put the drawn rat in {name('region')}"
    if kind == "knight_cubes":
        return "Knight: count the plague piece as 2 neutral cubes"
    if kind == "flip":
        return f"flip rat {d['token']} next"
    return "end your part of the final round"


def template(game: Game, player: str) -> str:
    """A move file for ``player``: header filled in, legal choices as comments (P7)."""
    state = game.state
    head: dict[str, Any] = {"game": game.game_id, "player": player}
    if state is None:
        return _opening_template(game, player)
    head.update({"kind": "move", "after": after_of(game)})
    lines = [f"# {n}" for n in notices(game)] + [f"# {next_step(state)}"]
    options: list[str] = []
    if state.to_move != player:
        lines.append(f"# Note: it is {state.to_move}'s turn, not {player}'s: this move would be refused.")
    else:
        lines.append("# Uncomment the actions you choose under 'actions:', in the order you play them,")
        lines.append("# then check the file ('pbem check') and mail it.")
        if state.phase is Phase.TURN and state.turn.stage is Stage.MAIN:
            lines.append(
                "# After move_plague add one 'spread' per drawn rat: {action: spread, region: ...},"
            )
            lines.append(
                "# a neighbour of the plague's new region holding fewer than 3 rats (R4.1). You may"
            )
            lines.append(
                "# then name the flip order with 'flip' actions; unnamed rats flip oldest first (R4.2)."
            )
        for action in legal_actions(state):
            if action.kind == "end":
                continue
            flow = dump_yaml(action.to_dict()).strip().replace("\n", ", ")
            options.append(f"#  - {{{flow}}}   # {describe_action(game, action)}")
        if state.phase is Phase.FINAL:
            options.append("  - {action: end}   # finish your part of the final round (R6.2)")
    return "\n".join(lines) + "\n" + dump_yaml(head) + "actions:\n" + "".join(o + "\n" for o in options)


def private_lines(reveals: list[dict[str, Any]]) -> list[str]:
    return [
        f"  you saw rat {r['token']} = {r['token_id']} (entry {r['seq']}; salt {r['salt']})"
        for r in reveals
    ]


def _opening_template(game: Game, player: str) -> str:
    """P4's two rounds: what ``player`` sends now, with how to make it."""
    opening = game.opening
    notes = "".join(f"# {n}\n" for n in notices(game))
    where = f"--games DIR --player {player}"
    if opening is Opening.COMMIT and player not in game.commits and player not in game.waived:
        head = {"game": game.game_id, "player": player, "kind": "commit",
                "after": after_of(game, opening=True), "nonce_commitment": ""}
        return notes + (
            "# Round 1 of 2 (P4): commit to a nonce of your own, so that nobody, the host\n"
            "# included, can steer the shuffle. Easiest: let pbem write this file for you:\n"
            f"#     pbem nonce {game.game_id} {where} --out commit.yaml\n"
            "# It keeps the nonce in a private file and fills in nonce_commitment below\n"
            "# (H('pbem-rattus/v1/nonce' || nonce) as 64 hex digits). Mail the result.\n"
        ) + dump_yaml(head)
    if opening is Opening.REVEAL and player in game.commits and player not in game.nonces:
        head = {"game": game.game_id, "player": player, "kind": "nonce",
                "after": after_of(game, opening=True), "nonce": ""}
        return notes + (
            "# Round 2 of 2 (P4): every seat has committed; now reveal the nonce you committed to.\n"
            f"#     pbem nonce {game.game_id} {where} --reveal --out nonce.yaml\n"
            "# writes this file from the nonce pbem kept for you. Mail the result.\n"
        ) + dump_yaml(head)
    return notes + f"# Nothing to send now for {player}: {opening_line(game)}.\n"
