"""Bots that play a seat from that seat's view only (PROTOCOL P10).

A bot is asked for a seat's next actions with the public state and the
seat's :class:`~pbem.bots.knowledge.Knowledge` (the public reveals plus its own
Witch looks); it never sees a :class:`pbem.rules.Faces` that can tell a hidden
face.  It answers with actions up to the end of its turn, or up to and
including a Witch look (R5.6), after which it is asked again with the look
learnt.  Levels: ``random``, ``greedy``, ``mcts`` (:func:`pbem.bots.levels.make_bot`).

:mod:`.knowledge` is what a seat may know, :mod:`.randombot`, :mod:`.greedy` and
:mod:`.mcts` the levels, :mod:`.levels` makes
one, and :mod:`.seat` plays a game's bot seats through the host.
May import: :mod:`pbem.player`, :mod:`pbem.host`, :mod:`pbem.views`, and every layer below.
"""

DEFAULT_SECONDS = 1.0
"""The mcts bot's thinking time per decision, unless told otherwise."""
