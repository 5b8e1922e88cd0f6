"""The ``x-finger:`` scheme's spec: the one record omniurl reads about it.

The entry point ``[project.entry-points."omniurl.specs"] x-finger =
"omniurl_xfinger.spec:SPEC"`` is the whole integration.  Heavy parts are named as
``"module:attr"`` strings, imported only when a URL of the scheme is met: this module is
imported by every ``omniurl get --help`` (for the flags), so it must stay cheap.
"""

from __future__ import annotations

from dataclasses import dataclass

from omniurl.resolvers.spec import SchemeSpec, flag


@dataclass(frozen=True)
class FingerOptions:
    """What an ``x-finger:`` URL cannot say.  Every field has a default; a field made with
    ``flag(...)`` is also a command-line flag of ``omniurl plan``/``get``."""

    #: RFC 1288's ``/W`` on every query, as if each URL ended in ``;w``.
    verbose: bool = flag(
        "--finger-verbose",
        default=False,
        action="store_true",
        help="x-finger: ask every Finger server for the verbose answer (/W)",
    )


SPEC = SchemeSpec(
    names=("x-finger",),
    title="x-finger",
    url_class="omniurl_xfinger.url:FingerURL",
    resolver="omniurl_xfinger.resolver:FingerResolver",
    options=FingerOptions,
    presentation="omniurl_xfinger.present:FingerPresentation",
    default_port=79,
    # fsspec.open("x-finger://…") and urllib's urlopen (install()) serve it: the defaults.
    fsspec=True,
    urllib=True,
    # ``omniurl serve x-finger`` starts it: an async callable (host=, port=, root=).
    test_server="omniurl_xfinger.server:start",
    # The typed result its resources carry (resource.result_as(FingerResult)).
    result="omniurl_xfinger.resolver:FingerResult",
)

__all__ = ["SPEC", "FingerOptions"]
