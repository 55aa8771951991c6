"""The HTTP server of ``dprelease serve``: the standard library's ThreadingHTTPServer (docs/decisions.md).

One thread per connection (HTTP/1.1 keep-alive), JSON in and out, every request handed to
:meth:`dprelease.service.app.Service.handle`. The server itself guards what the endpoints cannot see:
a POST needs a Content-Length (411 otherwise; chunked bodies are refused), a body over the
configured limit is refused with 413 before it is read (and the connection closed), and a client
that stalls for ``TIMEOUT`` seconds is dropped. It binds to 127.0.0.1 unless told otherwise; put a
TLS-terminating reverse proxy in front of it to serve other hosts.
"""

from __future__ import annotations

import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from dprelease.service.app import Response, Service, json_response

#: Seconds a connection may stay silent before it is closed.
TIMEOUT = 60


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "dprelease"
    sys_version = ""
    timeout = TIMEOUT
    disable_nagle_algorithm = True  # a small answer must not wait for the client's delayed ACK (40 ms)

    def do_GET(self) -> None:  # noqa: N802 - the standard library's names
        self._dispatch("GET")

    def do_POST(self) -> None:  # noqa: N802
        self._dispatch("POST")

    def do_PUT(self) -> None:  # noqa: N802
        self._dispatch("PUT")

    def do_DELETE(self) -> None:  # noqa: N802
        self._dispatch("DELETE")

    def do_PATCH(self) -> None:  # noqa: N802
        self._dispatch("PATCH")

    def _dispatch(self, method: str) -> None:
        started = time.perf_counter()
        service: Service = self.server.service  # type: ignore[attr-defined]
        body = None
        length = self.headers.get("Content-Length")
        if self.headers.get("Transfer-Encoding"):
            self.close_connection = True
            response = json_response(411, {"error": "chunked bodies are not accepted; send a Content-Length"})
        elif length is None and method in ("POST", "PUT", "PATCH"):
            self.close_connection = True
            response = json_response(411, {"error": "a Content-Length header is required"})
        else:
            try:
                size = int(length or 0)
            except ValueError:
                size = -1
            if size < 0:
                self.close_connection = True
                response = json_response(400, {"error": "Content-Length must be a non-negative integer"})
            elif size > service.config.max_body_bytes:
                self.close_connection = True  # the body is not read
                response = json_response(413, {"error": f"the body has {size:,} bytes; at most "
                                                        f"{service.config.max_body_bytes:,} are accepted"})
            else:
                body = self.rfile.read(size) if size else b""
                if len(body) < size:  # the client closed before sending its whole body: nothing to answer
                    self.close_connection = True
                    if not self.server.quiet:  # type: ignore[attr-defined]
                        sys.stderr.write(f"{self.address_string()} {method} {self.path.split('?')[0]} connection "
                                         f"dropped: the client went away after {len(body)} of {size} body bytes\n")
                    return
                response = service.handle(method, self.path, self.headers, body)
        self._send(response)
        if not self.server.quiet:  # type: ignore[attr-defined]
            sys.stderr.write(f"{self.address_string()} {method} {self.path.split('?')[0]} {response.status} "
                             f"{1000 * (time.perf_counter() - started):.1f}ms\n")

    def _send(self, response: Response) -> None:
        self.send_response(response.status)
        self.send_header("Content-Type", response.content_type)
        self.send_header("Content-Length", str(len(response.body)))
        self.send_header("Cache-Control", "no-store")
        for name, value in response.headers.items():
            self.send_header(name, value)
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(response.body)
        self.wfile.flush()

    def log_request(self, code: object = "-", size: object = "-") -> None:
        """Requests are logged by _dispatch (with their time), not here."""

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the standard library's name
        """Errors of the HTTP layer itself (bad request lines); requests are logged by _dispatch."""
        if not self.server.quiet:  # type: ignore[attr-defined]
            sys.stderr.write(f"{self.address_string()} {format % args}\n")


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256  # the listen backlog: many clients may connect at once

    def __init__(self, service: Service, host: str, port: int, *, quiet: bool = False) -> None:
        self.service = service
        self.quiet = quiet
        super().__init__((host, port), Handler)

    def handle_error(self, request: object, client_address: tuple) -> None:
        """A client that went away (reset, closed early, or stalled past TIMEOUT) is routine: one short line (none
        with --quiet), not a traceback. Anything else is a bug and keeps the standard library's traceback."""
        exc = sys.exc_info()[1]
        if isinstance(exc, (ConnectionError, TimeoutError)):
            if not self.quiet:
                sys.stderr.write(f"{client_address[0]} connection dropped: the client went away "
                                 f"({type(exc).__name__})\n")
            return
        super().handle_error(request, client_address)
