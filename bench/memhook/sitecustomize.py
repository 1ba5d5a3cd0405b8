"""Where a daphne process's memory goes, for bench runs: put this directory on PYTHONPATH.

With ``JASSWEB_MEMLOG=<file>`` a daphne process (only: the bench's own processes and the bot workers
are left alone) writes a line every ``JASSWEB_MEMLOG_EVERY`` seconds (2): its RSS, glibc's heap
(``mallinfo2``: bytes in arenas, in use, free but kept), CPython's allocated blocks, its threads and
SQLite's own memory. On SIGUSR1 it runs a full collection that keeps what it finds
(``gc.DEBUG_SAVEALL``) and appends the census of that cyclic garbage, by type, to ``<file>.garbage``.

    PYTHONPATH=bench/memhook JASSWEB_MEMLOG=/tmp/memlog.txt \
        .venv/bin/python bench/live_tables.py --pace bot --steps 10,100 --seconds 5 --no-ceiling

tracemalloc was tried first: with it the server ran several times slower (10 tables took 52 s to open
instead of 5) and its own bookkeeping swamped the RSS being measured.
"""

from __future__ import annotations

import collections
import ctypes
import gc
import os
import signal
import sys
import threading
import time

LOG = os.environ.get("JASSWEB_MEMLOG", "")


class _MallInfo2(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in (
            *("arena", "ordblks", "smblks", "hblks", "hblkhd"),
            *("usmblks", "fsmblks", "uordblks", "fordblks", "keepcost"),
        )
    ]


def _rss_kb() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def _log_forever() -> None:
    libc = ctypes.CDLL("libc.so.6")
    libc.mallinfo2.restype = _MallInfo2
    sqlite = ctypes.CDLL("libsqlite3.so.0")
    sqlite.sqlite3_memory_used.restype = ctypes.c_int64
    every = float(os.environ.get("JASSWEB_MEMLOG_EVERY", "2"))
    began = time.monotonic()
    with open(LOG, "a") as out:
        while True:
            heap = libc.mallinfo2()
            out.write(
                f"{time.monotonic() - began:6.1f} rss={_rss_kb() >> 10}M heap={heap.arena >> 20}M "
                f"mmap={heap.hblkhd >> 20}M inuse={heap.uordblks >> 20}M free={heap.fordblks >> 20}M "
                f"pyblocks={sys.getallocatedblocks()} threads={threading.active_count()} "
                f"sqlite={sqlite.sqlite3_memory_used() >> 20}M gc={gc.get_count()}\n"
            )
            out.flush()
            time.sleep(every)


def _garbage_census() -> None:
    gc.set_debug(gc.DEBUG_SAVEALL)
    found = gc.collect()
    gc.set_debug(0)
    kinds = collections.Counter(f"{type(o).__module__}.{type(o).__qualname__}" for o in gc.garbage)
    gc.garbage.clear()
    with open(LOG + ".garbage", "a") as out:
        out.write(f"=== {found} unreachable objects\n")
        out.writelines(f"{count:8d} {kind}\n" for kind, count in kinds.most_common(40))


if LOG and "daphne" in " ".join(getattr(sys, "orig_argv", [])):
    threading.Thread(target=_log_forever, name="memlog", daemon=True).start()
    signal.signal(signal.SIGUSR1, lambda *_: threading.Thread(target=_garbage_census, name="memlog-gc").start())
