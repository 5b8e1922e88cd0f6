"""ARDP over real UDP sockets: the client exchange against testservers.prospero (loopback)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from omniurl import testservers
from omniurl.resolvers.errors import ConnectError, LimitExceeded, ProtocolError, ResolveTimeout
from omniurl.resolvers.options import Options
from omniurl.resolvers.prospero import ardp, protocol
from omniurl.resolvers.prospero.executor import _open, exchange
from omniurl.resolvers.prospero.settings import ProsperoOptions

#: No loss is staged: a retransmission would only come from a stalled machine.
CALM = Options(read_timeout=10.0, schemes=(ProsperoOptions(retry_timeout=2.0, retries=2),))
FAST = Options(read_timeout=5.0, schemes=(ProsperoOptions(retry_timeout=0.05, retries=4),))


async def ask(server: testservers.RunningServer, message: bytes, options: Options = FAST) -> bytes:
    endpoint = await _open(server.host, server.port)
    try:
        return await exchange(endpoint, message, options, where=server.netloc, cid=77)
    finally:
        endpoint.close()


async def settle(predicate: object, timeout: float = 1.0) -> None:
    """Let the server's loop callbacks run until ``predicate()`` holds (bounded)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not predicate() and loop.time() < end:  # type: ignore[operator]
        await asyncio.sleep(0.01)


async def test_single_packet_exchange_exact_request_bytes(tree: Path) -> None:
    async with await testservers.start("prospero", tree, ftp=("127.0.0.1", 2121)) as server:
        reply = await ask(server, protocol.v5_request(b"/pub/data.bin"), CALM)
        assert reply == (
            b"ATTRIBUTE OBJECT INTRINSIC ACCESS-METHOD SEQUENCE AFTP INTERNET-D "
            b"127.0.0.1(2121) ASCII /pub/data.bin BINARY\n"
        )
        (datagram,) = server.info["datagrams"]
        assert datagram == bytes.fromhex("09 004d 0001 0001 0000") + protocol.v5_request(
            b"/pub/data.bin"
        )
        assert server.info["acks"] == []  # a one-packet reply asks for no acknowledgement


async def test_three_packet_reply_reassembled_and_acknowledged(tree: Path) -> None:
    async with await testservers.start("prospero", tree) as server:
        reply = await ask(server, protocol.v5_request(b"/mirrors/hello.txt"), CALM)
        parsed = protocol.parse_reply(reply)
        assert len(parsed.methods) == 25
        assert parsed.methods[-1].host == "mirror24.example.org"
        # the reply really took three packets, and the last one's ack request was honoured
        assert -(-len(reply) // ardp.MAX_PAYLOAD) == 3
        await settle(lambda: server.info["acks"])
        (ack,) = server.info["acks"]
        assert (ack.cid, ack.seq, ack.rcvd_thru) == (77, 0, 3)


@pytest.mark.parametrize("dropped", [1, 2, 3])
async def test_dropped_reply_packet_is_recovered(tree: Path, dropped: int) -> None:
    notes: list[str] = []
    options = FAST.with_(transcript=lambda d, t: notes.append(t))
    async with await testservers.start("prospero", tree, drop={dropped}) as server:
        reply = await ask(server, protocol.v5_request(b"/mirrors/hello.txt"), options)
        assert len(protocol.parse_reply(reply).methods) == 25
        if dropped == 3:
            # the last packet (the one asking for an ack) never came: the client waited,
            # then retransmitted its request saying it had packets through 2
            assert any("retransmitting" in n and "received through 2" in n for n in notes)
            assert len(server.info["datagrams"]) >= 2
        else:
            # packet 3 asked for an ack; the ack's received-through made the server resend
            await settle(lambda: server.info["acks"])
            assert server.info["acks"][0].rcvd_thru == dropped - 1


async def test_lost_request_is_retransmitted_with_backoff(tree: Path) -> None:
    notes: list[str] = []
    options = FAST.with_(transcript=lambda d, t: notes.append(t))
    async with await testservers.start("prospero", tree, drop_requests=2) as server:
        reply = await ask(server, protocol.v5_request(b"/pub/data.bin"), options)
        assert b"AFTP" in reply
        assert len(server.info["datagrams"]) >= 3
        assert len(set(server.info["datagrams"])) == 1  # the same request, byte for byte
        waits = [n for n in notes if "no reply within" in n]
        assert waits[0].startswith("ARDP: no reply within 0.05 s")
        assert waits[1].startswith("ARDP: no reply within 0.1 s")


async def test_silent_server_times_out_bounded(tree: Path) -> None:
    options = Options(schemes=(ProsperoOptions(retry_timeout=0.02, retries=2),))
    async with await testservers.start("prospero", tree, drop_requests=100) as server:
        loop = asyncio.get_running_loop()
        start = loop.time()
        with pytest.raises(ResolveTimeout, match="after 3 tries") as info:
            await ask(server, protocol.v5_request(b"/x"), options)
        assert info.value.component == "host"
        assert loop.time() - start < 1.0
        assert len(server.info["datagrams"]) == 3


async def test_read_timeout_caps_the_whole_exchange(tree: Path) -> None:
    options = Options(read_timeout=0.2, schemes=(ProsperoOptions(retry_timeout=5, retries=9),))
    async with await testservers.start("prospero", tree, drop_requests=100) as server:
        with pytest.raises(ResolveTimeout):
            await asyncio.wait_for(ask(server, protocol.v5_request(b"/x"), options), 2)


async def test_closed_port_is_a_connect_error(tree: Path) -> None:
    server = await testservers.start("prospero", tree)
    port = server.port
    await server.close()
    endpoint = await _open("127.0.0.1", port)
    try:
        with pytest.raises(ConnectError) as info:
            await exchange(endpoint, b"VERSION 5\n", FAST, where=f"127.0.0.1:{port}")
        assert info.value.component == "host"
    finally:
        endpoint.close()


async def test_version_one_only_server(tree: Path) -> None:
    async with await testservers.start("prospero", tree, versions=(1,), ftp=("h", 21)) as server:
        assert await ask(server, protocol.v5_request(b"/pub/hello.txt")) == (
            b"VERSION-NOT-SUPPORTED\n"
        )
        reply = protocol.parse_reply(await ask(server, protocol.v1_request(b"/pub/hello.txt")))
        assert reply.link == (server.info["self_host"], "/pub/hello.txt")
        assert [m.method for m in reply.methods] == ["AFTP", "LOCAL"]


class Scripted(asyncio.DatagramProtocol):
    """A misbehaving server: ``script(request_packet)`` gives (delay, datagram) answers."""

    def __init__(self, script: Any) -> None:
        self.script = script
        self.received: list[bytes] = []
        self.transport: asyncio.DatagramTransport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def datagram_received(self, data: bytes, addr: Any) -> None:
        self.received.append(data)
        packet = ardp.decode(data)
        loop = asyncio.get_running_loop()
        for delay, answer in self.script(packet):
            assert self.transport is not None
            loop.call_later(delay, self.transport.sendto, answer, addr)


async def scripted(script: Any, options: Options = FAST) -> tuple[bytes, Scripted]:
    loop = asyncio.get_running_loop()
    proto = Scripted(script)
    transport, _ = await loop.create_datagram_endpoint(lambda: proto, local_addr=("127.0.0.1", 0))
    try:
        port = transport.get_extra_info("sockname")[1]
        endpoint = await _open("127.0.0.1", port)
        try:
            reply = await exchange(endpoint, b"VERSION 5\n", options, where="test", cid=77)
        finally:
            endpoint.close()
        return reply, proto
    finally:
        transport.close()


def pkt(**kw: Any) -> bytes:
    return ardp.encode(ardp.Packet(**{"cid": 77, **kw}))


async def test_wait_notice_defers_the_retransmission() -> None:
    def script(p: ardp.Packet) -> list[tuple[float, bytes]]:
        # "wait 1 s", then the answer after 0.3 s: far beyond the 0.05 s retry timeout
        return [(0, pkt(seq=0, total=0, wait=1)), (0.3, pkt(payload=b"NONE-FOUND\n"))]

    reply, server = await scripted(script)
    assert reply == b"NONE-FOUND\n"
    assert len(server.received) == 1  # no retransmission while the server said "wait"


async def test_stray_and_malformed_datagrams_are_ignored() -> None:
    def script(p: ardp.Packet) -> list[tuple[float, bytes]]:
        return [
            (0, ardp.encode(ardp.Packet(cid=78, payload=b"not yours\n"))),
            (0, b"\xc0garbage"),  # ARDP version 3: ignored
            (0.01, pkt(payload=b"NONE-FOUND\n")),
        ]

    notes: list[str] = []
    reply, _ = await scripted(script, FAST.with_(transcript=lambda d, t: notes.append(t)))
    assert reply == b"NONE-FOUND\n"
    assert any("malformed datagram" in n for n in notes)


@pytest.mark.parametrize(
    ("answers", "error", "match"),
    [
        ([pkt(seq=4, total=3)], ProtocolError, "packet 4 of 3"),
        ([pkt(seq=1, total=2), pkt(seq=2, total=5)], ProtocolError, "total packets changed"),
        ([pkt(option=ardp.OPTION_CANCEL)], ConnectError, "refused"),
        ([pkt(seq=1, total=2, payload=b"x" * 600)], LimitExceeded, "longer than 500"),
    ],
)
async def test_misbehaving_server_gives_typed_errors(
    answers: list[bytes], error: type[Exception], match: str
) -> None:
    options = FAST.with_(max_buffered=500)
    with pytest.raises(error, match=match):
        await scripted(lambda p: [(0, a) for a in answers], options)


async def test_test_server_answers_malformed_requests_with_error(tree: Path) -> None:
    async with await testservers.start("prospero", tree) as server:
        reply = await ask(server, b"VERSION 5\nGET-OBJECT-INFO ACCESS-METHOD ASCII 'open\n")
        assert reply.startswith(b"ERROR malformed request: unterminated quote")
        assert await ask(server, b"HELLO\n") == b"ERROR first line must be VERSION\n"
        assert b"AFTP" in await ask(server, protocol.v5_request(b"/pub/data.bin"))  # still serving


async def test_sequenced_control_packet_holds_its_place_without_data() -> None:
    def script(p: ardp.Packet) -> list[tuple[float, bytes]]:
        return [
            (0, pkt(seq=1, total=3, payload=b"NONE-")),
            (0, pkt(seq=2, total=3, flags=ardp.FLAG_SEQUENCED_CONTROL, payload=b"XXX")),
            (0, pkt(seq=3, total=3, payload=b"FOUND\n")),
        ]

    reply, _ = await scripted(script)
    assert reply == b"NONE-FOUND\n"


async def test_table_from_a_json_file_in_the_root(tree: Path) -> None:
    (tree / "prospero-table.json").write_text(
        '{"/x": {"methods": {"0": [["AFTP", "INTERNET-D", "h(2121)", "ASCII", "/x", "TEXT"]]}},'
        ' "/y": {"forward": ["h(1525)", "/x"]}}'
    )
    async with await testservers.start("prospero", tree) as server:
        assert await ask(server, protocol.v5_request(b"/x")) == (
            b"ATTRIBUTE OBJECT INTRINSIC ACCESS-METHOD SEQUENCE AFTP INTERNET-D h(2121) ASCII "
            b"/x TEXT\n"
        )
        assert await ask(server, protocol.v5_request(b"/y")) == (
            b"FORWARDED OBJECT INTERNET-D h(1525) ASCII /x 0\n"
        )
        assert await ask(server, protocol.v5_request(b"/pub/hello.txt")) == (
            b"FAILURE NOT-FOUND OBJECT /pub/hello.txt\n"
        )


async def test_objects_short_form_adds_to_the_table(tree: Path) -> None:
    objects = {
        "/pros/name": {"method": "AFTP", "host": "ds.internic.net", "path": "/rfc/rfc1630.txt"},
        "/gone": {"forward": ["h(1525)", "/pros/name"]},
    }
    async with await testservers.start("prospero", tree, objects=objects) as server:
        assert await ask(server, protocol.v5_request(b"/pros/name")) == (
            b"ATTRIBUTE OBJECT INTRINSIC ACCESS-METHOD SEQUENCE AFTP INTERNET-D ds.internic.net "
            b"ASCII /rfc/rfc1630.txt\n"
        )
        assert await ask(server, protocol.v5_request(b"/gone")) == (
            b"FORWARDED OBJECT INTERNET-D h(1525) ASCII /pros/name 0\n"
        )
        assert b"AFTP" in await ask(server, protocol.v5_request(b"/pub/data.bin"))  # defaults too
