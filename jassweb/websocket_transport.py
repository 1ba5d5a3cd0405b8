"""The websocket transport's message limit: the same as the consumers' frame limit, closed cleanly.

Daphne accepts websocket messages of up to 1 MiB by default and, past its limit,
autobahn drops the TCP connection without a close frame (the client sees 1006).
A table's messages are small (``games.live.consumers.MAX_FRAME``), so anything larger
is refused by the transport itself, before it is buffered or handed to a
consumer, with a proper close handshake and code 1009 (message too big).

Daphne has no setting for autobahn's ``failByDrop`` and takes its size limits
from its command line only, so the limits are applied where its server builds
the websocket factory; every way of running this project starts daphne (its
``daphne`` command, ``manage.py runserver``, the tests' servers), and each
imports ``daphne.server`` before it loads ``jassweb.asgi``.
"""

from __future__ import annotations

import sys
from typing import Any


def limit_daphne_messages(max_bytes: int) -> bool:
    """Make daphne refuse incoming websocket messages above ``max_bytes`` with a 1009 close; True if applied.

    Only what clients send is limited: autobahn's message limit would apply to what
    the server sends too (a table's state is larger), so the incoming message is
    measured here, frame by frame, as autobahn measures it.
    """
    server: Any = sys.modules.get("daphne.server")  # daphne ships no types
    if server is None:  # not served by daphne (in-process tests): the consumer's own check answers
        return False
    base = server.WebSocketFactory
    if getattr(base, "jassweb_max_bytes", None) == max_bytes:
        return True

    class LimitedWebSocketProtocol(base.protocol):  # type: ignore[name-defined]
        def onMessageFrameBegin(self, length: int) -> None:
            super().onMessageFrameBegin(length)
            if not self.failedByMe and self.message_data_total_length > max_bytes:
                self.wasMaxMessagePayloadSizeExceeded = True
                self._max_message_size_exceeded(
                    self.message_data_total_length,
                    max_bytes,
                    f"a message to this server is at most {max_bytes} bytes, got {self.message_data_total_length}",
                )

    class LimitedWebSocketFactory(base):  # type: ignore[misc, valid-type]
        jassweb_max_bytes = max_bytes
        protocol = LimitedWebSocketProtocol

        def setProtocolOptions(self, *args: Any, **options: Any) -> None:
            super().setProtocolOptions(*args, **options)
            super().setProtocolOptions(maxFramePayloadSize=max_bytes, failByDrop=False)

    server.WebSocketFactory = LimitedWebSocketFactory
    return True
