"""pbem: a play-by-email engine for the board game Rattus.

The rules live in :mod:`pbem.rules` (pure: state + action -> state + events);
the fair-play protocol (seed, draws, commitments, log chain) in
:mod:`pbem.fair.protocol`; everything else wraps those two.
"""

__version__ = "0.3.0"
ENGINE_NAME = "pbem"
