"""The I/O half of the Prospero resolver: ARDP over UDP, then the access methods.

The executor sends exactly the plan's datagram steps (the version-1 one only after a
``VERSION-NOT-SUPPORTED`` answer).  ARDP's own work happens beneath them: a request is
retransmitted with exponential backoff when no reply comes (carrying "received through" so
the server resends only what is missing), multi-packet replies are reassembled in any order,
and a packet that asks for an acknowledgement gets one.  Every wait is bounded, and the whole
exchange by ``Options.read_timeout``.

Outcome (RFC 1738 §3.11): the access methods, each as the URL of the underlying method.  By
default the first one the safety policy allows is followed — ``raise Follow(...)``: the core
re-plans and re-checks it.  With ``Options.follow`` false, or ``ProsperoOptions.list_methods``
(``--access-methods``), they come back as a listing.  A ``FORWARDED`` answer is followed the
same way, as a new ``prospero:`` URL (bounded by the policy's ``max_redirects``).
"""

from __future__ import annotations

import asyncio
import secrets
from typing import Any

from omniurl import schemes
from omniurl.schemes.errors import OmniurlError, URLError

from ..base import Follow
from ..errors import (
    ConnectError,
    NotFound,
    ProtocolError,
    RedirectRefused,
    ReplyError,
)
from ..net import resolve_addresses
from ..options import Options
from ..plan import Plan, Step
from ..resource import Entry, Resource
from .machine import ARDPMachine, Complete, Note, SendDatagrams
from .methods import prospero_url, to_url
from .planner import ProsperoDetails, ProsperoRole, Version
from .protocol import AccessMethod, Reply, join_host, parse_reply
from .result import ProsperoResult
from .settings import DEFAULT_RETRIES as DEFAULT_RETRIES
from .settings import DEFAULT_RETRY_TIMEOUT as DEFAULT_RETRY_TIMEOUT
from .settings import ProsperoOptions

#: The reason given to the core for a followed access method / forward.
FOLLOW_REASON = "prospero access method"
FORWARD_REASON = "prospero FORWARDED"


class _Endpoint(asyncio.DatagramProtocol):
    """A connected UDP socket whose datagrams and errors arrive on a queue."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue[bytes | Exception] = asyncio.Queue()
        self.transport: asyncio.DatagramTransport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def datagram_received(self, data: bytes, addr: Any) -> None:
        self.queue.put_nowait(data)

    def error_received(self, exc: Exception) -> None:
        self.queue.put_nowait(exc)

    def send_raw(self, datagram: bytes) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.sendto(datagram)

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()


async def _open(address: str, port: int) -> _Endpoint:
    loop = asyncio.get_running_loop()
    try:
        _transport, endpoint = await loop.create_datagram_endpoint(
            _Endpoint, remote_addr=(address, port)
        )
    except OSError as exc:
        raise ConnectError(
            f"cannot open a UDP socket to {address}:{port}: {exc.strerror or exc}",
            component="host",
        ) from None
    return endpoint


async def exchange(
    endpoint: _Endpoint,
    message: bytes,
    options: Options,
    *,
    where: str,
    cid: int | None = None,
) -> bytes:
    """Send one ARDP request message and return the reply message: a pump between the UDP
    endpoint and :class:`~resolvers.prospero.machine.ARDPMachine` (every decision is the
    machine's); the whole exchange bounded by ``Options.read_timeout``."""
    mine = options.of(ProsperoOptions)
    machine = ARDPMachine(
        cid if cid is not None else secrets.randbelow(0xFFFF) + 1,
        message,
        where=where,
        max_octets=options.max_buffered,
        retries=int(mine.retries),
        first_wait=float(mine.retry_timeout),
    )
    loop = asyncio.get_running_loop()
    deadline = loop.time() + options.read_timeout
    while True:
        event = machine.next_event()
        if isinstance(event, SendDatagrams):
            for datagram in event.datagrams:
                endpoint.send_raw(datagram)
        elif isinstance(event, Note):
            options.note("*", event.text)
        elif isinstance(event, Complete):
            return event.message
        else:
            remaining = deadline - loop.time()
            try:
                if remaining <= 0:
                    raise TimeoutError
                item = await asyncio.wait_for(endpoint.queue.get(), min(event.seconds, remaining))
            except TimeoutError:
                machine.timed_out(deadline_passed=loop.time() >= deadline)
                continue
            if isinstance(item, Exception):
                reason = item.strerror if isinstance(item, OSError) and item.strerror else str(item)
                raise ConnectError(f"Prospero server {where}: {reason}", component="host")
            machine.datagram_received(item)


async def execute(plan: Plan, options: Options) -> Resource:
    """Carry out ``plan``: ask the directory server, then follow or list the access methods."""
    assert plan.host is not None and plan.port is not None
    where = f"{plan.host}:{plan.port}"
    v5 = next(s for s in plan.steps if s.role is ProsperoRole.V5_REQUEST)
    v1 = next((s for s in plan.steps if s.role is ProsperoRole.V1_REQUEST), None)
    addresses = await resolve_addresses(plan.host, plan.port, options, transport="udp")
    address, port = addresses[0]
    options.note("*", f"ARDP over UDP to {address} port {port}")
    endpoint = await _open(address, port)
    try:
        reply, version = await _ask(endpoint, v5, options, where)
        if v1 is not None and v1.due(reply.status):
            reply, version = await _ask(endpoint, v1, options, where)
    finally:
        endpoint.close()
    return _outcome(plan, reply, version, options)


async def _ask(endpoint: _Endpoint, step: Step, options: Options, where: str) -> tuple[Reply, int]:
    for line in step.data.decode("utf-8", "backslashreplace").splitlines():
        options.note(">", line)
    message = await exchange(endpoint, step.data, options, where=where)
    reply = parse_reply(message, max_line=options.max_line)
    for line in reply.lines:
        options.note("<", line)
    return reply, step.detail_as(Version).protocol


def _outcome(plan: Plan, reply: Reply, version: int, options: Options) -> Resource:
    url: Any = plan.url
    listing = not options.follow or options.of(ProsperoOptions).list_methods
    if reply.forwarded is not None:
        fwd = reply.forwarded
        target_text = prospero_url(
            fwd.host,
            fwd.hsoname,
            version=fwd.version or plan.details_as(ProsperoDetails).version,
            fields=tuple(plan.details_as(ProsperoDetails).fields),
        )
        try:
            if target_text is None:
                raise URLError(f"unusable host {fwd.host!r}", component="host")
            target = schemes.parse(target_text)
        except URLError as exc:
            raise ProtocolError(f"FORWARDED to a location that is no URL: {exc}") from None
        if not options.follow:  # --access-methods still follows the move, then lists
            entry = Entry(name=fwd.hsoname, kind="forwarded", url=target_text,
                          info={"host": fwd.host})  # fmt: skip
            return _listing(plan, [entry], reply, version)
        raise Follow(target, reason=FORWARD_REASON, replies=reply.lines)
    _raise_for_status(reply, plan)
    if not reply.methods:
        raise NotFound(
            f"the Prospero server knows {url.hsoname!r} but gives no access method for it",
            component="hsoname",
            reply="\n".join(reply.lines),
        )
    link_host = join_host(str(plan.host), plan.port)
    if reply.link is not None:
        link_host, _ = reply.link
    entries = [_entry(am.with_link(link_host, url.hsoname)) for am in reply.methods]
    if listing:
        return _listing(plan, entries, reply, version)
    refusals: list[str] = []
    for entry in entries:
        if entry.url is None:
            refusals.append(f"{entry.name}: no URL expresses it")
            continue
        why = _why_not(plan, entry.url, options)
        if why is None:  # the core notes the hop ("prospero access method: <url>")
            raise Follow(schemes.parse(entry.url), reason=FOLLOW_REASON, replies=reply.lines)
        refusals.append(f"{entry.url}: {why}")
        options.note("*", f"access method {entry.info['method']} skipped: {why}")
    raise RedirectRefused(
        "no access method of this object may be followed (" + "; ".join(refusals) + "); "
        "list them with --no-follow",
        component="location",
    )


def _why_not(plan: Plan, target_text: str, options: Options) -> str | None:
    """Why the policy (or the registry) will not take this access method, or ``None``."""
    from ..core import check

    try:
        target = schemes.parse(target_text)
        options.policy.check_redirect(plan.url, target, kind=FOLLOW_REASON)
        check(target, options)
    except OmniurlError as exc:
        return f"{type(exc).__name__}: {exc.message}"
    return None


def _raise_for_status(reply: Reply, plan: Plan) -> None:
    status, detail = reply.status, reply.detail
    if status is None or (status == "VERSION-NOT-SUPPORTED" and reply.methods):
        return
    text = "\n".join(reply.lines)
    details = plan.details_as(ProsperoDetails)
    asked_version = details.version
    if status in ("NONE-FOUND", "UNRESOLVED") or (
        status == "FAILURE" and detail.upper().startswith("NOT-FOUND")
    ):
        component = "version" if asked_version and status == "NONE-FOUND" else "hsoname"
        what = f" version {asked_version}" if component == "version" else ""
        raise NotFound(
            f"the Prospero server has no object {details.hsoname!r}{what} ({status}"
            + (f" {detail}" if detail else "")
            + ")",
            component=component,
            code=status,
            reply=text,
        )
    if status == "VERSION-NOT-SUPPORTED":
        raise ReplyError(
            "the Prospero server supports neither protocol version 5 nor the version-1 "
            "request this URL allows",
            component="hsoname",
            code=status,
            reply=text,
        )
    raise ReplyError(
        f"the Prospero server refused: {status}" + (f" {detail}" if detail else ""),
        component="hsoname",
        code=status,
        reply=text,
    )


def _entry(am: AccessMethod) -> Entry:
    return Entry(
        name=" ".join(t or "''" for t in am.tokens()),
        kind="access-method",
        url=to_url(am),
        info={"method": am.method, "host": am.host, "hsoname": am.hsoname, "extra": list(am.extra)},
    )


def _listing(plan: Plan, entries: list[Entry], reply: Reply, version: int) -> Resource:
    return Resource(
        plan,
        kind="listing",
        entries=entries,
        replies=reply.lines,
        result=ProsperoResult(version),
    )
