"""The public log and the files around it: formats, the chain, the public game.

Strict YAML reading and pbem's own writing (:mod:`.yamlio`), the log file with
its hash chain and lock (:mod:`.logfile`), the host's clock (:mod:`.clock`),
move files and their schema (:mod:`.moves`), and the game as its log shows it
(:mod:`.game`).  Nothing here decides whether a move is admitted.
May import: :mod:`pbem.fair`, :mod:`pbem.rules`, the bottom layer, PyYAML and
(lazily, for the schema) jsonschema.
"""
