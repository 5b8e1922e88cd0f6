"""``serve`` and ``demo``: omniurl's local protocol servers, in the foreground."""

from __future__ import annotations

import argparse
import sys

from .status import EXIT_FAILURE, EXIT_OK


def cmd_serve(args: argparse.Namespace) -> int:
    import asyncio
    from pathlib import Path

    from omniurl import testservers

    async def run() -> None:
        server = await testservers.start(args.name, Path(args.root), host=args.host, port=args.port)
        sys.stderr.write(
            f"omniurl: {args.name} server on {server.transport} {server.netloc}, serving "
            f"{args.root}; Ctrl-C stops it\n"
        )
        try:
            await asyncio.Event().wait()
        finally:
            await server.close()

    try:
        asyncio.run(run())
    except KeyboardInterrupt:
        return EXIT_OK
    except OSError as exc:  # the port is in use, the address is not ours, no such folder
        where = f"{args.host}:{args.port}" if args.port else args.host
        sys.stderr.write(f"omniurl: cannot serve {args.name} on {where}: {exc.strerror or exc}\n")
        return EXIT_FAILURE
    return EXIT_OK


def cmd_demo(args: argparse.Namespace) -> int:
    import asyncio

    from omniurl.demo import run_demo

    return asyncio.run(run_demo(only=args.only))
