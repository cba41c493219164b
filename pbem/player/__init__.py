"""A player's own tools, run on their machine with the public log only.

``pbem check`` (:mod:`.check`: the referee's verdict offline, word for word),
``pbem nonce`` (:mod:`.nonces`: the P4 opening's nonce, kept private, its
commitment and reveal) and ``pbem sign`` (:mod:`.signfile`, P8).
May import: :mod:`pbem.referee.admit`, :mod:`pbem.views`, :mod:`pbem.log`,
:mod:`pbem.fair`, :mod:`pbem.rules`, the bottom layer (never :mod:`pbem.host.games`).
"""
