"""Games played by bots: random bots (:mod:`.bot`), whole games in memory
(:mod:`.simulate`) and through the real path of files (:mod:`.demo`).

Bots see public state only: never a face.
May import: everything below the command line.
"""
