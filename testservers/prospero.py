"""A Prospero directory server over ARDP/UDP with a configurable object table.

Nothing packaged speaks Prospero any more, so this server is written from the protocol
document, to exercise the client: version-5 ``GET-OBJECT-INFO`` and version-1 ``LIST``
(``versions=(1,)`` answers version 5 with ``VERSION-NOT-SUPPORTED``), a ``FORWARDED`` entry, a
reply that needs three packets (``/mirrors/hello.txt``), versioned objects, and faults on
demand: ``drop={2}`` drops reply packet 2 the first time it is sent, ``drop_requests=1``
ignores the first request datagram, so retransmission and reassembly are exercised.

Retransmissions are answered from a bounded cache: a repeated request (or an acknowledgement)
carrying "received through" N gets the reply's packets after N again.  Everything received
is recorded in ``info["datagrams"]``; acknowledgements in ``info["acks"]``.
"""

from __future__ import annotations

import asyncio
import json
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from omniurl.resolvers.errors import ProtocolError
from omniurl.resolvers.prospero import ardp
from omniurl.resolvers.prospero.protocol import join_host, quote, split_lines, tokenize

from .base import RunningServer, register

Method = tuple[str, ...]


@dataclass
class ObjectEntry:
    """One object: its ACCESS-METHOD values by version ("0" is the current one), or a
    forwarding address ``(host token, hsoname)``."""

    methods: dict[str, list[Method]] = field(default_factory=dict)
    forward: tuple[str, str] | None = None


def default_table(
    self_host: str,
    *,
    ftp: tuple[str, int] | None = None,
    gopher: tuple[str, int, str] | None = None,
    wais: tuple[str, int, str] | None = None,
    mirrors: int = 25,
) -> dict[str, ObjectEntry]:
    """The objects the demo and the tests use; ``self_host`` is this server's ``host(port)``.

    ``ftp`` is ``(host, port)`` of an FTP server serving the demo tree; ``gopher`` is
    ``(host, port, selector)`` and ``wais`` ``(host, port, database)``.  Absent ones point at
    ``*.example.org`` (never resolvable), so listing still works.
    """
    ftp_host = join_host(*ftp) if ftp else "ftp.example.org"
    gopher_host = join_host(gopher[0], gopher[1]) if gopher else "gopher.example.org"
    gopher_sel = gopher[2] if gopher else "/pub/hello.txt"
    wais_host = join_host(wais[0], wais[1]) if wais else "wais.example.org"
    wais_db = wais[2] if wais else "demo"
    hello: Method = ("AFTP", "INTERNET-D", ftp_host, "ASCII", "/pub/hello.txt", "TEXT")
    table = {
        "/pub/hello.txt": ObjectEntry(
            {"0": [hello, ("LOCAL", "INTERNET-D", "", "ASCII", "/srv/prospero/pub/hello.txt")]}
        ),
        "/pub/data.bin": ObjectEntry(
            {"0": [("AFTP", "INTERNET-D", ftp_host, "ASCII", "/pub/data.bin", "BINARY")]}
        ),
        # LOCAL first: a file: URL is never followed from prospero:, so GOPHER is taken.
        "/pub/README.txt": ObjectEntry(
            {
                "0": [
                    ("LOCAL", "INTERNET-D", "", "ASCII", "/srv/prospero/pub/README.txt"),
                    ("GOPHER", "INTERNET-D", gopher_host, "ASCII", gopher_sel, "0"),
                ]
            }
        ),
        "/gopher/hello": ObjectEntry(
            {"0": [("GOPHER", "INTERNET-D", gopher_host, "ASCII", gopher_sel, "0")]}
        ),
        "/wais/demo": ObjectEntry({"0": [("WAIS", "INTERNET-D", wais_host, "ASCII", wais_db)]}),
        "/pub/notes": ObjectEntry(
            {
                "0": [("AFTP", "INTERNET-D", ftp_host, "ASCII", "/pub/README.txt", "TEXT")],
                "1": [("AFTP", "INTERNET-D", ftp_host, "ASCII", "/pub/hello.txt", "TEXT")],
            }
        ),
        "/pub/with space": ObjectEntry(
            {"0": [("AFTP", "INTERNET-D", ftp_host, "ASCII", "/pub/with space.txt", "TEXT")]}
        ),
        "/moved/hello.txt": ObjectEntry(forward=(self_host, "/pub/hello.txt")),
        "/mirrors/hello.txt": ObjectEntry(
            {
                "0": [hello]
                + [
                    (
                        "AFTP",
                        "INTERNET-D",
                        f"mirror{n:02}.example.org",
                        "ASCII",
                        "/pub/hello.txt",
                        "TEXT",
                    )
                    for n in range(1, mirrors)
                ]
            }
        ),
    }
    return table


#: A file in the served root that replaces the default table (``omniurl serve prospero``)::
#:
#:     {"/pub/x": {"methods": {"0": [["AFTP", "INTERNET-D", "h(2121)", "ASCII", "/pub/x",
#:                                     "BINARY"]]}},
#:      "/old/x": {"forward": ["h(1525)", "/pub/x"]}}
TABLE_FILE = "prospero-table.json"


def load_table(path: Path) -> dict[str, ObjectEntry]:
    """Read a table written as :data:`TABLE_FILE` describes."""
    raw = json.loads(path.read_text())
    table: dict[str, ObjectEntry] = {}
    for hsoname, spec in raw.items():
        methods: dict[str, list[Method]] = {
            v: [tuple(m) for m in ms] for v, ms in spec.get("methods", {}).items()
        }
        forward = spec.get("forward")
        table[hsoname] = ObjectEntry(methods, (forward[0], forward[1]) if forward else None)
    return table


def object_entry(spec: dict[str, Any]) -> ObjectEntry:
    """A one-method object from the short form ``{"method": "AFTP", "host": "h(21)",
    "path": "/x", "extra": ["BINARY"]}`` (what ``objects=`` takes; omniurl.box1994 uses it),
    or ``{"forward": ["h(1525)", "/x"]}``."""
    if "forward" in spec:
        host, target = spec["forward"]
        return ObjectEntry(forward=(str(host), str(target)))
    method: Method = (
        str(spec.get("method", "AFTP")),
        str(spec.get("host_type", "INTERNET-D")),
        str(spec["host"]),
        "ASCII",
        str(spec["path"]),
        *(str(e) for e in spec.get("extra", ())),
    )
    return ObjectEntry({"0": [method]})


class ProsperoServer(asyncio.DatagramProtocol):
    """The ARDP and Prospero logic; one instance per listening socket."""

    def __init__(
        self,
        table: dict[str, ObjectEntry],
        *,
        versions: tuple[int, ...] = (1, 5),
        drop: frozenset[int] = frozenset(),
        drop_requests: int = 0,
        max_payload: int = ardp.MAX_PAYLOAD,
        info: dict[str, Any],
    ) -> None:
        self.table = table
        self.versions = versions
        self.drop = set(drop)
        self.drop_requests = drop_requests
        self.max_payload = max_payload
        self.info = info
        self.transport: asyncio.DatagramTransport | None = None
        #: (addr, cid) -> reply packets; bounded, oldest forgotten first.
        self.replies: OrderedDict[tuple[Any, int], list[ardp.Packet]] = OrderedDict()
        self.partial: dict[tuple[Any, int], ardp.Reassembler] = {}
        self._dropped: set[tuple[Any, int, int]] = set()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def datagram_received(self, data: bytes, addr: Any) -> None:
        self.info["datagrams"].append(data)
        try:
            packet = ardp.decode(data)
        except Exception:
            return
        key = (addr, packet.cid)
        if packet.is_control:
            self.info["acks"].append(packet)
            self._resend(key, packet.rcvd_thru)
            return
        if self.drop_requests > 0:
            self.drop_requests -= 1
            return
        if key in self.replies:  # a retransmitted request: resend what is missing
            self._resend(key, packet.rcvd_thru)
            return
        reasm = self.partial.setdefault(key, ardp.Reassembler(packet.cid, max_octets=1 << 20))
        try:
            reasm.add(packet)
        except Exception:
            self.partial.pop(key, None)
            return
        if not reasm.complete:
            return
        del self.partial[key]
        request = reasm.message()
        self.info["requests"].append(request)
        try:
            answer = self.answer(request)
        except ProtocolError as exc:  # e.g. an unterminated quote: say so, never crash
            answer = f"ERROR malformed request: {exc}\n".encode()
        packets = ardp.split(packet.cid, answer, max_payload=self.max_payload, ack_last=True)
        self.replies[key] = packets
        while len(self.replies) > 256:
            self.replies.popitem(last=False)
        self._send(key, packets)

    def _resend(self, key: tuple[Any, int], rcvd_thru: int) -> None:
        packets = self.replies.get(key)
        if packets is None:
            return
        if rcvd_thru >= len(packets):
            del self.replies[key]  # acknowledged whole: forget it
            return
        self._send(key, [p for p in packets if p.seq > rcvd_thru])

    def _send(self, key: tuple[Any, int], packets: list[ardp.Packet]) -> None:
        assert self.transport is not None
        addr, cid = key
        for p in packets:
            mark = (addr, cid, p.seq)
            if p.seq in self.drop and mark not in self._dropped:
                self._dropped.add(mark)
                continue
            self.transport.sendto(ardp.encode(p), addr)

    # -- the Prospero protocol -----------------------------------------------------------

    def answer(self, request: bytes) -> bytes:
        lines = [tokenize(ln) for ln in split_lines(request)]
        lines = [t for t in lines if t]
        if not lines or lines[0][0].upper() != b"VERSION" or len(lines[0]) < 2:
            return b"ERROR first line must be VERSION\n"
        try:
            version = int(lines[0][1])
        except ValueError:
            return b"ERROR bad VERSION\n"
        if version not in self.versions:
            return b"VERSION-NOT-SUPPORTED\n"
        words = {t[0].upper(): t for t in lines[1:]}
        if version == 5 and b"GET-OBJECT-INFO" in words:
            t = words[b"GET-OBJECT-INFO"]
            if len(t) < 4:
                return b"ERROR GET-OBJECT-INFO needs attributes, hsoname type and hsoname\n"
            hsoname = t[3].decode("utf-8", "surrogateescape")
            obj_version = t[4].decode() if len(t) > 4 and t[4] else "0"
            return self._v5(hsoname, obj_version, t[1])
        if version == 1 and b"LIST" in words and b"DIRECTORY" in words:
            directory = words[b"DIRECTORY"][-1].decode("utf-8", "surrogateescape")
            component = words[b"LIST"][-1].decode("utf-8", "surrogateescape")
            hsoname = directory.rstrip("/") + "/" + component
            return self._v1(component, hsoname)
        return b"ERROR unsupported request\n"

    def _lookup(self, hsoname: str) -> ObjectEntry | None:
        return self.table.get(hsoname)

    def _v5(self, hsoname: str, obj_version: str, attributes: bytes) -> bytes:
        entry = self._lookup(hsoname)
        if entry is None:
            return b"FAILURE NOT-FOUND OBJECT " + quote(hsoname.encode()) + b"\n"
        if entry.forward is not None:
            host, target = entry.forward
            return b"FORWARDED OBJECT INTERNET-D %s ASCII %s %s\n" % (
                quote(host.encode()),
                quote(target.encode()),
                quote(obj_version.encode()),
            )
        wanted = {a.upper() for a in attributes.split(b"+")}
        methods = entry.methods.get(obj_version)
        if methods is None or not wanted & {b"ACCESS-METHOD", b"#ALL", b"#OBJECT"}:
            return b"NONE-FOUND\n"
        return b"".join(
            b"ATTRIBUTE OBJECT INTRINSIC ACCESS-METHOD SEQUENCE "
            + b" ".join(quote(t.encode("utf-8", "surrogateescape")) for t in m)
            + b"\n"
            for m in methods
        )

    def _v1(self, component: str, hsoname: str) -> bytes:
        entry = self._lookup(hsoname)
        if entry is None:
            return b"NONE-FOUND\n"
        if entry.forward is not None:
            host, target = entry.forward
            return f"FORWARDED OBJECT INTERNET-D {host} ASCII {target} 0\n".encode()
        host = self.info["self_host"]
        out = [f"LINK L FILE {component} INTERNET-D {host} ASCII {hsoname} 0 0"]
        out += [
            "LINK-INFO LINK INTRINSIC ACCESS-METHOD " + " ".join(t or "''" for t in m)
            for m in entry.methods.get("0", [])
        ]
        return ("\n".join(out) + "\n").encode("utf-8", "surrogateescape")


@register("prospero", "a Prospero directory server (ARDP over UDP) with a sample object table")
async def start(
    root: Path,
    host: str = "127.0.0.1",
    port: int = 0,
    *,
    table: dict[str, ObjectEntry] | None = None,
    ftp: tuple[str, int] | None = None,
    gopher: tuple[str, int, str] | None = None,
    wais: tuple[str, int, str] | None = None,
    versions: tuple[int, ...] = (1, 5),
    drop: frozenset[int] | set[int] = frozenset(),
    drop_requests: int = 0,
    max_payload: int = ardp.MAX_PAYLOAD,
    objects: dict[str, Any] | None = None,
    **_: Any,
) -> RunningServer:
    """Listen on ``host:port`` (UDP).  The objects: ``table``, else ``root/prospero-table.json``
    where it exists, else :func:`default_table` pointed at ``ftp``/``gopher``/``wais``; then
    ``objects`` (short forms, :func:`object_entry`) are added."""
    loop = asyncio.get_running_loop()
    info: dict[str, Any] = {"datagrams": [], "requests": [], "acks": []}
    server = ProsperoServer(
        {},
        versions=versions,
        drop=frozenset(drop),
        drop_requests=drop_requests,
        max_payload=max_payload,
        info=info,
    )
    transport, _proto = await loop.create_datagram_endpoint(lambda: server, local_addr=(host, port))
    bound_port = transport.get_extra_info("sockname")[1]
    self_host = join_host(host, bound_port)
    info["self_host"] = self_host
    if table is None and (root / TABLE_FILE).is_file():
        table = load_table(root / TABLE_FILE)
    server.table = (
        table if table is not None else default_table(self_host, ftp=ftp, gopher=gopher, wais=wais)
    )
    for hsoname, spec in (objects or {}).items():
        server.table[hsoname] = spec if isinstance(spec, ObjectEntry) else object_entry(spec)
    info["table"] = server.table

    async def close() -> None:
        transport.close()

    return RunningServer("prospero", host, bound_port, close, transport="udp", info=info)
