"""The game as JSON (`pbem show --json`): the public state, one object."""

from __future__ import annotations

from typing import Any

from pbem.log.clock import at_of, now
from pbem.log.game import Game
from pbem.referee.absence import away_now, days_left
from pbem.referee.deadlines import due
from pbem.views.text import next_step


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
        "edition": game.edition.value,
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
            r: {"rats": list(state.rats[r]), "cubes": dict(state.cubes[r]),
                "neighbours": list(state.neighbours[r])} for r in state.regions
        },
        "on_board": {p: sum(state.cubes[r].get(p, 0) for r in state.regions) for p in state.players},
        "palace": dict(state.palace),
        "supply": dict(state.supply),
        "cards": dict(state.cards),
        "rat_supply": len(state.rat_supply),
        "flipped": list(state.flipped),
        "scores": state.scores(),
        "over": game.over,
        "resigned": sorted(game.resigned),
    })
    found = due(game)
    if game.deadline is not None:
        out["deadline"] = {"seconds": game.deadline, "reminder": game.reminder,
                           "turn_since": game.turn_since,
                           "due": None if found is None else {"player": found[0], "at": found[1]}}
    if game.facts.absence is not None:  # R8.5: the allowance, the days left, who is away until when
        out["absence"] = {"allowance": game.facts.absence, "left": {p: days_left(game, p) for p in game.players},
                          "away": {a.player: at_of(a.end) for a in away_now(game, now())}}
    return out
