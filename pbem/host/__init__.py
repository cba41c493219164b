"""The host: the only writer of a game's files.

:mod:`.create` creates games, :mod:`.games` records what the referee admits
(the secret's faces, :mod:`.secret`, resolve a move only after the verdict;
a Witch's look goes to :mod:`.private`), :mod:`.settings` keeps the
host's private settings (``host.yaml``: addresses, the host key's path) and
:mod:`.sealer` signs every entry the host writes (P8).
May import: :mod:`pbem.referee.admit`, :mod:`pbem.views`, :mod:`pbem.log`,
:mod:`pbem.data`, :mod:`pbem.fair`, :mod:`pbem.rules`, the bottom layer.
"""
