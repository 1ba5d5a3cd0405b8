"""Django settings for Jassweb, read from the environment (django-environ).

Embedded default (``make run``): SQLite in the project folder and the in-memory
channel layer, one process. Scale out by setting ``DATABASE_URL``
(``postgres://user@host:5432/name?sslmode=require``) and ``REDIS_URL``
(``redis://host:6379/0``). Production mode is ``JASSWEB_DEBUG=0`` with
``DJANGO_SECRET_KEY``; ``deploy/jassweb.env.example`` lists what a deployment sets.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import environ
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent

env = environ.Env()


def _env_flag(name: str, default: bool) -> bool:
    return env.bool(name, default=default)


DEBUG = _env_flag("JASSWEB_DEBUG", True)
SECRET_KEY = env.str("DJANGO_SECRET_KEY", default="") or (
    "dev-only-insecure-key-set-DJANGO_SECRET_KEY-in-production" if DEBUG else None
)
if not SECRET_KEY:
    raise RuntimeError("DJANGO_SECRET_KEY must be set when JASSWEB_DEBUG is off")

ALLOWED_HOSTS = env.list("JASSWEB_ALLOWED_HOSTS", default=["127.0.0.1", "localhost"])
CSRF_TRUSTED_ORIGINS = env.list("JASSWEB_CSRF_TRUSTED_ORIGINS", default=[])

# -- HTTPS and the reverse proxy ---------------------------------------------------------------------
# Production mode is secure by default (HTTPS only, secure cookies, a year of HSTS); each can be set.
# Subdomains and the browsers' preload list are the domain owner's decision: off unless set.
SECURE_SSL_REDIRECT = _env_flag("JASSWEB_SSL_REDIRECT", not DEBUG)
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]  # a load balancer probes the servers over plain HTTP
SECURE_HSTS_SECONDS = env.int("JASSWEB_HSTS_SECONDS", default=0 if DEBUG else 31_536_000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = _env_flag("JASSWEB_HSTS_INCLUDE_SUBDOMAINS", False)
SECURE_HSTS_PRELOAD = _env_flag("JASSWEB_HSTS_PRELOAD", False)
SESSION_COOKIE_SECURE = _env_flag("JASSWEB_SECURE_COOKIES", not DEBUG)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
LANGUAGE_COOKIE_SECURE = SESSION_COOKIE_SECURE  # the header switch's choice (set_language)
LANGUAGE_COOKIE_SAMESITE = "Lax"
# Behind a reverse proxy that terminates TLS (deploy/nginx/jassweb.conf): trust its X-Forwarded-Proto
# and X-Forwarded-Host. Only behind such a proxy: a client reaching daphne directly could forge them.
JASSWEB_BEHIND_PROXY = _env_flag("JASSWEB_BEHIND_PROXY", False)
if JASSWEB_BEHIND_PROXY:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    USE_X_FORWARDED_HOST = True
# How many proxies in front append to X-Forwarded-For (games/live/limits.py reads the visitor's address from the
# right, that many entries in): 1 behind the recipe's nginx. Whatever a visitor writes into the header stays to
# the left and is never taken for their address; 0 takes the connection's address (no proxy).
JASSWEB_PROXY_HOPS = env.int("JASSWEB_PROXY_HOPS", default=1 if JASSWEB_BEHIND_PROXY else 0)
if JASSWEB_PROXY_HOPS < 0:
    raise RuntimeError(f"JASSWEB_PROXY_HOPS is a number of proxies, 0 or more, got {JASSWEB_PROXY_HOPS}")

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",  # the operator's view (games/admin.py), at JASSWEB_ADMIN_PATH
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "games",
    "bots",
    "tournaments",
]

MIDDLEWARE = [
    # /healthz for load balancers answers before host checks, HTTPS redirects and sessions (jassweb/health.py).
    "jassweb.health.HealthMiddleware",
    # /metrics for Prometheus, likewise by address over plain HTTP, behind its token (jassweb/metrics.py).
    "jassweb.metrics.MetricsMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",  # /static/: hashed names, gzip/brotli, long caching
    # Content-Security-Policy: this site's own scripts, styles and sockets only; a nonce for the import map.
    "jassweb.csp.ContentSecurityPolicyMiddleware",
    # Pages and JSON compressed (static files never reach it: WhiteNoise answers them above); why this is
    # safe from BREACH: jassweb/compression.py.
    "jassweb.compression.PageGZipMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # The language: the one chosen in the header (a cookie), else the browser's Accept-Language.
    "django.middleware.locale.LocaleMiddleware",
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
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "games.pages.context_processors.cards",
                "games.pages.context_processors.kinds",
            ],
            # {% load jassweb_static %}: the site's own tags live beside what they serve (jassweb/staticfiles.py,
            # jsi18n.py, csp.py), not in an app's templatetags/, so that nothing in games imports jassweb.
            "libraries": {"jassweb_static": "jassweb.templatetags.jassweb_static"},
        },
    },
]


def _database_from_url(url: str) -> dict[str, object]:
    """``DATABASES['default']`` from a URL: ``postgres://user:password@host:5432/name?sslmode=require``.

    Query options go to the driver (psycopg: ``sslmode``, ``sslrootcert``, ``connect_timeout``, …), except
    Django's own (``conn_max_age``, ``conn_health_checks``) and the connection pool's: ``pool_min_size``,
    ``pool_max_size``, ``pool_timeout`` (seconds a request waits for a connection), or ``pool=off`` for
    persistent connections instead (e.g. behind PgBouncer). ``sqlite:////path/db.sqlite3`` works too.
    """
    scheme = url.split(":", 1)[0]
    if scheme == "sqlite":
        config = env.db_url_config(url)
        own = {k: v for k, v in config.items() if k in ("CONN_MAX_AGE", "CONN_HEALTH_CHECKS")}
        return {**_sqlite(config["NAME"]), **own}
    if scheme not in {"postgres", "postgresql", "pgsql"}:
        raise RuntimeError(f"DATABASE_URL must be a postgres:// (or sqlite://) URL, got scheme {scheme!r}")
    config = env.db_url_config(url, engine="jassweb.backends.postgresql")
    options = dict(config.get("OPTIONS", {}))
    pool = {
        "min_size": int(options.pop("pool_min_size", env.int("JASSWEB_DB_POOL_MIN", default=2))),
        "max_size": int(options.pop("pool_max_size", env.int("JASSWEB_DB_POOL_MAX", default=10))),
        "timeout": float(options.pop("pool_timeout", 20)),
    }
    if str(options.pop("pool", "on")).lower() in {"off", "false", "0", "no"}:
        config.setdefault("CONN_MAX_AGE", 0)
    else:
        # Django's advice for ASGI: no persistent connections per thread, a psycopg pool instead;
        # each database call borrows a connection for its duration.
        config["CONN_MAX_AGE"] = 0
        options["pool"] = pool
    config["PORT"] = str(config.get("PORT") or "")
    config["NAME"] = config.get("NAME") or "jassweb"
    config["OPTIONS"] = options
    return config


def _sqlite(path: str) -> dict[str, object]:
    return {
        "ENGINE": "jassweb.backends.sqlite3",
        "NAME": path,
        # One connection kept open: Channels runs all database work of a process on one thread,
        # and reopening (with its PRAGMAs) for every call cost a tenth of the server's time.
        "CONN_MAX_AGE": None,
        "CONN_HEALTH_CHECKS": True,
        # Tests use an in-memory database, said outright: our backend's name is not Django's, so
        # pytest-xdist would otherwise give each worker a file name built from the path above.
        "TEST": {"NAME": ":memory:"},
        # Writers (browser tabs, bots) queue for the lock instead of failing; WAL lets pages read
        # while a move is written, and NORMAL sync skips an fsync per move (still crash-safe).
        "OPTIONS": {
            "timeout": 20,
            "transaction_mode": "IMMEDIATE",
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        },
    }


if env.str("DATABASE_URL", default=""):
    DATABASES = {"default": _database_from_url(env.str("DATABASE_URL"))}
else:
    DATABASES = {"default": _sqlite(env.str("JASSWEB_SQLITE_PATH", default=str(BASE_DIR / "db.sqlite3")))}

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
        # The classic layer, not pub/sub: a request on a normal channel goes to exactly one worker. Its receive
        # waits out a Redis restart (jassweb/layers.py): Channels' own would end `runworker`.
        "BACKEND": "jassweb.layers.ReconnectingRedisChannelLayer",
        "CONFIG": {
            # A worker waits for requests with BZPOPMIN for 5 s; redis-py's default read timeout is 5 s too,
            # so an idle worker's wait ended in a TimeoutError that stopped `runworker`. A longer read timeout
            # lets the wait end as Redis ends it (a socket_timeout in REDIS_URL's query still wins).
            "hosts": [{"address": REDIS_URL, "socket_timeout": 30}],
            "prefix": os.environ.get("JASSWEB_CHANNEL_PREFIX", "jassweb") + "-bots",
            "capacity": 10000,
            "expiry": 30,
        },
    }

# -- cache ---------------------------------------------------------------------------------------------
# Django's cache (limits on abuse count in it): shared by all server processes in Redis when REDIS_URL is
# set (its own key prefix), else in this process's memory. JASSWEB_CACHE_URL names another one.
if env.str("JASSWEB_CACHE_URL", default=""):
    CACHES = {"default": env.cache_url("JASSWEB_CACHE_URL")}
elif REDIS_URL:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL}}
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
CACHES["default"].setdefault("KEY_PREFIX", os.environ.get("JASSWEB_CHANNEL_PREFIX", "jassweb") + "-cache")

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

# Threads that run a server process's database work on PostgreSQL (games/live/database.py; SQLite: one).
JASSWEB_DB_THREADS = int(os.environ.get("JASSWEB_DB_THREADS", "4"))

# PostgreSQL: prepare the move's statements once per connection (games/live/fastpath.py). Off behind a PgBouncer in
# transaction mode older than 1.21, which cannot keep a prepared statement with its connection.
JASSWEB_DB_PREPARE = env.bool("JASSWEB_DB_PREPARE", default=True)

# PostgreSQL: a person's move at a table where nothing happened since this process stored the game's last move is
# one statement without the table's lock and the game's read first (games/live/service.py, _submit_unchanged).
# 0 takes the full path for every move (for a measurement beside it).
JASSWEB_UNCHANGED_MOVES = env.bool("JASSWEB_UNCHANGED_MOVES", default=True)

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "lobby"
LOGOUT_REDIRECT_URL = "lobby"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]

# English by default; German, French and Italian from the browser or the header's switcher
# (locale/<lang>/LC_MESSAGES/django.po, compiled .mo files committed). Each named in its own language.
LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("de", "Deutsch"), ("fr", "Français"), ("it", "Italiano")]
LOCALE_PATHS = [BASE_DIR / "locale"]
FORMAT_MODULE_PATH = ["jassweb.formats"]  # English dates the Swiss way round (jassweb/formats/en)
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

# /metrics (jassweb/metrics.py) answers `Authorization: Bearer <token>`; with no token, only in development.
# Every process of a machine writes its series to PROMETHEUS_MULTIPROC_DIR (read by prometheus-client itself).
JASSWEB_METRICS_TOKEN = env.str("JASSWEB_METRICS_TOKEN", default="")
_metrics_dir = os.environ.get("PROMETHEUS_MULTIPROC_DIR", "")
if _metrics_dir:
    try:
        os.makedirs(_metrics_dir, exist_ok=True)
        if not os.access(_metrics_dir, os.W_OK | os.X_OK):
            raise PermissionError(f"cannot write to {_metrics_dir}")
    except OSError as exc:
        # A move must never fail for its counter: this process keeps its series to itself instead.
        warnings.warn(
            f"PROMETHEUS_MULTIPROC_DIR={_metrics_dir!r} is unusable ({exc}); metrics stay per process", stacklevel=1
        )
        del os.environ["PROMETHEUS_MULTIPROC_DIR"]

# A server's garbage collector (jassweb/asgi.py): gc.set_threshold's three numbers. The young generation's
# threshold counts allocations; the older ones, collections of the one below (a full collection also waits
# until a quarter of the old objects are new since the last one).
JASSWEB_GC_THRESHOLDS = tuple(int(n) for n in env.list("JASSWEB_GC_THRESHOLDS", default=["700", "20", "20"]))
if len(JASSWEB_GC_THRESHOLDS) != 3 or min(JASSWEB_GC_THRESHOLDS) < 1:
    raise ImproperlyConfigured("JASSWEB_GC_THRESHOLDS is three positive numbers, e.g. 700,20,20")

# The operator's view (games/admin.py): `manage.py createsuperuser`, then log in at this path.
JASSWEB_ADMIN_PATH = env.str("JASSWEB_ADMIN_PATH", default="admin/")

# -- logs ----------------------------------------------------------------------------------------------
# One JSON object per line in production (for a log collector), a plain readable line in development;
# JASSWEB_LOG_FORMAT=json|plain chooses. Game events carry their ids as fields (games/live/oplog.py).
JASSWEB_LOG_FORMAT = env.str("JASSWEB_LOG_FORMAT", default="plain" if DEBUG else "json")
if JASSWEB_LOG_FORMAT not in ("plain", "json"):
    raise RuntimeError(f"JASSWEB_LOG_FORMAT is 'plain' or 'json', got {JASSWEB_LOG_FORMAT!r}")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"},
        "json": {
            "()": "pythonjsonlogger.json.JsonFormatter",
            "format": "%(levelname)s %(name)s %(message)s %(process)d",
            "rename_fields": {"levelname": "level", "name": "logger", "process": "pid"},
            "timestamp": "time",  # ISO 8601 in UTC
        },
    },
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": JASSWEB_LOG_FORMAT}},
    "root": {"handlers": ["console"], "level": os.environ.get("JASSWEB_LOG_LEVEL", "INFO")},
    "loggers": {"httpx": {"level": "WARNING"}},  # not a line per bot request
}

# -- Limits on abuse (games/live/limits.py), counted in the cache above ---------------------------------
# "count/period" (period s, m, h or d, e.g. "20/h", "100/10s"); "0" or "off" lifts one limit,
# JASSWEB_LIMITS=0 all of them (load tests from one address only). Each is JASSWEB_LIMIT_<NAME>,
# e.g. JASSWEB_LIMIT_TABLE_PERSON=20/h.
JASSWEB_LIMITS_ON = _env_flag("JASSWEB_LIMITS", True)
_LIMIT_DEFAULTS = {
    "guest.address": "30/h",  # new guests (nicknames) from one address
    "signup.address": "10/h",  # accounts created from one address
    "login.address": "30/15m",  # log-in attempts (here and the admin's) from one address...
    "login.address_account": "10/15m",  # ...and for one user name from one address (not from all: that
    # would let anyone lock a known player out)
    "table.person": "20/h",  # tables opened by one person...
    "table.address": "60/h",  # ...and from one address
    "import.person": "30/h",  # records imported by one person...
    "import.address": "60/h",  # ...and from one address
    "message.person": "100/10s",  # websocket messages of one person, over all their connections
    "message.address": "300/10s",  # ...of visitors without a nickname, by address
    "bot_call.person": "20/10m",  # bot tests and bot invitations (outbound requests) of one person...
    "bot_call.address": "60/10m",  # ...from one address (guests cost nothing to make)...
    "bot_call.server": "600/10m",  # ...and of everyone together; a URL the address guard refuses counts nowhere
    "chat.person": "10/30s",  # chat messages of one person (games/live/chat.py)
    "analysis.person": "20/h",  # game analyses asked for on the replay page by one person...
    "analysis.address": "40/h",  # ...and from one address (each is minutes of a worker's CPU)
}
JASSWEB_LIMITS = {
    name: os.environ.get("JASSWEB_LIMIT_" + name.replace(".", "_").upper(), default)
    for name, default in _LIMIT_DEFAULTS.items()
}

# Open websockets (tables, lobby, tournaments) one person, or one address, may hold on one server process;
# past it a new socket is closed with 4429. An address is a household, a school or a café: a room's worth.
# JASSWEB_LIMITS=0 lifts these too (bench/live_tables.py opens 400 and more sockets from one address).
JASSWEB_SOCKETS_PER_PERSON = int(os.environ.get("JASSWEB_SOCKETS_PER_PERSON", "30"))
JASSWEB_SOCKETS_PER_ADDRESS = int(os.environ.get("JASSWEB_SOCKETS_PER_ADDRESS", "300"))

# Seconds an offer to play again (the same four seats) waits for every person seated to accept.
JASSWEB_REMATCH_SECONDS = int(os.environ.get("JASSWEB_REMATCH_SECONDS", "60"))
# Seconds a play-now table waits for people before bots fill its empty seats and the game starts.
JASSWEB_PLAY_NOW_WAIT_S = int(os.environ.get("JASSWEB_PLAY_NOW_WAIT_S", "30"))

# Seconds a person's request to abandon a game with other people in it waits for their agreement.
JASSWEB_ABANDON_VOTE_SECONDS = int(os.environ.get("JASSWEB_ABANDON_VOTE_SECONDS", "60"))

# Table chat (games/live/chat.py): words refused anywhere in a message (a comma-separated list, any case), and
# whether guests talk with the quick phrases only (on in production: a guest costs nothing to make).
JASSWEB_CHAT_BLOCKED_WORDS = env.list("JASSWEB_CHAT_BLOCKED_WORDS", default=[])
JASSWEB_CHAT_GUESTS_PHRASES_ONLY = _env_flag("JASSWEB_CHAT_GUESTS_PHRASES_ONLY", not DEBUG)
