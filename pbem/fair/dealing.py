"""From a protocol deal (PROTOCOL.md P5-P6) to the rules core's starting state (R2)."""

from __future__ import annotations

from pbem.fair.protocol import PUBLIC_NAMES, Deal
from pbem.fair.tokens import position_of, token_salt
from pbem.rules import MappingFaces, State, new_state
from pbem.rules.data import Board, Catalogue


def start_state(deal: Deal, board: Board, players: tuple[str, ...], catalogue: Catalogue | None = None) -> State:
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
        catalogue=catalogue,
    )


class HostFaces(MappingFaces):
    """Every token's face and salt, for whoever holds the seed: the host while
    playing, anyone after the reveal (the audit), a simulation."""

    def __init__(self, seed: bytes, deal: Deal, catalogue: Catalogue) -> None:
        super().__init__(
            dict(zip(PUBLIC_NAMES[: len(deal.token_ids)], map(catalogue.by_id, deal.token_ids), strict=True))  # P6
        )
        self.seed = seed
        self.deal = deal

    def salt(self, token: str) -> str:
        """P6: the token's salt, published with its reveal."""
        return token_salt(self.seed, position_of(token)).hex()
