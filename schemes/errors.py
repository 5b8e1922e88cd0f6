"""The one exception hierarchy of omniurl.

Every error omniurl raises on purpose derives from :class:`OmniurlError`, so a caller can catch
everything at one level, or one kind of failure at a lower one (the httpx pattern:
``HTTPError`` -> ``TransportError`` -> ``ConnectError``).  Parsing errors live here because
``schemes`` is the package everything else depends on; the resolver errors in
``resolvers.errors`` derive from the same root.

Each error names the *component* of the URL that broke it (``"host"``, ``"port"``,
``"cwd[1]"``, ``"selector"``, ...) and, for parse errors, the character *offset* into the text
where the problem starts, so a person can see exactly what to fix.
"""

from __future__ import annotations

from .secrets import mask_passwords


class OmniurlError(Exception):
    """Root of every error omniurl raises on purpose."""

    def __init__(self, message: str, *, component: str | None = None) -> None:
        # A message that quotes a URL never carries its password (schemes.secrets).
        message = mask_passwords(message)
        super().__init__(message)
        self.message = message
        self.component = component

    def __reduce__(self) -> tuple[object, ...]:
        """Pickled as made, whatever its ``__init__`` asks (``StatusError``'s ``status``,
        ``PortRefused``'s ``port``…: keyword-only, so the default — ``cls(*args)`` — was a
        TypeError on unpickling): a Dask worker's 404 reached the client as "the cluster did
        not run the transfer (TypeError …)" and a traceback.  The message (its password
        already masked) and every attribute come back as they were."""
        return (_rebuilt, (type(self), self.args), self.__dict__)

    def to_json(self) -> dict[str, object]:
        """The ``{"type", "message", "component", "offset"}`` object of the CLI contract."""
        return {
            "type": type(self).__name__,
            "message": self.message,
            "component": self.component,
            "offset": getattr(self, "offset", None),
        }


def _rebuilt(cls: type[OmniurlError], args: tuple[object, ...]) -> OmniurlError:
    """An error of ``cls`` with ``args``, its ``__init__`` not called (its attributes are
    set from the pickled state next: :meth:`OmniurlError.__reduce__`)."""
    error = cls.__new__(cls, *args)
    error.args = args  # (OSError's __new__ leaves them to an __init__ of its own)
    return error


class URLError(OmniurlError, ValueError):
    """A text is not a valid URL (or not a valid URL of its scheme).

    ``component`` names the part that broke (``"scheme"``, ``"host"``, ``"port"``, ``"path"``,
    ...); ``offset`` is the index into the original text where the offending part starts
    (``None`` where no single position is to blame).
    """

    def __init__(
        self, message: str, *, component: str | None = None, offset: int | None = None
    ) -> None:
        super().__init__(message, component=component)
        self.offset = offset

    def __str__(self) -> str:
        where = []
        if self.component is not None:
            where.append(self.component)
        if self.offset is not None:
            where.append(f"offset {self.offset}")
        return f"{self.message} ({', '.join(where)})" if where else self.message


class SchemeError(URLError):
    """The scheme name is missing or malformed (§2.1: ``1*[lowalpha | digit | "+-."]``)."""


class EncodingError(URLError):
    """A ``%`` escape is malformed, or a character must be encoded but is not (§2.2)."""


class AuthorityError(URLError):
    """The ``//user:password@host:port`` part is malformed (§3.1)."""


class HostError(AuthorityError):
    """The host is neither a hostname per §5's BNF, a dotted IPv4 address, nor ``[IPv6]``."""


class PortError(AuthorityError):
    """The port is not decimal digits in 0-65535."""


class SchemeSyntaxError(URLError):
    """The scheme-specific part breaks that scheme's own rules (§3.2-§3.11)."""


class suppress:
    """``contextlib.suppress`` (Python 3.11's): the exceptions of ``exceptions`` raised in
    the block end it quietly.  Here rather than contextlib's because a get's modules import
    contextlib for nothing else, and its import was ~2.6 million instructions of a ~175
    million get (callgrind, 2026-11-29; docs/speed.md, *Start-up*); ``parse`` and ``plan``
    spent ~0.7 ms on it (fresh venv, 2026-11-28).  In this module, the lowest every layer
    imports, so that one copy serves them all: the resolvers (``resolvers.errors`` names
    it too) and the command's entry point, which imports no resolver for ``parse``."""

    __slots__ = ("_exceptions",)

    def __init__(self, *exceptions: type[BaseException]) -> None:
        self._exceptions = exceptions

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, *_rest: object) -> bool:
        return kind is not None and issubclass(kind, self._exceptions)
