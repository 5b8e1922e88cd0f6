"""What ``omniurl get URL`` runs before it imports the rest of itself: whether the command
is a batch, and the one connection a single URL's get makes first
(:func:`connect_early`, resolvers/early.py).

Kept apart from :mod:`.get` so that the connect waits for nothing it does not need: the
command's body (cli/get.py with :mod:`.emit` and :mod:`.text`, ~1 ms) and the library's
front door (:mod:`omniurl.resolvers.core`) are imported after it (docs/speed.md, *Connecting
sooner*).  Imports here are the ones the connect needs: the URL's parser, the options, the
registry, the scheme's planner and the policy.
"""

from __future__ import annotations

from omniurl import schemes

from .arguments import options_from_args

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse

    from omniurl.resolvers.options import Options


def is_batch(args: argparse.Namespace) -> bool:
    """Whether ``get`` was given a batch: several URLs, an input list, ``-Z``, an output
    folder or a manifest."""
    return bool(
        len(args.urls) != 1
        or args.input
        or args.parallel
        or args.output_dir is not None
        or args.manifest is not None
        or getattr(args, "dask", None) is not None
    )


def connect_early(args: argparse.Namespace) -> None:
    """Begin the one connection a single URL's get makes first, before the command imports
    the rest of what it runs (asyncio, the executor, the writer): the server starts while
    it does (resolvers/early.py; docs/speed.md, *Bulk transfers*).  Only once the plan
    passed the policy, only where the resolver says what it connects to first
    (``Resolver.first_connection``: no question asked before, no TLS, no proxy), only to
    an address that needs no lookup.  Anything else, or any error here, begins nothing: the
    usual path runs (and reports) as ever.  The options made are kept for ``cmd_get``
    (``args.early_options``), so that they are made once."""
    if (
        is_batch(args)
        or getattr(args, "head", False)
        or getattr(args, "continue_at", None) is not None
        or getattr(args, "user", None) is not None
        # -w: its format is read (and an unreadable @FILE refused) before anything is
        # begun, and its time_connect is the connect's own, as without this
        or getattr(args, "write_out", None) is not None
    ):
        return
    try:
        options = options_from_args(args)
    except Exception:  # (reported where cmd_get makes them again)
        return
    args.early_options = options
    try:
        from omniurl.resolvers import early, registry
        from omniurl.resolvers.base import Resolver

        given = args.urls[0]
        if "://" not in given:
            return  # (cli.text.no_scheme's question, or a URL no early resolver takes)
        url = schemes.parse(given, syntax=options.syntax)
        resolver = registry.get(url.scheme)
        if type(resolver).first_connection is Resolver.first_connection:
            return  # (it names none: nothing planned twice)
        asked = curl_manners(args, options)
        plan = resolver.plan(url, asked)
        asked.policy.check_plan(plan)
        first = resolver.first_connection(plan, asked)
        target = None if first is None else early.address_of(*first, asked)
    except Exception:  # (a URL or plan refused: the usual path says why)
        return
    if target is not None:
        early.begin(*target)


def curl_manners(args: argparse.Namespace, options: Options) -> Options:
    """The options curl's habits call for, given the command line:

    - ``-I`` follows redirects only with ``-L`` (curl's ``-I`` shows the 301 and its
      ``Location``; with ``-L`` each hop's head);
    - without ``-f``, an HTTP error reply's body is written as any content (curl prints or
      saves a 404's page), and the typed status follows; not with ``--json`` (its error
      object is the output), ``-I`` (no body) or ``-C`` (a part file takes only the
      resource's own bytes)."""
    if getattr(args, "head", False):
        if not getattr(args, "location", False):
            options = options.with_(follow=False)
        return options
    if not (args.fail or args.json or getattr(args, "continue_at", None) is not None):
        options = options.with_(error_body=True)
    return options
