"""The fairness primitives: what makes the rat order impossible to choose or change unseen.

The byte-exact protocol (:mod:`.protocol`: hashes, the seed, the random stream,
the deal, token commitments, PROTOCOL.md P2-P7), the deal turned into faces and
a starting state (:mod:`.dealing`), and Ed25519 keys and signatures
(:mod:`.keys`, P8).  Pure functions of their arguments but for reading key files.
May import: :mod:`pbem.rules` (its data types and the starting state),
:mod:`pbem.errors`, :mod:`pbem.record`, :mod:`pbem.files`; ``cryptography``
only inside the functions that sign or verify.
"""
