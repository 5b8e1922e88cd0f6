"""The I/O half of the ``gemini:`` resolver: a short pump between a :class:`net.Stream` and
:class:`resolvers.gemini.machine.GeminiMachine`.

TLS (1.2 or later, SNI) through the one stream seam; the certificate checked against the
known-hosts pin *before* the request is written (trust on first use, :mod:`.tofu`); then the
plan's one line, and the response's events: content streamed, input asked for through
``Options.ask`` and the URL re-requested with the answer as its query, redirects raised as
:class:`Follow` (at most 5, never to another scheme), failures typed by :func:`meaning`.
"""

from __future__ import annotations

import ssl
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, NoReturn
from urllib.parse import quote

from omniurl import schemes
from omniurl.schemes.errors import URLError

from .. import net
from ..base import Follow
from ..errors import (
    ConfigurationError,
    ConnectError,
    InputNeeded,
    ProtocolError,
    RedirectRefused,
    ResolveError,
)
from ..mediatype import charset_param
from ..options import Options
from ..plan import Plan
from ..resource import Resource
from .machine import (
    NEED_DATA,
    Data,
    EndOfReply,
    GeminiMachine,
    GeminiResult,
    Header,
    Kind,
    meaning,
)
from .planner import GeminiDetails, GeminiRole
from .tofu import CertificateChanged, KnownHosts, Pin, judge, pin_of

#: The specification: "clients SHOULD limit the number of redirects they follow to 5".
MAX_REDIRECTS = 5


def tls_context(options: Options) -> ssl.SSLContext:
    """TLS 1.2+ without the CA check (most Gemini certificates are self-signed: the pin is
    the check), offering ``--cert``/``--key`` when the server asks for one."""
    from ..tls import ssl_context

    return ssl_context(options.with_(verify_tls=False))


async def _vouched_by_ca(plan: Plan, options: Options, der: bytes) -> bool:
    """Whether a CA of the trust store (``--cacert``, or the system's) vouches for the
    certificate ``der`` for this host: a second handshake, verifying, must show the same
    certificate.  Nothing is sent on it."""
    from ..tls import ssl_context

    assert plan.host is not None and plan.port is not None
    try:
        stream = await net.connect(
            plan.host,
            plan.port,
            options.with_(client_cert=None, client_key=None),
            tls=ssl_context(options.with_(client_cert=None, client_key=None)),
        )
    except ResolveError:
        return False
    try:
        return stream.peer_certificate() == der
    finally:
        stream.close()


async def check_certificate(stream: net.Stream, plan: Plan, options: Options) -> None:
    """Trust on first use: record a first certificate, accept the pinned one, refuse a
    changed one (both fingerprints in the error) unless a CA vouches for it."""
    details = plan.details_as(GeminiDetails)
    if not details.verify:
        options.note("*", "-k: the server's certificate is not checked")
        return
    der = stream.peer_certificate()
    if der is None:
        raise ConnectError("the server presented no certificate", component="host")
    presented = pin_of(der)
    store = KnownHosts(Path(details.known_hosts))
    known = store.lookup(details.host_key)  # (read again: the plan may be older)
    verdict = judge(known, presented)
    if verdict.outcome == "first":
        _record(store, details, presented)
        options.note("*", verdict.note)
        options.tell(
            f"pinned {details.host_key} sha256:{presented.fingerprint} in {details.known_hosts}"
        )
        return
    if verdict.outcome == "changed":
        assert known is not None
        if details.repin:
            why = "--gemini-repin"
        elif await _vouched_by_ca(plan, options, der):
            why = "a CA in the trust store vouches for it"
        else:
            raise CertificateChanged(
                f"{details.host_key}: {verdict.note}; no CA in the trust store vouches for "
                f"the new one; refused, nothing was sent (if the change is expected, run "
                f"again with --gemini-repin to pin the new one, or remove its line from "
                f"{details.known_hosts})",
                known=known,
                presented=presented,
            )
        _record(store, details, presented)
        options.note("*", f"{verdict.note}; the pin is replaced ({why})")
        options.tell(
            f"re-pinned {details.host_key} sha256:{presented.fingerprint} in "
            f"{details.known_hosts} (was sha256:{known.fingerprint}; {why})"
        )
        return
    options.note("*", verdict.note)


def _record(store: KnownHosts, details: GeminiDetails, pin: Pin) -> None:
    """Remember ``pin``; a file that cannot be written is a typed error (nothing is sent
    under a pin that would not be kept)."""
    try:
        store.record(details.host_key, pin)
    except OSError as exc:
        raise ConfigurationError(
            f"cannot record the certificate of {details.host_key} in {details.known_hosts}: "
            f"{exc.strerror or exc}; give a writable file with --gemini-known-hosts",
            component="known_hosts",
        ) from None


class Pump:
    """The response's events, reading the stream whenever the machine needs more."""

    def __init__(self, stream: net.Stream, machine: GeminiMachine) -> None:
        self.stream = stream
        self.machine = machine

    async def next(self, what: str) -> Header | Data | EndOfReply:
        while True:
            event = self.machine.next_event()
            if event is not NEED_DATA:
                assert not isinstance(event, type(NEED_DATA))
                return event
            self.machine.receive_data(await self.stream.read(what))

    async def content(self) -> AsyncIterator[bytes]:
        while True:
            event = await self.next("the content")
            if isinstance(event, Data):
                yield event.data
            elif isinstance(event, EndOfReply):
                return


async def execute_gemini(plan: Plan, options: Options) -> Resource:
    details = plan.details_as(GeminiDetails)
    assert plan.host is not None and plan.port is not None
    stream = await net.connect(plan.host, plan.port, options, tls=tls_context(options))
    try:
        await check_certificate(stream, plan, options)
        (request,) = [s for s in plan.steps if s.role is GeminiRole.REQUEST]
        options.note(">", request.shown)
        await stream.write(details.request + b"\r\n", "the request")
        pump = Pump(stream, GeminiMachine())
        header = await pump.next("the response header")
        if not isinstance(header, Header):
            raise ProtocolError("no response header")
        options.note("<", header.line)
        url = str(plan.url)
        meant = meaning(header, url)
        if meant.kind is Kind.CONTENT:
            stream.bulk()
            return Resource(
                plan,
                kind="content",
                body=pump.content(),
                # the bare type, its charset apart, as HTTP's (Resource: no parameters);
                # the META as sent is GeminiResult.meta
                media_type=meant.media_type.split(";", 1)[0].strip(),
                charset=charset_param(meant.media_type),
                replies=[header.line],
                result=GeminiResult(header.status, header.meta, meant.media_type, meant.charset),
                status=header.status,
                close=stream.aclose,
            )
    except BaseException:
        stream.close()
        raise
    stream.close()
    if meant.kind is Kind.INPUT:
        await _ask(plan, options, header, meant.prompt, meant.sensitive)
    _redirect(plan, header, meant.target)


async def _ask(plan: Plan, options: Options, header: Header, prompt: str, secret: bool) -> NoReturn:
    """1x: ask for the words (11: without echo) as a Gopher search does, then request the
    URL again with them as its query (percent-encoded, Gemini specification, 10 INPUT)."""
    url: Any = plan.url
    shown = prompt or "Input"
    if options.ask is None:
        raise InputNeeded(
            f"{url} asks for input ({header.line}): give it as the URL's query",
            component="query",
            prompt=shown,
        )
    answer = await options.ask(f"{shown}: ", secret=secret)
    query = quote(answer.encode("utf-8", "surrogateescape"), safe="")
    raise Follow(
        url.replace(query=query, fragment=None),
        reason="sensitive input given" if secret else "input given",
        replies=[header.line],
    )


def _redirect(plan: Plan, header: Header, meta: str) -> NoReturn:
    """3x: the target resolved against the URL (it may be relative), followed through the
    core and the policy — at most :data:`MAX_REDIRECTS`, and never to another scheme."""
    details = plan.details_as(GeminiDetails)
    sent = [details.request.decode("utf-8", "replace")]
    try:
        target = schemes.parse(schemes.join(str(plan.url), meta, check=False))
    except URLError as exc:
        raise ProtocolError(
            f"{header.line}: the redirect's URL does not parse: {exc.message}",
            component="location",
        ) from None
    if target.scheme != plan.scheme:
        raise RedirectRefused(
            f"{header.line}: a redirect to another scheme ({target}) is not followed "
            "silently (Gemini specification); give that URL yourself to go there",
            component="location",
        ).after_sending(sent)
    raise Follow(
        target,
        reason="permanent redirect" if header.status == 31 else "redirect",
        replies=[header.line],
        limit=MAX_REDIRECTS,
    )


__all__ = ["MAX_REDIRECTS", "check_certificate", "execute_gemini", "tls_context"]
