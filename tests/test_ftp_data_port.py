"""A passive data port the policy refuses is asked for again, never connected to.

vsftpd picks its passive port at random; now and then it lands on a port the policy blocks
(6566, 9000, 9042 …) and a 2,000-file mirror lost 1–3 files with ``PortRefused`` where lftp
and wget took them.  The plan shows the remedy as a conditional step ("the policy refused
the port EPSV named; at most 3 times"), the pure machine decides it with the policy, and
the executor only moves the bytes.  Each test scripts the control connection on loopback
and listens on the refused port with a recording server: it must see zero connections.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest
import pytest_asyncio
from _ftphttp import OPTS

from omniurl import resolvers
from omniurl.resolvers.errors import PortRefused
from omniurl.resolvers.ftp.machine import DataPortRefused, FTPMachine, OpenData, Send
from omniurl.resolvers.options import Options
from omniurl.resolvers.policy import DATA_PORT_RETRIES, DEFAULT
from omniurl.resolvers.ports import BLOCKED_PORTS
from omniurl.testservers import RunningServer
from omniurl.testservers.recording import recording_of, start_recording


@dataclass
class Ports:
    """A listener on a port the test's policy refuses, one on an allowed port, the policy."""

    refused: RunningServer
    allowed: RunningServer
    options: Options


@pytest_asyncio.fixture
async def ports() -> AsyncIterator[Ports]:
    refused = await start_recording()
    allowed = await start_recording(greeting=b"payload")
    # The refused listener's port joins the blocked list: a port nothing else may use, so
    # its zero connections prove the client never opened it.
    policy = DEFAULT.with_(blocked_ports=BLOCKED_PORTS | {refused.port})
    try:
        yield Ports(refused, allowed, OPTS.with_(policy=policy))
    finally:
        await refused.close()
        await allowed.close()


def epsv(port: int) -> bytes:
    return b"229 Entering Extended Passive Mode (|||%d|)\r\n" % port


def pasv(port: int) -> bytes:
    # the address (10.9.8.7) is ignored: curl CVE-2020-8284
    return b"227 Entering Passive Mode (10,9,8,7,%d,%d)\r\n" % (port >> 8, port & 0xFF)


async def scripted(answers: dict[bytes, list[bytes]]) -> RunningServer:
    """A control connection whose answers to a verb are taken in turn (the last repeats)."""
    asked: dict[bytes, int] = {}

    def respond(line: bytes) -> bytes | None:
        verb = line.split(b" ", 1)[0]
        script = answers.get(verb)
        if script is None:
            return None
        n = asked.get(verb, 0)
        asked[verb] = n + 1
        return script[min(n, len(script) - 1)]

    return await start_recording(greeting=b"220 scripted\r\n", respond=respond)


COMMON = {
    b"USER": [b"230 in\r\n"],
    b"TYPE": [b"200 ok\r\n"],
    b"RETR": [b"150 here it comes\r\n226 done\r\n"],
    b"QUIT": [b"221 bye\r\n"],
}


async def fetch(control: RunningServer, ports: Ports, lines: list[str]) -> bytes:
    options = ports.options.with_(transcript=lambda d, t: lines.append(f"{d} {t}"))
    resource = await resolvers.resolve(f"ftp://{control.netloc}/f.bin", options)
    read = asyncio.ensure_future(resource.read())
    await recording_of(ports.allowed).wait_for(lambda r: r.connections == 1)
    await ports.allowed.close()  # the data server's end of data
    return await asyncio.wait_for(read, 10)


async def test_epsv_is_sent_again_when_the_policy_refuses_its_port(ports: Ports) -> None:
    control = await scripted(
        {**COMMON, b"EPSV": [epsv(ports.refused.port), epsv(ports.allowed.port)]}
    )
    lines: list[str] = []
    try:
        assert await fetch(control, ports, lines) == b"payload"
        wire = bytes(recording_of(control).received)
    finally:
        await control.close()
    assert wire == b"USER anonymous\r\nTYPE I\r\nEPSV\r\nEPSV\r\nRETR f.bin\r\nQUIT\r\n"
    assert recording_of(ports.refused).connections == 0
    assert recording_of(ports.allowed).connections == 1
    refused = ports.refused.port
    lines = [line for line in lines if not line.startswith("* connect")]
    assert lines[:8] == [
        "< 220 scripted",
        "> USER anonymous",
        "< 230 in",
        "> TYPE I",
        "< 200 ok",
        "> EPSV",
        f"< 229 Entering Extended Passive Mode (|||{refused}|)",
        f"* data port {refused} refused (on the default policy's list of blocked ports): "
        "EPSV again (1 of at most 3)",
    ]
    assert lines[8:10] == ["> EPSV", f"< {epsv(ports.allowed.port).decode().strip()}"]


async def test_pasv_is_sent_again_when_the_policy_refuses_its_port(ports: Ports) -> None:
    control = await scripted(
        {
            **COMMON,
            b"EPSV": [b"500 no EPSV here\r\n"],
            b"PASV": [pasv(ports.refused.port), pasv(ports.allowed.port)],
        }
    )
    try:
        assert await fetch(control, ports, []) == b"payload"
        wire = bytes(recording_of(control).received)
    finally:
        await control.close()
    assert wire == b"USER anonymous\r\nTYPE I\r\nEPSV\r\nPASV\r\nPASV\r\nRETR f.bin\r\nQUIT\r\n"
    assert recording_of(ports.refused).connections == 0
    assert recording_of(ports.allowed).connections == 1


@pytest.mark.parametrize("verb", [b"EPSV", b"PASV"])
async def test_it_gives_up_after_three_more_asks_naming_port_and_reason(
    ports: Ports, verb: bytes
) -> None:
    """A server that names only refused ports: the command 1 + 3 times, then PortRefused
    naming the last port and why; no data connection, no RETR."""
    refused = ports.refused.port
    script = dict(COMMON)
    if verb == b"EPSV":
        script[b"EPSV"] = [epsv(refused)]
    else:
        script.update({b"EPSV": [b"502 no\r\n"], b"PASV": [pasv(refused)]})
    control = await scripted(script)
    try:
        with pytest.raises(PortRefused) as info:
            await resolvers.resolve(f"ftp://{control.netloc}/f.bin", ports.options)
        await asyncio.sleep(0.05)  # (anything still on its way arrives)
        sent = recording_of(control).lines()
    finally:
        await control.close()
    asks = [b"EPSV"] + ([verb] * (1 + DATA_PORT_RETRIES) if verb == b"PASV" else [b"EPSV"] * 3)
    assert sent == [b"USER anonymous", b"TYPE I", *asks]
    assert recording_of(ports.refused).connections == 0
    assert recording_of(ports.allowed).connections == 0
    error = info.value
    assert (error.port, error.reason) == (refused, "on the default policy's list of blocked ports")
    assert error.component == "port"
    assert error.sent == ("USER anonymous", "TYPE I", *(a.decode() for a in asks))
    assert str(error).startswith(
        f"the server's data port {refused} refused: on the default policy's list of blocked "
        f"ports; the server named 4 data ports, each refused; allow it with --allow-port "
        f"{refused} (refused after sending: USER anonymous, TYPE I, EPSV"
    )


def test_the_machine_decides_with_the_policy_and_the_plan_alone() -> None:
    """Pure: bytes in, events out.  A real blocked port (6566, SANE, on Fetch's list) and a
    cross-protocol one (9000), then an allowed one; the refusals are events for ``-v``."""
    plan = resolvers.plan("ftp://h/f.bin", Options(email="me@example.org"))
    machine = FTPMachine(plan, policy=DEFAULT)
    replies = iter(
        [b"220 hi\r\n", b"230 in\r\n", b"200 ok\r\n", epsv(6566), epsv(9000), epsv(40001)]
    )
    machine.receive_data(next(replies))
    sent: list[bytes] = []
    refusals: list[DataPortRefused] = []
    while True:
        event = machine.next_event()
        if isinstance(event, Send):
            sent.append(event.data)
            machine.receive_data(next(replies))
        elif isinstance(event, DataPortRefused):
            refusals.append(event)
        elif isinstance(event, OpenData):
            break
    assert sent == [b"USER anonymous\r\n", b"TYPE I\r\n", b"EPSV\r\n", b"EPSV\r\n", b"EPSV\r\n"]
    assert event.port == 40001
    assert [(r.port, r.reason, r.refused, r.command) for r in refusals] == [
        (6566, "on the Fetch standard's list of bad ports", 1, "EPSV"),
        (9000, "a cross-protocol target (PHP-FPM (FastCGI))", 2, "EPSV"),
    ]


def test_an_allowed_port_is_allowed_at_once() -> None:
    """``--allow-port 6566``: the server's port is opened, no second EPSV."""
    plan = resolvers.plan("ftp://h/f.bin", Options(email="me@example.org"))
    machine = FTPMachine(plan, policy=DEFAULT.allowing_ports([6566]))
    for reply in (b"220 hi\r\n", b"230 in\r\n", b"200 ok\r\n", epsv(6566)):
        machine.receive_data(reply)
    events = []
    while not isinstance(event := machine.next_event(), OpenData):
        events.append(event)
    assert event.port == 6566
    assert [e.data for e in events if isinstance(e, Send)].count(b"EPSV\r\n") == 1
