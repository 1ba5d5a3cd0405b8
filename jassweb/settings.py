"""Django settings for Jassweb, read from the environment.

Embedded default (``make run``): SQLite in the project folder and the in-memory
channel layer, one process. Scale out by setting ``DATABASE_URL``
(``postgres://user@host:5432/name``) and ``REDIS_URL`` (``redis://host:6379/0``).
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import unquote, urlparse

BASE_DIR = Path(__file__).resolve().parent.parent


def _env_flag(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


DEBUG = _env_flag("JASSWEB_DEBUG", True)
SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY") or (
    "dev-only-insecure-key-set-DJANGO_SECRET_KEY-in-production" if DEBUG else None
)
if not SECRET_KEY:
    raise RuntimeError("DJANGO_SECRET_KEY must be set when JASSWEB_DEBUG is off")

ALLOWED_HOSTS = [h for h in os.environ.get("JASSWEB_ALLOWED_HOSTS", "127.0.0.1,localhost").split(",") if h]
CSRF_TRUSTED_ORIGINS = [o for o in os.environ.get("JASSWEB_CSRF_TRUSTED_ORIGINS", "").split(",") if o]

INSTALLED_APPS = [
    "daphne",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "games",
    "bots",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",  # /static/: hashed names, gzip/brotli, long caching
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "jassweb.urls"
ASGI_APPLICATION = "jassweb.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]


def _database_from_url(url: str) -> dict[str, object]:
    parsed = urlparse(url)
    if parsed.scheme not in {"postgres", "postgresql"}:
        raise RuntimeError(f"DATABASE_URL must be a postgres:// URL, got scheme {parsed.scheme!r}")
    return {
        "ENGINE": "jassweb.backends.postgresql",
        "NAME": unquote(parsed.path.lstrip("/")) or "jassweb",
        "USER": unquote(parsed.username or ""),
        "PASSWORD": unquote(parsed.password or ""),
        "HOST": parsed.hostname or "",
        "PORT": str(parsed.port or ""),
        # Django's advice for ASGI: no persistent connections per thread, a psycopg pool instead;
        # each database call borrows a connection for its duration.
        "CONN_MAX_AGE": 0,
        "OPTIONS": {
            "pool": {
                "min_size": int(os.environ.get("JASSWEB_DB_POOL_MIN", "2")),
                "max_size": int(os.environ.get("JASSWEB_DB_POOL_MAX", "10")),
                "timeout": 20,
            }
        },
    }


if os.environ.get("DATABASE_URL"):
    DATABASES = {"default": _database_from_url(os.environ["DATABASE_URL"])}
else:
    DATABASES = {
        "default": {
            "ENGINE": "jassweb.backends.sqlite3",
            "NAME": os.environ.get("JASSWEB_SQLITE_PATH", str(BASE_DIR / "db.sqlite3")),
            # One connection kept open: Channels runs all database work of a process on one thread,
            # and reopening (with its PRAGMAs) for every call cost a tenth of the server's time.
            "CONN_MAX_AGE": None,
            "CONN_HEALTH_CHECKS": True,
            # Writers (browser tabs, bots) queue for the lock instead of failing; WAL lets pages read
            # while a move is written, and NORMAL sync skips an fsync per move (still crash-safe).
            "OPTIONS": {
                "timeout": 20,
                "transaction_mode": "IMMEDIATE",
                "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
            },
        }
    }

# Django's backends with one change: the text of every query is kept (connection.queries) only when
# this is on, not whenever DEBUG is (jassweb/backends/logging.py says why).
JASSWEB_LOG_QUERIES = _env_flag("JASSWEB_LOG_QUERIES", False)

REDIS_URL = os.environ.get("REDIS_URL", "")
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            # Pub/sub delivers table broadcasts about 3x faster than the classic layer here,
            # and a pool above the default 100 keeps handshakes alive under a burst.
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            "CONFIG": {
                "hosts": [{"address": REDIS_URL, "max_connections": 1000}],
                "prefix": os.environ.get("JASSWEB_CHANNEL_PREFIX", "jassweb"),
            },
        }
    }
else:
    CHANNEL_LAYERS = {
        # Channels' in-memory layer without its per-message walk over every socket (jassweb/layers.py).
        # A table event reaches every watcher's queue; the default capacity (100) would drop events
        # for a watcher that falls behind during a burst.
        "default": {"BACKEND": "jassweb.layers.LocalChannelLayer", "CONFIG": {"capacity": 1000}}
    }

# Where built-in bots think: "local" (a process pool beside each server; no broker) or "channels"
# (Channels workers on the Redis channel layer, on any machine: `manage.py runworker --layer bots bots-think`).
JASSWEB_THINKERS = os.environ.get("JASSWEB_THINKERS", "local")
if JASSWEB_THINKERS not in ("local", "channels"):
    raise RuntimeError(f"JASSWEB_THINKERS is 'local' or 'channels', got {JASSWEB_THINKERS!r}")
if JASSWEB_THINKERS == "channels":
    if not REDIS_URL:
        raise RuntimeError("JASSWEB_THINKERS=channels needs REDIS_URL")
    CHANNEL_LAYERS["bots"] = {
        # The classic layer, not pub/sub: a request on a normal channel goes to exactly one worker.
        "BACKEND": "channels_redis.core.RedisChannelLayer",
        "CONFIG": {
            "hosts": [REDIS_URL],
            "prefix": os.environ.get("JASSWEB_CHANNEL_PREFIX", "jassweb") + "-bots",
            "capacity": 10000,
            "expiry": 30,
        },
    }

# The turn clocks the pages offer, seconds per move (0: off); the lobby form proposes 60 s when offered.
JASSWEB_TURN_CLOCK_CHOICES = [
    int(x) for x in os.environ.get("JASSWEB_TURN_CLOCK_CHOICES", "0,30,60,120").split(",") if x.strip()
]

# A running game that people play, but none of them is connected and nobody moved for this long,
# is abandoned (bot-only games are played to their end).
JASSWEB_ORPHAN_MINUTES = float(os.environ.get("JASSWEB_ORPHAN_MINUTES", "30"))

# The lobby stops listing a table whose last game is finished or abandoned once nothing happened
# there for this long (the page hides it too when it ages out while open).
JASSWEB_LOBBY_FINISHED_MINUTES = float(os.environ.get("JASSWEB_LOBBY_FINISHED_MINUTES", "10"))

# Remote HSLU bots: loopback, private and other non-public addresses are refused unless this is
# on (the default only with DEBUG), or the host (or host:port) is listed in the allowlist.
JASS_ALLOW_PRIVATE_BOT_URLS = _env_flag("JASS_ALLOW_PRIVATE_BOT_URLS", DEBUG)
JASS_BOT_URL_ALLOWLIST = [h for h in os.environ.get("JASS_BOT_URL_ALLOWLIST", "").split(",") if h.strip()]

# Seconds a round's summary stays before the bots play the next deal (new tables' default; 0, 3, 5, 10).
# Analyse every game when it ends (a bot worker, at low priority): the replay's marks and graph.
JASSWEB_ANALYSIS = _env_flag("JASSWEB_ANALYSIS", True)
JASSWEB_ROUND_PAUSE_S = int(os.environ.get("JASSWEB_ROUND_PAUSE_S", "5"))

# Pause before each built-in bot move so people can follow the cards (new tables' default).
JASSWEB_BOT_DELAY_MS = int(os.environ.get("JASSWEB_BOT_DELAY_MS", "800"))

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "lobby"
LOGOUT_REDIRECT_URL = "lobby"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "Europe/Zurich"
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(os.environ.get("JASSWEB_STATIC_ROOT", str(BASE_DIR / "staticfiles")))
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    # Hashed, compressed names once `collectstatic` ran (make run, make test); jassweb/staticfiles.py says why.
    "staticfiles": {"BACKEND": "jassweb.staticfiles.HashedStaticStorage"},
}
# Files not collected yet are found in static/ (tests, a bare daphne); collected ones come with .gz/.br.
WHITENOISE_USE_FINDERS = True
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": os.environ.get("JASSWEB_LOG_LEVEL", "INFO")},
    "loggers": {"httpx": {"level": "WARNING"}},  # not a line per bot request
}
