"""Hostile bot URLs, against a server in production mode: every form is refused before any connection.

A loopback listener (IPv4 and IPv6) stands where the URLs point; it proves that
nothing arrived. A "public" bot server (allowlisted, as a public host would be
allowed) that redirects to the listener shows that a redirect cannot lead the
server there either.
"""

from __future__ import annotations

import asyncio
import http.server
import socket
import threading

import pytest
import websockets

from games.live.protocol import MAX_FRAME
from tests.hostile_helpers import production_server
from tests.test_remote_bots import Listener
from tests.ws_helpers import LiveClient, close_all_clients, create_live_table, guest_cookies

pytestmark = pytest.mark.services  # production-mode servers, Redis


def hostile_urls(port: int, port6: int) -> list[str]:
    """Every form a bot URL may take to reach this machine or a private network (the listeners' ports)."""
    return [
        f"http://127.0.0.1:{port}/",
        f"http://localhost:{port}/",
        f"http://localhost:{port6}/",
        f"http://0.0.0.0:{port}/",
        f"http://[::1]:{port6}/",
        f"http://[::]:{port6}/",
        f"http://[::ffff:127.0.0.1]:{port}/",
        f"http://[::ffff:7f00:1]:{port}/",
        f"http://2130706433:{port}/",
        f"http://0x7f000001:{port}/",
        f"http://0177.0.0.1:{port}/",
        f"http://127.1:{port}/",
        f"http://127.0.0.1.:{port}/",
        f"https://127.0.0.1:{port}/",
        "http://169.254.169.254/latest/meta-data/",
        "http://10.0.0.1/",
        "http://172.16.5.4:8080/",
        "http://192.168.1.1/",
        "http://100.64.0.1/",
        "http://[fc00::1]/",
        "http://[fe80::1]/",
        f"http://user@127.0.0.1:{port}/",
        f"http://user:secret@127.0.0.1:{port}/",
        f"http://bots.example.org@127.0.0.1:{port}/",
        f"ftp://127.0.0.1:{port}/",
        "file:///etc/passwd",
        f"gopher://127.0.0.1:{port}/",
        f"ws://127.0.0.1:{port}/",
        "javascript:alert(1)",
        f"//127.0.0.1:{port}/",
        f"127.0.0.1:{port}",
        "http://bots.example.org/" + "a" * 10_000,
        # IPv4 inside IPv6: IPv4-compatible, NAT64 (well-known and local-use) and 6to4, Teredo.
        f"http://[::127.0.0.1]:{port}/",
        f"http://[64:ff9b::7f00:1]:{port}/",
        f"http://[64:ff9b:1::7f00:1]:{port}/",
        f"http://[2002:7f00:1::]:{port}/",
        f"http://[2001:0:4136:e378:8000:63bf:80ff:fffe]:{port}/",
        # A host name no DNS can carry.
        "http://\u202e/",
        "http://exa mple.org/",
    ]


class Redirector(http.server.BaseHTTPRequestHandler):
    """A 'public' bot that answers every request with a redirect to the loopback listener."""

    target = ""

    def do_POST(self) -> None:
        self.send_response(302)
        self.send_header("Location", self.target)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


def test_every_hostile_bot_url_is_refused_and_nothing_reaches_loopback(tmp_path):
    ipv4, ipv6 = Listener(socket.AF_INET, "127.0.0.1"), Listener(socket.AF_INET6, "::1")
    redirector = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Redirector)
    Redirector.target = f"http://127.0.0.1:{ipv4.port}/"
    threading.Thread(target=redirector.serve_forever, daemon=True).start()
    public = f"127.0.0.1:{redirector.server_port}"
    env = {
        "JASS_BOT_URL_ALLOWLIST": public,  # stands for a public host: allowed, and it redirects
        "JASSWEB_LIMITS": "0",  # every attempt must meet the guard itself, not a limit
    }
    try:
        with production_server(tmp_path, **env) as (base, log):
            cookies = guest_cookies(base, "Mallory")
            table_id = create_live_table(base, cookies, turn_clock="0")
            urls = hostile_urls(ipv4.port, ipv6.port)
            replies = asyncio.run(_try_all(base, table_id, cookies, urls, f"http://{public}/bot"))
            for url, kind, reply in replies:
                if len(url) > MAX_FRAME:  # the 10 KB URL: the transport refuses the message itself
                    assert reply == {"type": "closed", "code": 1009}, reply
                    continue
                assert reply["type"] == "error", (url, kind, reply)
                assert reply["code"] in ("bot_url_refused", "bad_bot_url", "bad_message"), (url, kind, reply)
                assert reply["message"], (url, kind, reply)
            redirect = asyncio.run(_test_bot(base, table_id, cookies, f"http://{public}/bot"))
            assert redirect["type"] == "bot_test" and not redirect["ok"]
            assert "redirect" in redirect["answer"] or "another host" in str(redirect), redirect
            assert "Traceback" not in log()
        assert len(replies) == 2 * len(urls) and len(urls) >= 39
        assert not ipv4.connected and not ipv6.connected, "a request reached the loopback listener"
    finally:
        ipv4.close()
        ipv6.close()
        redirector.shutdown()


async def _try_all(base: str, table_id: int, cookies: dict[str, str], urls: list[str], public: str):
    client = await LiveClient.open(base, table_id, cookies)
    replies = []
    try:
        for n, url in enumerate(urls):
            for kind in ("add_remote_bot", "test_bot"):
                message = {"type": kind, "url": url, "seat": 1, "name": "x", "id": n}
                try:
                    replies.append((url, kind, await client.error(message, timeout=10)))
                except websockets.ConnectionClosed as closed:
                    replies.append((url, kind, {"type": "closed", "code": closed.rcvd.code if closed.rcvd else None}))
                    await client.close()
                    client = await LiveClient.open(base, table_id, cookies)
        # The redirecting "public" bot may be seated (its address is fine); it is asked only in a game.
        await client.send({"type": "add_remote_bot", "url": public, "seat": 1, "name": "Redirector"})
        await client.state(lambda v: v["seats"][1]["kind"] == "remote")
    finally:
        await close_all_clients()
    return replies


async def _test_bot(base: str, table_id: int, cookies: dict[str, str], url: str) -> dict:
    client = await LiveClient.open(base, table_id, cookies)
    try:
        await client.send({"type": "test_bot", "url": url, "dialect": "spec", "id": "r"})
        return await client.frame_of("bot_test", timeout=15)
    finally:
        await close_all_clients()
