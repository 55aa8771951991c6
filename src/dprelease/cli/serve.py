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
import secrets
import signal
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
    config.ledger.parent.mkdir(parents=True, exist_ok=True)
    lock = open(f"{config.ledger}.lock", "a")  # noqa: SIM115 - held for the process's life
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise InputError(f"another dprelease serve is using the ledger {str(config.ledger)!r}") from None
    service = Service.start(config)
    host = args.host or config.host
    port = config.port if args.port is None else args.port
    try:
        server = Server(service, host, port, quiet=args.quiet)
    except OSError as exc:
        service.close()
        raise InputError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None

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
