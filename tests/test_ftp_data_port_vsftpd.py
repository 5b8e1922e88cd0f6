"""The data-port retries (``policy.DATA_PORT_RETRIES``) against vsftpd, whose passive ports
are confined by ``pasv_min_port``/``pasv_max_port``: a range the policy refuses whole is
asked for ``1 + DATA_PORT_RETRIES`` times and then refused with the ports and the reason
(exit status 2, nothing connected), as curl, which has no such policy, would connect to
them; a range with one refused port among ten gets every file (tests/test_ftp_data_port.py
scripts the same with a server of its own)."""

from __future__ import annotations

import asyncio
import json
import os
import re
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from _ftphttp import VSFTPD, run_cli, running, start_vsftpd, write_tree

from omniurl.resolvers.policy import DATA_PORT_RETRIES

pytestmark = pytest.mark.interop


Started = tuple[asyncio.subprocess.Process, int]


def _vsftpd(low: int, high: int) -> Callable[[Path, Path], Awaitable[Started]]:
    """vsftpd whose passive ports are ``low``-``high``."""

    async def start(root: Path, scratch: Path) -> Started:
        extra = f"pasv_min_port={low}\npasv_max_port={high}\n"
        return await start_vsftpd(root, scratch, extra=extra)

    return start


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    if not os.path.exists(VSFTPD):
        pytest.skip("vsftpd not installed (apt-get install vsftpd)")
    return write_tree(tmp_path / "root", {"hello.bin": b"hello\x00from vsftpd\n"})


async def test_a_range_refused_whole_is_asked_again_then_refused(
    tree: Path, tmp_path: Path
) -> None:
    # 6665-6669: IRC, on the Fetch standard's list of bad ports (resolvers/ports.py)
    async with running(_vsftpd(6665, 6669), tree, tmp_path / "vsftpd") as netloc:
        status, out, err = await run_cli("get", "-v", f"ftp://{netloc}/hello.bin;type=i")
    assert (status, out) == (2, b"")
    asked = re.findall(rb"\n< 229 Entering Extended Passive Mode \(\|\|\|(\d+)\|\)", err)
    assert len(asked) == 1 + DATA_PORT_RETRIES
    assert all(6665 <= int(port) <= 6669 for port in asked)
    last = asked[-1].decode()
    expected = (
        f"omniurl: the server's data port {last} refused: on the Fetch standard's list of bad "
        f"ports; the server named {1 + DATA_PORT_RETRIES} data ports, each refused; allow it "
        f"with --allow-port {last} (refused after sending: USER anonymous, PASS ****, TYPE I, "
        + ", ".join(["EPSV"] * (1 + DATA_PORT_RETRIES))
        + ")\n"
    )
    assert err.endswith(expected.encode()), err[-600:]
    assert b"RETR" not in err


async def test_one_refused_port_in_ten_costs_no_file(tree: Path, tmp_path: Path) -> None:
    """6000 (X11) is refused, 6001-6009 are not: 30 gets, every one complete."""
    out, manifest = tmp_path / "out", tmp_path / "rows.jsonl"
    async with running(_vsftpd(6000, 6009), tree, tmp_path / "vsftpd") as netloc:
        status, _out, _err = await run_cli(
            "get", "-s", "--manifest", str(manifest), "--create-dirs", "--output-dir",
            str(out), "-O", *(f"ftp://{netloc}/hello.bin;type=i" for _ in range(30)),
        )  # fmt: skip
    results = [json.loads(line) for line in manifest.read_text().splitlines()]
    assert status == 0 and len(results) == 30 and all(r["ok"] for r in results)
    assert {p.read_bytes() for p in out.iterdir()} == {b"hello\x00from vsftpd\n"}


async def test_a_text_file_resumed_is_the_bytes_of_one_transfer(tmp_path: Path) -> None:
    """vsftpd converting in ASCII mode (``ascii_download_enable``: LF sent as CR LF): a
    text file (TYPE A by its name, §3.2.3) resumed from a part is byte for byte the file
    one transfer saves, by ``-o`` and standard output alike (docs/ftp.md; before: resumed
    in TYPE I with REST at the part's length, the server's file from the wrong offset)."""
    if not os.path.exists(VSFTPD):
        pytest.skip("vsftpd not installed (apt-get install vsftpd)")
    text = b"".join(b"line %d\n" % n for n in range(20_000)) + b"a CR LF line\r\n"
    root = write_tree(tmp_path / "root", {"notes.txt": text})
    root.chmod(0o755)

    async def start(root: Path, scratch: Path) -> Started:
        return await start_vsftpd(root, scratch, extra="ascii_download_enable=YES\n")

    whole, resumed, out = tmp_path / "whole.txt", tmp_path / "resumed.txt", tmp_path / "o"
    async with running(start, root, tmp_path / "vsftpd") as netloc:
        url = f"ftp://{netloc}/notes.txt"
        status, _o, err = await run_cli("get", "-o", str(whole), url)
        assert status == 0, err
        one = whole.read_bytes()
        (tmp_path / ".resumed.txt.part").write_bytes(one[:50_000])
        status, _o, err = await run_cli("get", "-v", "-C", "-", "-o", str(resumed), url)
        assert status == 0, err
        assert b"> REST" not in err and b"> TYPE A" in err
        status, piped, err2 = await run_cli("get", url)
        assert status == 0, err2
        status, _raw, err3 = await run_cli("get", "-o", str(out), url + ";type=i")
        assert status == 0, err3
    assert resumed.read_bytes() == one == piped
    # what ASCII mode did: vsftpd sent each line with CR LF (a CR LF of the file as it
    # is), the saved file has LF; ;type=i is the file as stored
    assert out.read_bytes() == text
    assert one == text.replace(b"\r\n", b"\n")
