"""From a protocol deal (PROTOCOL.md P5-P6) to the rules core's starting state (R2)."""

from __future__ import annotations

from pbem.gamedata import Board, Catalogue
from pbem.protocol import Deal
from pbem.rules import MappingFaces, State, new_state


def start_state(deal: Deal, board: Board, players: tuple[str, ...]) -> State:
    """R2.1-R2.4 as dealt: starting rats, supply, removed tokens, plague start, first player."""
    regions = deal.regions_in_use
    return new_state(
        players=players,
        first=deal.first_player,
        regions=regions,
        neighbours=board.adjacency(regions),
        board={region: [name] for region, name in deal.board},
        rat_supply=deal.supply,
        removed=deal.removed,
        plague=deal.plague_start,
    )


def dealt_faces(deal: Deal, catalogue: Catalogue) -> MappingFaces:
    """Every token's face, for whoever holds the seed (the host, an audit, a simulation)."""
    return MappingFaces(
        {Deal.name(i): catalogue.by_id(tid) for i, tid in enumerate(deal.token_ids, start=1)}
    )
