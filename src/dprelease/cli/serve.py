"""``dprelease serve``: the HTTP query service over registered tables (docs/service.md).

    dprelease serve CONFIG.json [--host 127.0.0.1] [--port 8750] [--quiet]
    dprelease serve --new-token        # a fresh analyst token and the hash to put in the configuration

Start-up reads every table, opens the ledger (refusing a second server on the same ledger), checks
it against the configuration and recovers what a crash left half-done, then prints one line
``dprelease serve: listening on http://HOST:PORT`` and serves until SIGTERM or Ctrl-C. A mistake in
the configuration, a table or the ledger exits with code 2 and one line on stderr, before anything
is served.
"""

from __future__ import annotations

import argparse
import hashlib
import ipaddress
import secrets
import signal
import sys
import threading
from pathlib import Path

from dprelease.cli.common import integer
from dprelease.errors import InputError


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "serve", help="serve online MW sessions and synthetic releases over HTTP, with a crash-proof budget ledger",
        description="An HTTP service over the tables of CONFIG: analysts (bearer tokens) open online MW sessions, "
                    "ask counting and marginal queries, and request MWEM synthetic releases, all paid from one "
                    "budget per table kept in a SQLite ledger that is committed before any data is read. Binds to "
                    "127.0.0.1 unless --host says otherwise. See docs/service.md.")
    parser.add_argument("config", nargs="?", type=Path, help="the service's configuration (JSON; its format is in docs/service.md)")
    parser.add_argument("--host", help="address to bind (default: the configuration's, else 127.0.0.1)")
    parser.add_argument("--port", type=integer("--port"), help="port (default: the configuration's, else 8750; "
                                                              "0 picks a free one)")
    parser.add_argument("--quiet", action="store_true", help="do not log each request on stderr")
    parser.add_argument("--new-token", action="store_true",
                        help="print a new random analyst token and its SHA-256 (for the configuration), then exit")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.new_token:
        token = secrets.token_urlsafe(32)
        print(f"token:        {token}\ntoken_sha256: {hashlib.sha256(token.encode()).hexdigest()}")
        return 0
    if args.config is None:
        raise InputError("give the configuration file (dprelease serve CONFIG.json), or --new-token")
    if args.port is not None and not 0 <= args.port <= 65535:
        raise InputError(f"--port must be an integer in [0, 65535], got {args.port}")
    import fcntl  # noqa: PLC0415 - POSIX only, and only when serving

    from dprelease.service.app import Service  # noqa: PLC0415 - keeps `dprelease --help` fast
    from dprelease.service.config import load_config  # noqa: PLC0415
    from dprelease.service.server import Server  # noqa: PLC0415

    config = load_config(args.config)
    tables = Service.load_tables(config)  # every table is read and checked before any file is written
    host = args.host or config.host
    port = config.port if args.port is None else args.port
    # A refused start writes nothing: what this start creates (folders, the lock, the ledger) is removed again.
    ledger = config.ledger
    created = [p for p in (ledger.parent, *ledger.parent.parents) if not p.exists()]
    files = [Path(f"{ledger}{suffix}") for suffix in (".lock", "", "-wal", "-shm", "-journal")]
    created += [p for p in files if not p.exists()]
    lock = service = None
    held = False
    try:
        ledger.parent.mkdir(parents=True, exist_ok=True)
        lock = open(f"{ledger}.lock", "a")  # noqa: SIM115 - held for the process's life
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            held = True
        except BlockingIOError:
            raise InputError(f"another dprelease serve is using the ledger {str(ledger)!r}") from None
        service = Service.start(config, tables)
        try:
            server = Server(service, host, port, quiet=args.quiet)
        except OSError as exc:
            raise InputError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    except BaseException:
        if service is not None:
            service.close()
        if held:  # never touch the files of the server that holds the lock
            _remove_created(created)
        if lock is not None:
            lock.close()
        raise
    if not _is_loopback(host):
        print(f"dprelease serve: warning: {host} is not a loopback address; the bearer tokens and the answers travel "
              "in clear text: put a TLS-terminating reverse proxy in front (docs/service.md)", file=sys.stderr,
              flush=True)

    def stop(signum: int, frame: object) -> None:
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    bound_host, bound_port = server.server_address[:2]
    recovered = service.recovered
    note = "" if not any(recovered.values()) else (
        f" (recovered: {recovered['lost_charges']} charge(s) and {recovered['lost_queries']} query request(s) left "
        "half-done by a crash marked lost, never refunded)")
    print(f"dprelease serve: listening on http://{bound_host}:{bound_port} (tables: {', '.join(config.tables)}; "
          f"ledger {config.ledger}){note}", flush=True)
    try:
        server.serve_forever(poll_interval=0.2)
    finally:
        server.server_close()
        service.close()
        lock.close()
    print("dprelease serve: stopped", flush=True)
    return 0


def _is_loopback(host: str) -> bool:
    """Whether HOST is a loopback address (127.0.0.0/8, ::1) or ``localhost``; anything else reaches a network."""
    if host.lower() in ("localhost", "localhost.", "ip6-localhost"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a host name: it may resolve to any interface


def _remove_created(created: list[Path]) -> None:
    """Remove the files and then the folders this (refused) start created, deepest first, while still holding the
    lock (so that no other server can have taken it). Files that existed before are never touched."""
    for path in created:
        if path.is_file():
            path.unlink(missing_ok=True)
    for path in sorted((p for p in created if p.is_dir()), key=lambda p: len(p.parts), reverse=True):
        try:
            path.rmdir()
        except OSError:
            pass  # not empty: something else wrote there
