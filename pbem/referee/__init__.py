"""The referee: every decision about what is admitted to a log, and every check of one.

:mod:`.admit` is the one admission path (size, schema, game and player,
signature, freshness, then the rules on public facts; PROTOCOL P10) that
``pbem apply``, ``pbem check``, ``pbem mail`` and every replay use;
:mod:`.replay` rebuilds a game from its log, entry by entry through the same
checks; :mod:`.signatures` checks who signed what (P8); :mod:`.audit` checks a
revealed game's deal and commitments (P6); :mod:`.history` compares two logs
(P9).  It writes nothing.
May import: :mod:`pbem.log`, :mod:`pbem.data`, :mod:`pbem.fair`, :mod:`pbem.rules`,
the bottom layer.
"""
