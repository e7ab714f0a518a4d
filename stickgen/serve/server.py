"""Start-up and shutdown of `stickgen serve`: the extra, the port, the model, then uvicorn.

The port is taken before the model loads, so a port in use fails at once, in one sentence. uvicorn
handles Ctrl-C and SIGTERM: it stops taking connections, lets the requests in flight finish (10 s at
most), and the app's lifespan closes the studio: the waiting jobs are dropped and the results folder
is deleted. The folder is deleted as well when start-up fails.
"""

from __future__ import annotations

import contextlib
import errno
import importlib.util
import ipaddress
import socket
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

from stickgen.errors import StickgenError
from stickgen.ranges import check_range

SERVE_HINT = 'pip install "stickgen[serve]"'
NEEDED = ("fastapi", "uvicorn", "fastapi_offline")
GRACE_S = 10  # how long a shutdown waits for requests in flight


def check_installed() -> None:
    """One sentence naming the `pip install` to run when the `[serve]` extra is missing."""
    missing = [name for name in NEEDED if importlib.util.find_spec(name) is None]
    if missing:
        raise StickgenError(f"stickgen serve needs {', '.join(missing)}; install them with {SERVE_HINT}.")


def open_socket(host: str, port: int) -> socket.socket:
    """A TCP socket bound to host:port (port 0: a free one) and listening, or one sentence saying why
    not."""
    check_range("--port", port, 0, 65535)
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
    except socket.gaierror as e:
        raise StickgenError(f"Cannot listen on {host!r}: {e.strerror}.") from None
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
    except OSError as e:
        sock.close()
        if e.errno == errno.EADDRINUSE:
            raise StickgenError(f"Port {port} on {host} is in use; choose another with --port.") from None
        raise StickgenError(f"Cannot listen on {host} port {port}: {e.strerror}.") from None
    # Listening from here on, before the URL is printed: a client that connects at once waits in the
    # backlog until the server accepts, where a socket only bound refused it (a flaky CI failure).
    sock.listen()
    return sock


def is_loopback(sock: socket.socket) -> bool:
    """Whether the socket listens on this machine only (127.0.0.0/8 or ::1)."""
    return ipaddress.ip_address(sock.getsockname()[0]).is_loopback


def exposed_warning(host: str) -> str:
    """What `serve` prints when it listens on an address other machines may reach."""
    return (
        f"listening on {host}: anyone who can reach this address can use this machine's CPU and read "
        "the results; the studio has no login."
    )


def url_of(sock: socket.socket) -> str:
    """The studio's address, e.g. http://127.0.0.1:8000/."""
    host, port = sock.getsockname()[:2]
    return f"http://[{host}]:{port}/" if ":" in host else f"http://{host}:{port}/"


def serve(
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    checkpoint: str | Path | None = None,
    device: str = "auto",
    queue: int = 8,
    cors_origins: Sequence[str] = (),
    batch: int = 8,
) -> None:
    """Run the studio until Ctrl-C or SIGTERM: print its URL on stdout, diagnostics on stderr."""
    check_installed()
    check_range("--queue", queue, 0, 10_000)
    check_range("--batch", batch, 1, 64)
    import uvicorn

    from stickgen.serve.app import LOOPBACK_HOSTS, create_app
    from stickgen.serve.results import ResultStore
    from stickgen.serve.studio import Studio

    with contextlib.closing(open_socket(host, port)) as sock:
        local = is_loopback(sock)
        store = ResultStore()
        try:
            print("stickgen: loading the model and the text encoder...", file=sys.stderr, flush=True)
            studio = Studio.load(checkpoint, device=device, queue=queue, store=store, batch=batch)
            studio.start()
        except BaseException:
            store.close()
            raise
        try:
            hosts = LOOPBACK_HOSTS if local else None
            app = create_app(studio, allowed_hosts=hosts, cors_origins=cors_origins)
            for warning in studio.warnings:
                print(f"stickgen: warning: {warning}.", file=sys.stderr)
            if not local:
                print(f"stickgen: warning: {exposed_warning(host)}", file=sys.stderr)
            print(f"stickgen: {studio.name} on {studio.device}; results in {store.root} until it stops.",
                  file=sys.stderr)  # fmt: skip
            print(url_of(sock), flush=True)
            config = uvicorn.Config(app, log_level="info", timeout_graceful_shutdown=GRACE_S)
            uvicorn.Server(config).run(sockets=[sock])
        finally:
            studio.close()


@contextlib.contextmanager
def running(studio, *, host: str = "127.0.0.1", port: int = 0) -> Iterator[str]:
    """Serve a started `Studio` from a background thread (a notebook, a test); yields its URL.

    The studio stays open when the block ends: close it yourself.
    """
    import uvicorn

    from stickgen.serve.app import LOOPBACK_HOSTS, create_app

    with contextlib.closing(open_socket(host, port)) as sock:
        hosts = LOOPBACK_HOSTS if is_loopback(sock) else None
        config = uvicorn.Config(create_app(studio, allowed_hosts=hosts), log_level="warning", lifespan="off")
        server = uvicorn.Server(config)
        thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
        thread.start()
        try:
            while not server.started:
                if not thread.is_alive():
                    raise StickgenError(f"The studio could not start on {url_of(sock)}.")
                time.sleep(0.01)
            yield url_of(sock)
        finally:
            server.should_exit = True
            thread.join()
