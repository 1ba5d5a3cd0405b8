"""Production settings come from the environment (issue 15): `check --deploy` is clean, URLs keep their options.

Each configuration is loaded in a fresh process (settings are read once, at start),
as a server would load it: ``manage.py`` with only the environment changed.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

from jassweb import settings as project
from tests.services import postgres_database

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE_ENV = ROOT / "deploy" / "jassweb.env.example"
DEV_KEY_PREFIX = "dev-only-insecure-key"


def deploy_environment() -> dict[str, str]:
    """The variables of deploy/jassweb.env.example, with a real secret key in place of the placeholder."""
    values = {}
    for line in EXAMPLE_ENV.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, value = line.partition("=")
            values[name] = value
    values["DJANGO_SECRET_KEY"] = secrets.token_urlsafe(50)
    return values


def manage(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Run ``manage.py`` in a fresh process with only these project variables set."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("JASSWEB_", "DJANGO_", "JASS_"))}
    clean.pop("DATABASE_URL", None)
    clean.pop("REDIS_URL", None)
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


SHOW = """
import json
from django.conf import settings as s
names = ["DEBUG", "SECURE_SSL_REDIRECT", "SECURE_HSTS_SECONDS", "SECURE_HSTS_INCLUDE_SUBDOMAINS",
         "SECURE_HSTS_PRELOAD", "SESSION_COOKIE_SECURE", "CSRF_COOKIE_SECURE", "SECURE_PROXY_SSL_HEADER",
         "USE_X_FORWARDED_HOST", "ALLOWED_HOSTS", "CSRF_TRUSTED_ORIGINS", "CACHES", "CHANNEL_LAYERS",
         "JASSWEB_LOG_FORMAT", "JASSWEB_THINKERS", "STATIC_ROOT"]
print(json.dumps({n: getattr(s, n) for n in names}, default=str))
"""


def settings_under(env: dict[str, str]) -> dict:
    shown = manage("shell", "-c", SHOW, env=env)
    assert shown.returncode == 0, shown.stderr
    return json.loads(shown.stdout.strip().splitlines()[-1])


def test_check_deploy_is_clean_in_production_mode_with_the_deploy_environment():
    checked = manage("check", "--deploy", "--fail-level", "WARNING", env=deploy_environment())
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "System check identified no issues (0 silenced)." in checked.stdout


def test_production_mode_alone_is_secure_and_leaves_only_the_domain_owners_hsts_choices():
    # Before: HSTS, the HTTPS redirect and both secure cookies were warned about, with no way to set them.
    env = {"JASSWEB_DEBUG": "0", "DJANGO_SECRET_KEY": secrets.token_urlsafe(50)}
    checked = manage("check", "--deploy", env=env)
    assert checked.returncode == 0, checked.stderr
    assert sorted(set(re.findall(r"security\.W\d+", checked.stdout + checked.stderr))) == [
        "security.W005",  # SECURE_HSTS_INCLUDE_SUBDOMAINS: JASSWEB_HSTS_INCLUDE_SUBDOMAINS=1
        "security.W021",  # SECURE_HSTS_PRELOAD: JASSWEB_HSTS_PRELOAD=1
    ]


def test_production_mode_refuses_to_start_without_a_secret_key():
    started = manage("check", env={"JASSWEB_DEBUG": "0"})
    assert started.returncode != 0 and "DJANGO_SECRET_KEY must be set" in started.stderr


def test_the_deploy_environment_sets_https_the_proxy_hosts_redis_and_json_logs():
    shown = settings_under(deploy_environment())
    assert shown["DEBUG"] is False
    assert shown["SECURE_SSL_REDIRECT"] and shown["SESSION_COOKIE_SECURE"] and shown["CSRF_COOKIE_SECURE"]
    assert shown["SECURE_HSTS_SECONDS"] == 31_536_000
    assert shown["SECURE_HSTS_INCLUDE_SUBDOMAINS"] and shown["SECURE_HSTS_PRELOAD"]
    assert shown["SECURE_PROXY_SSL_HEADER"] == ["HTTP_X_FORWARDED_PROTO", "https"]
    assert shown["USE_X_FORWARDED_HOST"] is True
    assert shown["ALLOWED_HOSTS"] == ["jass.example.org"]
    assert shown["CSRF_TRUSTED_ORIGINS"] == ["https://jass.example.org"]
    assert shown["CACHES"]["default"]["BACKEND"] == "django.core.cache.backends.redis.RedisCache"
    assert shown["CACHES"]["default"]["LOCATION"] == "redis://127.0.0.1:6379/0"
    assert shown["CHANNEL_LAYERS"]["default"]["BACKEND"] == "channels_redis.pubsub.RedisPubSubChannelLayer"
    assert shown["CHANNEL_LAYERS"]["bots"]["CONFIG"]["hosts"][0]["address"] == "redis://127.0.0.1:6379/0"
    assert shown["JASSWEB_THINKERS"] == "channels"
    assert shown["JASSWEB_LOG_FORMAT"] == "json"
    assert shown["STATIC_ROOT"] == "/srv/jassweb/staticfiles"


def test_every_setting_can_be_turned_and_the_developers_defaults_are_unchanged():
    shown = settings_under({})  # make run: nothing set
    assert shown["DEBUG"] is True
    assert not (shown["SECURE_SSL_REDIRECT"] or shown["SESSION_COOKIE_SECURE"] or shown["SECURE_HSTS_SECONDS"])
    assert shown["SECURE_PROXY_SSL_HEADER"] is None and shown["USE_X_FORWARDED_HOST"] is False
    assert shown["ALLOWED_HOSTS"] == ["127.0.0.1", "localhost"]
    assert shown["CACHES"]["default"]["BACKEND"] == "django.core.cache.backends.locmem.LocMemCache"
    assert shown["CHANNEL_LAYERS"]["default"]["BACKEND"] == "jassweb.layers.LocalChannelLayer"
    assert shown["JASSWEB_LOG_FORMAT"] == "plain"

    turned = settings_under(
        {
            "JASSWEB_DEBUG": "0",
            "DJANGO_SECRET_KEY": "k" * 50,
            "JASSWEB_SSL_REDIRECT": "0",
            "JASSWEB_HSTS_SECONDS": "3600",
            "JASSWEB_SECURE_COOKIES": "0",
            "JASSWEB_ALLOWED_HOSTS": "a.example,b.example",
            "JASSWEB_CSRF_TRUSTED_ORIGINS": "https://a.example,https://b.example:8443",
            "JASSWEB_CACHE_URL": "redis://127.0.0.1:6379/3",
            "JASSWEB_LOG_FORMAT": "plain",
        }
    )
    assert turned["DEBUG"] is False and turned["SECURE_SSL_REDIRECT"] is False
    assert turned["SECURE_HSTS_SECONDS"] == 3600 and turned["SESSION_COOKIE_SECURE"] is False
    assert turned["ALLOWED_HOSTS"] == ["a.example", "b.example"]
    assert turned["CSRF_TRUSTED_ORIGINS"] == ["https://a.example", "https://b.example:8443"]
    assert turned["CACHES"]["default"]["LOCATION"] == "redis://127.0.0.1:6379/3"
    assert turned["JASSWEB_LOG_FORMAT"] == "plain"


def test_a_database_url_keeps_its_options_for_the_driver_and_the_pool(monkeypatch):
    # Before: only postgres:// was read and every query option (?sslmode=require) was dropped.
    url = "postgres://jass:p%40ss@db.internal:5433/jassweb?sslmode=require&connect_timeout=4"
    config = project._database_from_url(url + "&pool_min_size=1&pool_max_size=30&pool_timeout=5")
    assert config["ENGINE"] == "jassweb.backends.postgresql"
    assert (config["NAME"], config["USER"], config["PASSWORD"]) == ("jassweb", "jass", "p@ss")
    assert (config["HOST"], config["PORT"]) == ("db.internal", "5433")
    assert config["OPTIONS"] == {
        "sslmode": "require",
        "connect_timeout": 4,
        "pool": {"min_size": 1, "max_size": 30, "timeout": 5.0},
    }
    assert config["CONN_MAX_AGE"] == 0  # the pool, not persistent connections (Django's advice under ASGI)

    monkeypatch.setenv("JASSWEB_DB_POOL_MIN", "3")
    monkeypatch.setenv("JASSWEB_DB_POOL_MAX", "12")
    assert project._database_from_url(url)["OPTIONS"]["pool"] == {"min_size": 3, "max_size": 12, "timeout": 20.0}

    unpooled = project._database_from_url(url + "&pool=off&conn_max_age=60")  # e.g. behind PgBouncer
    assert "pool" not in unpooled["OPTIONS"] and unpooled["CONN_MAX_AGE"] == 60

    sqlite = project._database_from_url("sqlite:////var/lib/jassweb/db.sqlite3")
    assert sqlite["ENGINE"] == "jassweb.backends.sqlite3" and sqlite["NAME"] == "/var/lib/jassweb/db.sqlite3"
    assert "journal_mode=WAL" in sqlite["OPTIONS"]["init_command"]

    with pytest.raises(RuntimeError, match="postgres://"):
        project._database_from_url("mysql://db/jassweb")


@pytest.mark.services
def test_a_server_connects_to_postgresql_with_the_url_options():
    with postgres_database() as url:
        env = {"DATABASE_URL": url + "?sslmode=disable&connect_timeout=3&pool_min_size=1&pool_max_size=3"}
        probe = (
            "from django.db import connection\n"
            "with connection.cursor() as c: c.execute('SELECT 1')\n"
            "params = connection.get_connection_params()\n"
            "print(params['sslmode'], params['connect_timeout'], connection.pool.max_size)"
        )
        shown = manage("shell", "-c", probe, env=env)
        assert shown.returncode == 0, shown.stderr
        assert shown.stdout.split()[-3:] == ["disable", "3", "3"]
