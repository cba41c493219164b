"""The mail host: moves that arrive by e-mail, and every reply, through a Maildir.

:mod:`.headers` reads one message safely (limits before parsing);
:mod:`.message` finds the move in it (an attachment, the body or a quoted
reply; :mod:`.threads`: the host's mail a Reply answers); :mod:`.admission`
decides (:mod:`.verdict`), then :mod:`.answers` composes the replies
(:mod:`.replies`: each seat's mail mode, :mod:`.outgoing`: headers, subjects and
attachments, :mod:`.digest`: the day's summary); :mod:`.host` works a Maildir
(isolation, quarantine), :mod:`.outbox` keeps the durable queue, :mod:`.resend`
sends a lost turn's mail again, and :mod:`.invite` the opening's invitations.
May import: :mod:`pbem.host.games`, :mod:`pbem.player`, :mod:`pbem.referee.admit`,
:mod:`pbem.views`, :mod:`pbem.log`, :mod:`pbem.fair`, :mod:`pbem.rules`, the
bottom layer, the standard library's ``email``, ``mailbox`` and ``smtplib``.
"""
