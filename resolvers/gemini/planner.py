"""The pure half of the ``gemini:`` resolver: URL in, the exact request out.

The Gemini specification's request is one line, ``<URL><CR><LF>``: the absolute URL, at most
1024 bytes (without the CR LF), "Servers MUST reject requests longer than 1024 bytes" — so a
longer one is refused here, before anything is sent.  The connection is TLS 1.2 or later with
SNI; the certificate is checked against the known-hosts pin (trust on first use, see
:mod:`resolvers.gemini.tofu`), which the resolver looks up and hands in (``pin``): this
function does no I/O.
"""

from __future__ import annotations

from omniurl.schemes.base import URL
from omniurl.schemes.gemini import GeminiURL
from omniurl.schemes.records import record

from ..errors import PlanError
from ..options import Options
from ..plan import Plan, Role, Step, WireValue
from .settings import GeminiOptions
from .tofu import Pin

#: The longest request URL (Gemini specification, "Requests"), in bytes, without CR LF.
MAX_REQUEST = 1024


class GeminiRole(Role):
    """The steps of a Gemini request."""

    TLS = "tls"
    REQUEST = "request"


@record(frozen=True)
class GeminiDetails:
    """The plan's facts: the request line (without CR LF), the name sent in SNI, and the
    certificate check the executor will make."""

    request: bytes
    sni: str
    #: The known-hosts file and this server's key in it.
    known_hosts: str
    host_key: str
    #: The pin on file (None: first contact, or ``verify`` is off).
    pin: Pin | None
    #: False under ``-k/--insecure``: no pin is checked nor recorded.
    verify: bool
    #: ``--gemini-repin``: a certificate other than the pinned one replaces the pin.
    repin: bool = False


def request_target(url: GeminiURL) -> str:
    """The absolute URL sent: as written, without the fragment; an empty path is the root
    ("/"), as the specification reads it."""
    port = "" if url.port is None else f":{url.port}"
    query = "" if url.query is None else "?" + url.query
    return f"{url.scheme}://{url.host}{port}{url.path or '/'}{query}"


def plan_gemini(
    url: URL, options: Options, *, known_hosts: str, host_key: str, pin: Pin | None
) -> Plan:
    if not isinstance(url, GeminiURL):
        raise PlanError(f"not a gemini URL: {url}", component="scheme")
    request = request_target(url).encode("utf-8", "surrogateescape")
    if len(request) > MAX_REQUEST:
        without_query = len(request) - (0 if url.query is None else len(url.query) + 1)
        component = "query" if url.query is not None and without_query <= MAX_REQUEST else "path"
        raise PlanError(
            f"the request would be {len(request)} bytes: a Gemini request URL is at most "
            f"{MAX_REQUEST} bytes (Gemini specification, Requests); nothing was sent",
            component=component,
        )
    verify = options.verify_tls
    repin = options.of(GeminiOptions).repin
    if not verify:
        check = "-k: the certificate is not checked"
    elif pin is None:
        check = f"first contact: the certificate will be recorded in {known_hosts}"
    elif repin:
        check = f"--gemini-repin: the certificate presented replaces the pin {pin.shown} "
        check += f"({known_hosts})"
    else:
        check = f"the certificate must match the pin {pin.shown} ({known_hosts}), or a CA's"
    tls = Step(
        data=b"",
        shown=f"TLS 1.2+ handshake, SNI {url.hostname}; {check}",
        kind="info",
        role=GeminiRole.TLS,
    )
    line = Step.line(
        request,
        shown=request.decode("utf-8", "replace"),
        values=[WireValue("url", request, "line")],
        role=GeminiRole.REQUEST,
    )
    return Plan(
        url=url,
        scheme=url.scheme,
        host=url.hostname,
        port=url.effective_port,
        transport="tcp",
        steps=(tls, line),
        explicit_port=url.port is not None,
        details=GeminiDetails(
            request=request,
            sni=url.hostname,
            known_hosts=known_hosts,
            host_key=host_key,
            pin=pin if verify else None,
            verify=verify,
            repin=repin and verify,
        ),
    )


__all__ = ["MAX_REQUEST", "GeminiDetails", "GeminiRole", "plan_gemini", "request_target"]
