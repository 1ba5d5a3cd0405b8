"""A step of scripts/production-smoke.sh: a forged X-Forwarded-For through nginx gets past no limit.

A visitor who writes any address they like into ``X-Forwarded-For`` is still
counted by the address nginx saw. The visitor connects from a loopback address
of their own (``--source``, e.g. 127.0.0.2: nginx sees that one), so the game the
smoke run plays from 127.0.0.1 keeps its own counts. Each attempt is a new
browser session with another forged header; the people made are counted in the
database. Guests, sign-ups and log-ins, each up to its limit and past it: no
more are made than the limit allows, and the refusals say so. Another address
(``--other``) still makes a guest. Prints one line of figures and exits 0, or
raises ``SystemExit`` with what failed.
"""

from __future__ import annotations

import argparse
import os
import re

import httpx
import psycopg

# Forged headers of every kind: one address, a chain, IPv6, garbage, loopback, the other visitor's.
FORGERIES = ("10.{n}.0.1", "192.0.2.{n}, 198.51.100.{n}", "2001:db8:{n}::1", "unknown-{n}", "127.0.{n}.1")


def check(condition: object, message: str) -> None:
    if not condition:
        raise SystemExit(f"smoke: FAILED: {message}")


def limit_of(name: str, default: str) -> int:
    """The count of a limit as the servers were started with it (``JASSWEB_LIMIT_GUEST_ADDRESS=30/h``)."""
    rate = os.environ.get(f"JASSWEB_LIMIT_{name}", default)
    found = re.match(r"^\s*(\d+)\s*/", rate)
    check(found, f"JASSWEB_LIMIT_{name}={rate!r} is no rate")
    assert found is not None
    return int(found[1])


class Visitor:
    """One new browser session from ``source``, sending a forged ``X-Forwarded-For`` on every request."""

    def __init__(self, base: str, ca: str, source: str, forged: str | None) -> None:
        headers = {"Origin": base} | ({"X-Forwarded-For": forged} if forged else {})
        transport = httpx.HTTPTransport(verify=ca, local_address=source)
        self.http = httpx.Client(base_url=base, transport=transport, headers=headers, timeout=20)
        page = self.http.get("/accounts/login/")
        check(page.status_code == 200, f"the log-in page answers 200 through nginx, got {page.status_code}")

    def post(self, path: str, forged: str | None = None, **fields: str) -> httpx.Response:
        """Post a form; ``forged``: another forged header for this request only."""
        token = next(c.value for c in self.http.cookies.jar if c.name == "csrftoken")
        headers = {"X-Forwarded-For": forged} if forged else None
        return self.http.post(path, data={**fields, "csrfmiddlewaretoken": token}, headers=headers)

    def close(self) -> None:
        self.http.close()


def count(database: str, sql: str, pattern: str) -> int:
    with psycopg.connect(database) as db:
        row = db.execute(sql, (pattern,)).fetchone()
    assert row is not None
    return int(row[0])


def attempts(args: argparse.Namespace, tries: int, path: str, fields: dict[str, str]) -> tuple[int, str]:
    """Post ``fields`` (``{n}`` filled in) ``tries`` times, each a new session with another forged header.

    Returns how many were refused with 429 and the last refusal's text.
    """
    refused, message = 0, ""
    for n in range(tries):
        visitor = Visitor(args.base, args.ca, args.source, FORGERIES[n % len(FORGERIES)].format(n=n + 1))
        response = visitor.post(path, **{k: v.format(n=n) for k, v in fields.items()})
        if response.status_code == 429:
            refused += 1
            found = re.search(r"Too many [^<.]*\.", response.text)
            message = found[0] if found else response.text[:200]
        else:
            check(response.status_code in (200, 302), f"{path}: {response.status_code} {response.text[:200]}")
        visitor.close()
    return refused, message


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", required=True, help="https://127.0.0.1:PORT (nginx)")
    parser.add_argument("--ca", required=True, help="nginx's certificate")
    parser.add_argument("--database", required=True, help="the servers' PostgreSQL database")
    parser.add_argument("--source", default="127.0.0.2", help="the forging visitor's own address")
    parser.add_argument("--other", default="127.0.0.3", help="another visitor's address")
    args = parser.parse_args()
    figures = []

    # Guests: the limit, and a few more.
    guests = limit_of("GUEST_ADDRESS", "30/h")
    tries = guests + 5
    first = None  # the first guest's session, for tables and imports below
    for n in range(tries):
        visitor = Visitor(args.base, args.ca, args.source, FORGERIES[n % len(FORGERIES)].format(n=n + 1))
        check(visitor.post("/guest/", nickname=f"Forged {n}").status_code == 302, "the guest form redirects")
        if first is None:
            first = visitor
        else:
            visitor.close()
    made = count(args.database, "SELECT count(*) FROM games_player WHERE name LIKE %s", "Forged %")
    check(made == guests, f"{made} guests made with forged headers from one address; the limit is {guests}")
    figures.append(f"guests {made} of {tries} made (limit {guests})")
    assert first is not None

    # Tables and imports by that guest, each request with another forged header: the address's limit holds
    # (the person's own limits are higher). An import is counted before its record is read, so an empty
    # record ("{}", refused with 400) is an attempt like any other.
    forged = [FORGERIES[n % len(FORGERIES)].format(n=n + 50) for n in range(100)]
    limit = limit_of("TABLE_ADDRESS", "60/h")
    tries = limit + 2
    table = {"name": "Forged table", "mode": "standard", "target": "1000", "seat": "2"}
    answers = [first.post("/tables/new/", forged[n], **table) for n in range(tries)]
    made = count(args.database, "SELECT count(*) FROM games_table WHERE name LIKE %s", "Forged table%")
    to_lobby = sum(1 for a in answers if a.status_code == 302 and a.headers["location"] == "/")
    check(made == limit and to_lobby == tries - limit, f"tables: {made} made, {to_lobby} refused of {tries}")
    check("from one address" in first.http.get("/").text, "the table refusal says why (on the lobby)")
    figures.append(f"tables {made} of {tries} (limit {limit})")

    limit = limit_of("IMPORT_ADDRESS", "60/h")
    tries = limit + 2
    answers = [first.post("/games/import/", forged[n], text="{}") for n in range(tries)]
    refused = sum(1 for a in answers if a.status_code == 429)
    check(refused == tries - limit, f"imports: {tries - refused} of {tries} let through; the limit is {limit}")
    check("from one address" in answers[-1].text, "the import refusal says why")
    figures.append(f"imports {tries - refused} of {tries} (limit {limit})")
    first.close()

    # Sign-ups (the limit is low in the smoke run: each one hashes a password).
    signups = limit_of("SIGNUP_ADDRESS", "10/h")
    password = "a-long-enough-pw-42"
    tries = signups + 2
    fields = {"username": "forged{n}", "password1": password, "password2": password}
    refused, message = attempts(args, tries, "/accounts/signup/", fields)
    made = count(args.database, "SELECT count(*) FROM auth_user WHERE username LIKE %s", "forged%")
    check(made == signups and refused == tries - signups, f"{made} sign-ups made, {refused} refused of {tries}")
    check("from one address" in message, f"the sign-up refusal says why: {message!r}")
    figures.append(f"sign-ups {made} of {tries} (limit {signups})")

    # Log-ins, with the right password: the address's attempts, however forged, end at its limit.
    logins = limit_of("LOGIN_ADDRESS", "30/15m")
    tries = logins + 2
    refused, message = attempts(args, tries, "/accounts/login/", {"username": "forged0", "password": password})
    check(refused == tries - logins, f"{tries - refused} log-ins of {tries} with forged headers; the limit is {logins}")
    check("from one address" in message, f"the log-in refusal says why: {message!r}")
    figures.append(f"log-ins {tries - refused} of {tries} (limit {logins})")

    # Someone at another address is not affected.
    other = Visitor(args.base, args.ca, args.other, None)
    check(other.post("/guest/", nickname="Other address").status_code == 302, "the guest form redirects")
    other.close()
    check(
        count(args.database, "SELECT count(*) FROM games_player WHERE name = %s", "Other address") == 1,
        "a guest from another address is made",
    )
    print(f"smoke: forged X-Forwarded-For through nginx: {', '.join(figures)}; another address still makes a guest")


if __name__ == "__main__":
    main()
