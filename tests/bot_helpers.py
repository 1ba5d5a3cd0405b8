"""Real HSLU bot servers on loopback for tests: jass-kit's player service, and a fault injector."""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

import httpx

from tests import tiers
from tests.server_helpers import HTTP, ROOT, free_port


@contextmanager
def jasskit_service(*names: str, timeout: float = 20.0, lawful: bool = False):
    """Run jass-kit's Flask player service with random agents called ``names``; yield its base URL.

    ``{base}/{name}`` is a jass-kit-dialect bot, ``{base}/spec/{name}`` the same agent on the spec's paths.
    ``lawful``: the agents never play the under-trump jass-kit's rules wrongly allow (a test that asks for no
    fault at all; the others tell that fault apart, e.g. tests/test_remote_bots.py's ``jasskit_undertrump``).
    """
    tiers.require("services", "jass-kit's player service")
    port = free_port()
    log = tempfile.NamedTemporaryFile(prefix=f"jasskit-{port}-", suffix=".log", delete=False)  # noqa: SIM115
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.bot_servers.jasskit_service", "--port", str(port), *names]
        + (["--lawful"] if lawful else []),
        cwd=ROOT,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"jass-kit service exited: {Path(log.name).read_text()}")
            try:
                if HTTP.get(f"{base}/{names[0]}", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("jass-kit service did not start")
            time.sleep(0.1)
        yield base
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()


def jasskit_stats(base: str) -> dict[str, int]:
    """Requests the jass-kit service answered, by last path part and status (e.g. ``"game_info 200"``)."""
    return HTTP.get(f"{base}/stats", timeout=5).json()


@contextmanager
def example_bot(*options: str):
    """Run the example HSLU bot (``bots.examples.simple_bot``, the spec's paths) on loopback; yield its URL.

    ``options``: more of its command line, e.g. ``"--bot", "solver"``.
    """
    tiers.require("services", "the example HSLU bot")
    port = free_port()
    bot = subprocess.Popen(
        [sys.executable, "-m", "bots.examples.simple_bot", "--port", str(port), *options],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert bot.stdout is not None and "bot ready" in bot.stdout.readline()
        yield f"http://127.0.0.1:{port}"
    finally:
        bot.terminate()
        bot.wait(timeout=10)
