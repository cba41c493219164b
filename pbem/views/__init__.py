"""What people read, one module per format, all from public state (PROTOCOL P10).

:mod:`.text` is the board and events in words and the move templates,
:mod:`.report` what an accepted step added.  A player's private Witch looks
are shown only to that player, through the functions that take them.
May import: :mod:`pbem.log`, :mod:`pbem.data`, :mod:`pbem.fair`,
:mod:`pbem.rules`, the bottom layer.
"""
