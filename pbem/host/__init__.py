"""The host: the only writer of a game's files.

:mod:`.games` creates games and records what the referee admits (the secret's
faces resolve a move only after the verdict), :mod:`.settings` keeps the
host's private settings (``host.yaml``: addresses, the host key's path) and
:mod:`.sealer` signs every entry the host writes (P8).
May import: :mod:`pbem.referee.admit`, :mod:`pbem.views`, :mod:`pbem.log`,
:mod:`pbem.data`, :mod:`pbem.fair`, :mod:`pbem.rules`, the bottom layer.
"""
