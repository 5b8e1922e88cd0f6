"""``serve`` and ``demo``: omniurl's local protocol servers, in the foreground."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys

from omniurl.exitstatus import EXIT_FAILURE, EXIT_OK, EXIT_REFUSED


def cmd_serve(args: argparse.Namespace) -> int:
    import asyncio
    from pathlib import Path

    if args.name == "gateway":
        return _serve_gateway(args)

    from omniurl import testservers

    from .signals import run_command

    async def run() -> int:
        extra: dict[str, object] = {
            k: v for k in ("mode", "count", "interval") if (v := getattr(args, k, None)) is not None
        }
        trust = ""
        ca_file = None
        if getattr(args, "tls", False):
            context, ca_file = _throwaway_tls(args.name)
            extra["tls"] = context
            trust = f"; trust its certificate with --cacert {ca_file}"
        try:
            server = await testservers.start(
                args.name, Path(args.root), host=args.host, port=args.port, **extra
            )
            declared = server.info.get("declared")  # a plugin's own: --root is its to use
            serving = f" ({declared})" if declared else f", serving {args.root}"
            sys.stderr.write(
                f"omniurl: {args.name} server on {server.transport} {server.netloc}{serving}"
                f"{trust}; Ctrl-C stops it\n"
            )
            note = server.info.get("note")
            if isinstance(note, str):  # (what a client needs to know: its own certificates)
                sys.stderr.write(f"omniurl: {note}\n")
            try:
                await asyncio.Event().wait()
            finally:
                await server.close()  # (a server's throw-away keys and certificates go)
        finally:
            if ca_file is not None:
                with contextlib.suppress(OSError):
                    os.unlink(ca_file)
        return EXIT_OK

    try:
        # SIGTERM and SIGHUP end the server as Ctrl-C does, its close() run (status 143/129)
        return run_command(run())
    except KeyboardInterrupt:
        return EXIT_OK
    except LookupError as exc:  # no such server or scheme; a scheme without a test server
        sys.stderr.write(f"omniurl serve: {exc.args[0] if exc.args else exc}\n")
        return EXIT_REFUSED
    except (ValueError, TypeError) as exc:  # an unknown --mode, an option this server lacks
        sys.stderr.write(f"omniurl: cannot serve {args.name}: {exc}\n")
        return EXIT_FAILURE
    except OSError as exc:  # the port is in use, the address is not ours, no such folder
        where = f"{args.host}:{args.port}" if args.port else args.host
        sys.stderr.write(f"omniurl: cannot serve {args.name} on {where}: {exc.strerror or exc}\n")
        return EXIT_FAILURE
    return EXIT_OK


def cmd_browse(args: argparse.Namespace) -> int:
    """``browse [URL]``: the terminal browser (Textual, imported only here)."""
    try:
        from omniurl.browse.app import run
    except ImportError as exc:
        sys.stderr.write(
            f"omniurl: the browser needs its extra: pip install 'omniurl[browse]' ({exc})\n"
        )
        return EXIT_FAILURE
    return run(args.url, smtp=args.smtp)


def _serve_gateway(args: argparse.Namespace) -> int:
    """``serve gateway``: uvicorn in the foreground (port 8080 unless --port)."""
    try:
        from omniurl.gateway import GatewayConfig
        from omniurl.gateway.app import run
    except ImportError as exc:
        sys.stderr.write(
            f"omniurl: the gateway needs its extra: pip install 'omniurl[gateway]' "
            f"({exc.name} is missing)\n"
        )
        return EXIT_FAILURE
    config = GatewayConfig(
        allow_hosts=frozenset(args.allow_host),
        allow_ports=frozenset(args.allow_port),
        smtp=args.smtp,
        max_concurrent=args.max_concurrent,
        max_per_client=args.max_per_client,
        head_timeout=getattr(args, "head_timeout", 10.0),
        max_connections_per_client=getattr(args, "max_connections_per_client", 32),
    )
    port = args.port or 8080
    import socket

    try:
        # Bound here first: a busy port is one line, before anything is announced.
        family = socket.AF_INET6 if ":" in args.host else socket.AF_INET
        sock = socket.create_server((args.host.strip("[]"), port), family=family)
    except OSError as exc:
        sys.stderr.write(
            f"omniurl: cannot serve the gateway on {_authority(args.host, port)}: "
            f"{os.strerror(exc.errno) if exc.errno else exc}\n"
        )
        return EXIT_FAILURE
    port = sock.getsockname()[1]
    sys.stderr.write(
        f"omniurl: gateway on http://{_authority(args.host, port)}/ (strict policy"
        + (
            f"; allowed hosts: {', '.join(sorted(config.allow_hosts))}"
            if config.allow_hosts
            else ""
        )
        + "); Ctrl-C stops it\n"
    )
    try:
        run(config, args.host, port, sock=sock)
    except KeyboardInterrupt:
        return EXIT_OK
    except (OSError, SystemExit) as exc:
        sys.stderr.write(
            f"omniurl: cannot serve the gateway on {_authority(args.host, port)}: {exc}\n"
        )
        return EXIT_FAILURE
    finally:
        sock.close()
    return EXIT_OK


def _authority(host: str, port: int) -> str:
    from omniurl.resolvers.net import authority

    return authority(host, port)


def _throwaway_tls(name: str) -> tuple[object, str]:
    """A certificate for 127.0.0.1 from a throw-away CA (trustme), and the CA's file."""
    import ssl
    import tempfile

    from omniurl.testservers.catalog import TLS_SERVERS

    if name not in TLS_SERVERS:
        raise ValueError(f"--tls: the {name} server has no TLS mode ({', '.join(TLS_SERVERS)} do)")
    try:
        import trustme
    except ImportError:
        raise ValueError("--tls needs trustme (pip install 'omniurl[test]')") from None
    ca = trustme.CA()
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("127.0.0.1", "localhost").configure_cert(context)
    with tempfile.NamedTemporaryFile(prefix="omniurl-ca-", suffix=".pem", delete=False) as f:
        path = f.name
    ca.cert_pem.write_to_path(path)
    return context, path


def cmd_demo(args: argparse.Namespace) -> int:
    import asyncio

    from omniurl.demo import run_demo

    return asyncio.run(run_demo(only=args.only))
