from __future__ import annotations

from django.apps import AppConfig


class BotsConfig(AppConfig):
    name = "bots"
    verbose_name = "Bots"

    def ready(self) -> None:
        # games never imports bots: it learns the built-in bots and the driver, the bot test and the
        # address guard from here. None of this imports a bot's code (numba); a bot's module is loaded
        # when it first plays.
        from bots import registry, remote
        from bots.runner import runner
        from games.live import bothooks

        registry.register()
        bothooks.install(driver=runner, probe_bot=remote.probe_bot, check_address=remote.check_address)
