"""Errors raised while planning, checking and carrying out a URL's access action.

They derive from :class:`schemes.errors.OmniurlError`, the one root of the hierarchy::

    OmniurlError
    ├── URLError (ValueError)            -- schemes: the text is not a valid URL
    └── ResolveError
        ├── UnsupportedScheme            -- no resolver is registered for the scheme
        ├── PlanError                    -- the URL is valid but names no action we can plan
        │   ├── ConfigurationError       -- something the URL needs is not configured
        │   ├── InputNeeded              -- the URL needs input (a search query, a form)
        │   └── ResumeUnsupported        -- -C asked of a protocol that cannot start midway
        ├── PolicyError                  -- refused by the safety policy; nothing was sent
        │   ├── PortRefused
        │   ├── DelimiterRefused
        │   ├── AddressRefused
        │   ├── SchemeRefused
        │   ├── RedirectRefused
        │   ├── HeaderRefused            -- a mail header field a URL may not set (mailto)
        │   └── MailAddressRefused       -- not an RFC 5322 addr-spec (mailto)
        ├── TransportError               -- the network failed us
        │   ├── ConnectError
        │   ├── ResolveTimeout
        │   │   ├── DeadlineExceeded     -- the whole transfer outlasted --max-time
        │   │   ├── TooSlow              -- below --speed-limit for --speed-time
        │   │   └── PoolTimeout          -- no connection slot free within pool_timeout
        │   └── ConnectionClosed         -- closed early: the reply is truncated
        ├── NotFollowed                  -- a redirect or referral, with follow=False
        ├── ProtocolError                -- the server spoke, but not as the protocol says
        │   ├── TooManyRedirects         -- a redirect or referral loop
        │   │   └── RedirectLoop         -- the bound reached going round: the same request again
        │   └── LimitExceeded            -- a line or reply larger than our bound
        ├── ReplyError                   -- the server refused (FTP 550, HTTP 404, Gopher 3)
        │   ├── NotFound
        │   └── StatusError              -- HTTP, with .status
        ├── AuthError                    -- credentials missing or refused
        ├── ResumeMismatch               -- -C: the part kept is longer than the file now
        └── ClientClosed (RuntimeError)  -- a client (or its pools) used after closing

Every error carries ``component`` (the URL part to blame where there is one).
"""

from __future__ import annotations

from collections.abc import Iterable

from omniurl.schemes.errors import OmniurlError
from omniurl.schemes.errors import suppress as suppress  # (its home: the layers' lowest)
from omniurl.schemes.secrets import mask_passwords


class ResolveError(OmniurlError):
    """Root of every error raised after a URL parsed.  ``hops``: the head of each redirect
    followed before the failing request (set by the core; what ``-I -L`` shows first)."""

    hops: tuple[tuple[str, ...], ...] = ()


class NotFollowed(ResolveError):
    """A redirect or referral that ``Options(follow=False)`` left unfollowed: ``target`` is
    where it leads, ``reason`` why, ``replies`` what the server said."""

    def __init__(
        self, message: str, *, target: object, reason: str, replies: list[str] | None = None
    ) -> None:
        super().__init__(message, component="location")
        self.target = target
        self.reason = reason
        self.replies = replies or []


class UnsupportedScheme(ResolveError):
    """No resolver is registered for this scheme."""


class PlanError(ResolveError):
    """The URL is valid, but it names no action omniurl can plan."""


class ConfigurationError(PlanError):
    """The action needs configuration that is absent (e.g. no NNTP server for ``news:``)."""


class InputNeeded(PlanError):
    """The URL needs input before it can be resolved (a search query, a form's fields).

    ``prompt`` says what is needed; the CLI asks for it on a terminal, the library calls the
    ``ask`` callback of :class:`resolvers.options.Options` when one is given.
    """

    def __init__(self, message: str, *, component: str | None = None, prompt: str = "") -> None:
        super().__init__(message, component=component)
        self.prompt = prompt or message


class ResumeUnsupported(PlanError):
    """A resumed transfer (``-C``) was asked of a URL whose protocol cannot start at an
    offset (Gopher, NNTP, WAIS…) or of a listing; nothing was sent."""


class ResumeMismatch(ResolveError):
    """``-C`` could not continue: the part kept is longer than the file the server sends
    now (it changed since the part was saved), and the transfer cannot fetch it again from
    byte 0 in the same conversation (FTP ``TYPE A``: the whole file has gone by when that is
    known).  The conversation took place (so not a :class:`PlanError`: something was sent);
    the part is kept.  Exit status 36, curl's ``CURLE_BAD_DOWNLOAD_RESUME`` (curl 7.88 ``-C -``
    of an FTP file shorter than the local one: "(36) Offset (43) was beyond file size
    (18)")."""

    #: The part's length (the offset asked) and the file's length as the transfer gave it.
    offset: int = 0
    size: int = 0


class PolicyError(ResolveError):
    """Refused by the safety policy — before the first byte was sent, unless ``sent`` says
    what went out first (an FTP session before its data port was refused, the requests
    before a redirect was): a refusal never claims "nothing was sent" after bytes went."""

    #: What was sent before the refusal, as shown (passwords masked); empty: nothing.
    sent: tuple[str, ...] = ()

    def after_sending(self, sent: Iterable[str]) -> PolicyError:
        """This refusal, saying what had been sent before it (its message too)."""
        self.sent = (*self.sent, *(line for line in sent if line not in self.sent))
        if self.sent:
            head = self.message.split(_AFTER)[0].removesuffix("; nothing was sent")
            self.message = f"{head}{_AFTER}{mask_passwords(', '.join(self.sent))})"
            self.args = (self.message,)
        return self


_AFTER = " (refused after sending: "


class PortRefused(PolicyError):
    """An explicit port the policy does not allow (§6: ports in the reserved space, bad ports)."""

    def __init__(self, message: str, *, port: int, reason: str) -> None:
        super().__init__(message, component="port")
        self.port = port
        self.reason = reason


class DelimiterRefused(PolicyError):
    """A decoded value bound for the wire carries a protocol delimiter (CR, LF, NUL, TAB, IAC)."""

    def __init__(self, message: str, *, component: str, octet: int) -> None:
        super().__init__(message, component=component)
        self.octet = octet


class AddressRefused(PolicyError):
    """The host resolves to an address the policy forbids (loopback, private, link-local)."""


class SchemeRefused(PolicyError):
    """The policy forbids this scheme (e.g. ``file:`` under the strict preset)."""


class RedirectRefused(PolicyError):
    """A redirect or referral to a URL the policy forbids (to ``file:``, another scheme...)."""


class HeaderRefused(PolicyError):
    """A ``mailto:`` header field outside the allow-list (RFC 6068 §6: a URL must not set
    ``From``, ``Bcc``, ``Received``...); ``field`` is its name as the URL wrote it."""

    def __init__(self, message: str, *, component: str, field: str) -> None:
        super().__init__(message, component=component)
        self.field = field


class MailAddressRefused(PolicyError):
    """An e-mail address that is not an RFC 5322 §3.4.1 ``addr-spec`` (no display names, no
    groups, no comments: what a ``mailto:`` URL may carry, RFC 6068 §2)."""


class TransportError(ResolveError):
    """The network failed: could not connect, timed out, or the connection closed early."""


class ConnectError(TransportError):
    """Could not open the connection (refused, unreachable, name not found)."""


class ResolveTimeout(TransportError):
    """A connect or a read took longer than its timeout."""


class DeadlineExceeded(ResolveTimeout):
    """The whole transfer took longer than ``--max-time`` (``Options.max_time``)."""


class TooSlow(ResolveTimeout):
    """The transfer stayed below ``--speed-limit`` bytes/s for ``--speed-time`` seconds (or
    sent no content within ``--speed-time``)."""


class PoolTimeout(ResolveTimeout):
    """No connection (or per-host slot) of a client became free within its ``pool_timeout``
    (httpx's ``PoolTimeout``): the queue was long, nothing was sent."""


class ConnectionClosed(TransportError):
    """The server closed the connection before the reply was complete."""


class ProtocolError(ResolveError):
    """The server's reply does not follow the protocol."""


class TooManyRedirects(ProtocolError):
    """More redirects or referrals than ``Policy.max_redirects``: requests were sent (a
    redirect loop is the servers' fault, exit 6 — not a refusal before sending)."""


class RedirectLoop(TooManyRedirects):
    """The redirect bound reached by a chain that went round: a hop asked again for a
    request (the same bytes to the same server) the chain had sent already.  The repeats
    are followed to the bound, as curl follows them to its ``--max-redirs`` (a repeat alone
    proves no loop: a server may answer differently later, RFC 9110 §15.4 speaks of
    *infinite* loops); the error then names the first repeat."""


class LimitExceeded(ProtocolError):
    """A line or reply exceeded omniurl's bound (no unbounded reads, ever)."""


class ContentDecodingError(ProtocolError):
    """A body's content coding (``--compressed``: gzip, deflate) did not decode to its end:
    the stream was cut, a check value (gzip's CRC-32 or ISIZE, zlib's Adler-32) was wrong,
    or bytes followed its end (RFC 9110 §8.4.1: the coding is the content, all of it)."""


class ReplyError(ResolveError):
    """The server answered with a refusal; ``reply`` holds its words, ``code`` its code."""

    def __init__(
        self,
        message: str,
        *,
        component: str | None = None,
        code: str | int | None = None,
        reply: str = "",
    ) -> None:
        super().__init__(message, component=component)
        self.code = code
        self.reply = reply


class NotFound(ReplyError):
    """The server says the resource does not exist."""


class StatusError(ReplyError):
    """An HTTP response with an error status; ``status`` is the number, ``replies`` the
    status line and header fields as received (what ``-I`` prints for it)."""

    def __init__(
        self, message: str, *, status: int, reply: str = "", replies: tuple[str, ...] = ()
    ) -> None:
        super().__init__(message, component="path", code=status, reply=reply)
        self.status = status
        self.replies = replies


class AuthError(ResolveError):
    """Credentials are missing (and none could be asked for) or the server refused them;
    ``status`` is the HTTP status (401, 407) when an HTTP server said so, ``replies`` its
    status line and header fields."""

    def __init__(
        self,
        message: str,
        *,
        component: str | None = None,
        status: int | None = None,
        replies: tuple[str, ...] = (),
    ) -> None:
        super().__init__(message, component=component)
        self.status = status
        self.replies = replies


class ClientClosed(ResolveError, RuntimeError):
    """An ``omniurl.AsyncClient``/``Client`` — or a resolve through its shared connections —
    used after the client was closed.  A ``RuntimeError`` too, as httpx's is."""


#: Every error class above (tests/test_spec.py holds it complete, and equal to the list
#: ``omniurl`` exports).


__all__ = [
    "AddressRefused",
    "AuthError",
    "ClientClosed",
    "ConfigurationError",
    "ConnectError",
    "ConnectionClosed",
    "ContentDecodingError",
    "DeadlineExceeded",
    "DelimiterRefused",
    "HeaderRefused",
    "InputNeeded",
    "LimitExceeded",
    "MailAddressRefused",
    "NotFollowed",
    "NotFound",
    "PlanError",
    "PolicyError",
    "PoolTimeout",
    "PortRefused",
    "ProtocolError",
    "RedirectLoop",
    "RedirectRefused",
    "ReplyError",
    "ResolveError",
    "ResolveTimeout",
    "ResumeMismatch",
    "ResumeUnsupported",
    "SchemeRefused",
    "StatusError",
    "TooManyRedirects",
    "TooSlow",
    "TransportError",
    "UnsupportedScheme",
]
