"""Everything the secret makes computable: the deal, every face and salt, the audit.

The host uses it while playing (:func:`host_faces` gives the
:class:`pbem.fair.dealing.HostFaces` that answer the rules' face seam and salt each
reveal); after ``pbem reveal`` anyone uses it to audit the game
(PROTOCOL.md P6): recompute the seed, every draw and every commitment, and
check every reveal in the log against the dealt tokens.
"""

from __future__ import annotations

from pbem.errors import StateError, TamperError
from pbem.fair import protocol
from pbem.fair.dealing import HostFaces
from pbem.fair.tokens import commitments
from pbem.i18n import Msg
from pbem.log.game import Game
from pbem.log.records import Draft, Setup, Start
from pbem.referee.signatures import log_has_signatures, require_valid
from pbem.rules.data import N_TOKENS


def host_faces(game: Game, secret: bytes) -> HostFaces:
    """P4-P5: the seed and the deal, from the secret and the nonces in the log."""
    seed = protocol.derive_seed(secret, game.game_id, game.seed_nonces())
    deal = protocol.deal(seed, game.players, game.first_named, game.board, game.catalogue)
    return HostFaces(seed, deal, game.catalogue)


def dealt_start(game: Game, secret: bytes) -> tuple[dict[str, str], Setup, tuple[str, ...]]:
    """P5-P6: what the start entry must say, from the secret and the nonces: the nonces used,
    the public setup, the 49 commitments."""
    faces = host_faces(game, secret)
    deal = faces.deal
    setup = Setup(deal.first_player, dict(deal.board), tuple(deal.supply), tuple(deal.removed), deal.plague_start)
    return {p: game.nonces.get(p, "") for p in game.players}, setup, tuple(commitments(faces.seed, deal))


def start_entry(game: Game, secret: bytes) -> Draft:
    """P5-P6: the start entry the secret and the nonces give."""
    return Start.new(*dealt_start(game, secret))


def audit(game: Game) -> list[str]:
    """P6's audit of a revealed game; returns the findings, or raises TamperError."""
    if log_has_signatures(game.entries):  # P8, before the secret: a bad signature is never "not yet"
        require_valid(game.entries)
    if game.secret is None:
        raise StateError(Msg("the audit needs the revealed secret: the host runs 'pbem reveal' when the game is over"),
                         "P6")
    faces = host_faces(game, game.secret)
    recorded = next(e for e in game.entries if isinstance(e, Start))
    start_seq = recorded.seq
    nonces, setup, dealt = dealt_start(game, game.secret)
    published = (("nonces", recorded.nonces, nonces), ("setup", recorded.setup, setup),
                 ("commitments", recorded.commitments, dealt))
    for key, theirs, ours in published:
        if theirs != ours:
            raise TamperError(
                Msg("entry {seq}: the published {key} are not what the revealed secret gives", seq=start_seq, key=key),
                "P5",
            )
    ids = sorted(faces.deal.token_ids)
    if ids != sorted(t.id for t in game.catalogue.tokens):
        raise TamperError(Msg.plural("the {n} committed token is not the game's catalogue",
                                     "the {n} committed tokens are not the game's catalogue", N_TOKENS), "P6")
    flips = 0
    for entry in game.entries:  # every public flip, whichever kind of entry made it
        for flip in entry.reveals:
            flips += 1
            if flip.token_id != faces.look(flip.token) or flip.salt != faces.salt(flip.token):
                raise TamperError(Msg("entry {seq}: the reveal of {token} is not the dealt token", seq=entry.seq,
                                      token=flip.token), "P6")
    return [  # sentences (pbem.i18n.Msg): each reader's language says them
        Msg("the secret matches its commitment (P3)"),
        Msg("the seed, every draw and the public setup are what the secret and nonces give (P4-P5)"),
        Msg.plural("the {n} commitment recomputed; it commits to exactly the game's catalogue (P6)",
                   "all {n} commitments recomputed; they commit to exactly the game's catalogue (P6)", N_TOKENS),
        Msg.plural("the {n} flipped token is the dealt token, with its salt (P6)",
                   "all {n} flipped tokens are the dealt tokens, with their salts (P6)", flips),
        Msg.plural("every move replays under the rules with its recorded outcome ({n} entry, P7)",
                   "every move replays under the rules with its recorded outcome ({n} entries, P7)", game.last_seq + 1),
    ]
