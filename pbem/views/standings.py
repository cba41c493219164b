"""Standings over a host's finished games, by the OpenSkill rating system (Weng and Lin's
Bayesian approximation, the Plackett-Luce model: a multiplayer ranking, not pairs), through
the maintained ``openskill`` library rather than a rating written here.

A player is whoever the caller names in a result's places: the host names the people who held
the seats, by a handle (:mod:`pbem.host.people`, which also decides which games count), never a
seat's colour.  Each game is one match of its players, ranked by its final places
(:func:`places`); the games are rated in the order they ended.  A player's rating is the
model's conservative ordinal (mu - 3 sigma): it rises with wins over strong fields, and with
games played.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from pbem.i18n import Msg, translator
from pbem.record import Record
from pbem.rules import State

if TYPE_CHECKING:
    from openskill.models import PlackettLuceRating


class Result(Record):
    """One finished game for the standings: when it ended and its players from first place to last."""

    game_id: str
    ended_at: str
    places: tuple[str, ...]


class Standing(Record):
    """One player's line of the standings."""

    player: str
    rating: float  # the model's ordinal, mu - 3 sigma
    mu: float
    sigma: float
    games: int
    wins: int


def places(state: State) -> tuple[str, ...]:
    """The seats from first place to last: the most cubes on the board, the palace included, first
    (R6.5); a tie to whoever would have played soonest after the last turn, as R6.5 breaks the
    tie for first."""
    scores = state.scores()
    n = len(state.players)
    last = state.last_player if state.last_player is not None else state.current
    order = [state.players[(last + k) % n] for k in range(1, n + 1)]
    return tuple(sorted(order, key=lambda p: (-scores[p], order.index(p))))


def standings(results: Iterable[Result]) -> list[Standing]:
    """Every player of ``results``, best first (by rating, then wins, then name)."""
    from openskill.models import PlackettLuce  # start-up: only the standings load the rating library

    model = PlackettLuce()
    ratings: dict[str, PlackettLuceRating] = {}
    games: dict[str, int] = {}
    wins: dict[str, int] = {}
    for result in sorted(results, key=lambda r: (r.ended_at, r.game_id)):
        if len(result.places) < 2:
            continue
        teams = [[ratings.get(p) or model.rating(name=p)] for p in result.places]
        rated = model.rate(teams, ranks=[float(n) for n in range(1, len(teams) + 1)])
        for player, (rating,) in zip(result.places, rated, strict=True):
            ratings[player] = rating
            games[player] = games.get(player, 0) + 1
        wins[result.places[0]] = wins.get(result.places[0], 0) + 1
    rows = [Standing(p, r.ordinal(), r.mu, r.sigma, games[p], wins.get(p, 0)) for p, r in ratings.items()]
    return sorted(rows, key=lambda row: (-row.rating, -row.wins, row.player))


def table_lines(rows: Sequence[Standing], lang: str = "en") -> list[str]:
    """The standings as plain text (the ``standings`` mail): one player a line, best first."""
    said = translator(lang)
    if not rows:
        return [said.say(Msg("No game on this host counts for the standings yet (a finished game, its audit FAIR, "
                             "between people known by their address)."))]
    head = said.say(Msg.plural("Standings of {n} player (OpenSkill rating, mu - 3 sigma; games; wins):",
                               "Standings of {n} players (OpenSkill rating, mu - 3 sigma; games; wins):", len(rows)))
    width = max(len(row.player) for row in rows)
    return [head, *(f"{n:>3}. {row.player:<{width}}  {row.rating:7.2f}  {row.games:>4}  {row.wins:>4}"
                    for n, row in enumerate(rows, start=1))]
