"""FTP over TLS (RFC 4217): ftps: (implicit, port 990) and --ftp-ssl (explicit AUTH TLS),
with protected data connections (PBSZ 0, PROT P) resuming the control connection's TLS
session — exact commands on the wire against omniurl's servers (aioftp in implicit mode, a
small explicit-TLS one), vsftpd where installed."""

from __future__ import annotations

import ssl
from pathlib import Path

import pytest

from omniurl import resolvers, schemes, testservers
from omniurl.resolvers.errors import ConnectError, ReplyError
from omniurl.resolvers.ftp.settings import FTPOptions
from omniurl.resolvers.options import Options

trustme = pytest.importorskip("trustme", reason="trustme (test extra) is not installed")

PAYLOAD = bytes(range(256)) * 400  # 100 KiB, binary


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    # (a folder of its own: vsftpd serves it as its ftp user, who cannot enter pytest's 0700
    # tmp_path — and the test's TLS key beside it is no file to serve)
    root = tmp_path / "root"
    (root / "pub").mkdir(parents=True)
    (root / "pub" / "data.bin").write_bytes(PAYLOAD)
    return root


def test_ftps_parses_with_port_990() -> None:
    u = schemes.parse("ftps://u@h.example/pub/a.txt;type=a")
    assert isinstance(u, schemes.FTPURL) and u.scheme == "ftps"
    assert (u.effective_port, u.cwd, u.name, u.typecode) == (990, ("pub",), "a.txt", "a")


def test_plans_show_the_handshake_and_protection() -> None:
    implicit = resolvers.plan("ftps://h/pub/x.bin").to_json()["steps"]
    assert implicit[:5] == [
        "TLS handshake with h (its certificate verified)",
        "USER anonymous",
        "PASS ****",
        "PBSZ 0",
        "PROT P",
    ]
    explicit = resolvers.plan("ftp://h/pub/x.bin", Options(schemes=(FTPOptions(ssl=True),)))
    assert explicit.to_json()["steps"][:6] == [
        "AUTH TLS",
        "TLS handshake with h (its certificate verified)",
        "USER anonymous",
        "PASS ****",
        "PBSZ 0",
        "PROT P",
    ]
    assert resolvers.plan("ftp://h/pub/x.bin").to_json()["steps"][0] == "USER anonymous"


async def test_implicit_ftps_against_omniurls_server(
    tree: Path, pki: tuple[ssl.SSLContext, str]
) -> None:
    srv = await testservers.start("ftp", tree, tls=pki[0])
    try:
        url = f"ftps://127.0.0.1:{srv.port}/pub/data.bin"
        async with await resolvers.resolve(url, Options(ca_file=pki[1])) as res:
            assert await res.read() == PAYLOAD
        commands = srv.info["commands"]
        assert commands[0] == b"USER anonymous" and commands[1].startswith(b"PASS ")
        assert commands[2:5] == [b"PBSZ 0", b"PROT P", b"CWD pub"]
        async with await resolvers.resolve(
            f"ftps://127.0.0.1:{srv.port}/pub/", Options(ca_file=pki[1])
        ) as res:
            assert [e.url for e in res.entries] == [f"ftps://127.0.0.1:{srv.port}/pub/data.bin"]
    finally:
        await srv.close()


async def test_explicit_auth_tls_with_protected_data(
    tree: Path, pki: tuple[ssl.SSLContext, str]
) -> None:
    srv = await testservers.start("ftp-tls", tree, tls=pki[0], require_reuse=True)
    try:
        url = f"ftp://127.0.0.1:{srv.port}/pub/data.bin"
        options = Options(ca_file=pki[1], schemes=(FTPOptions(ssl=True),))
        async with await resolvers.resolve(url, options) as res:
            assert await res.read() == PAYLOAD
        assert srv.info["commands"] == [
            b"AUTH TLS",
            b"USER anonymous",
            srv.info["commands"][2],  # PASS <e-mail>
            b"PBSZ 0",
            b"PROT P",
            b"CWD pub",
            b"TYPE I",
            b"EPSV",
            b"RETR data.bin",
            b"QUIT",
        ]
        assert srv.info["commands"][2].startswith(b"PASS ")
        assert srv.info["data_tls"] == [("tls", True)]  # TLS, the session resumed
    finally:
        await srv.close()


async def test_a_server_refusing_auth_tls_is_an_error_with_nothing_in_clear(tree: Path) -> None:
    srv = await testservers.start("ftp-tls", tree, refuse_auth=True)
    try:
        url = f"ftp://127.0.0.1:{srv.port}/pub/data.bin"
        with pytest.raises(ReplyError) as info:
            await resolvers.resolve(url, Options(schemes=(FTPOptions(ssl=True),)))
        assert "AUTH TLS" in info.value.message
        assert srv.info["commands"] == [b"AUTH TLS"]  # no USER, no PASS in clear text
    finally:
        await srv.close()


async def test_an_untrusted_certificate_is_a_typed_error(tree: Path) -> None:
    srv = await testservers.start("ftp-tls", tree)  # its own throw-away CA: not trusted
    try:
        url = f"ftp://127.0.0.1:{srv.port}/pub/data.bin"
        with pytest.raises(ConnectError) as info:
            await resolvers.resolve(
                url, Options(schemes=(FTPOptions(ssl=True),), connect_timeout=5)
            )
        assert "certificate verification failed" in info.value.message
        assert srv.info["commands"] == [b"AUTH TLS"]
        insecure = Options(schemes=(FTPOptions(ssl=True),), verify_tls=False)
        async with await resolvers.resolve(url, insecure) as res:  # --insecure
            assert await res.read() == PAYLOAD
    finally:
        await srv.close()


# -- vsftpd (Debian's package; skipped where it is absent) ---------------------------------


@pytest.mark.parametrize("implicit", [False, True], ids=["explicit", "implicit"])
async def test_vsftpd_ftps(implicit: bool, tree: Path, tmp_path: Path) -> None:
    from _ftphttp import VSFTPD, VSFTPD_TLS_CONF, start_vsftpd, stop

    if not Path(VSFTPD).exists():
        pytest.skip("vsftpd is not installed (Debian package vsftpd; .ci/run installs it)")
    ca = trustme.CA()
    leaf = ca.issue_cert("127.0.0.1")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    leaf.cert_chain_pems[0].write_to_path(str(cert))
    leaf.private_key_pem.write_to_path(str(key))
    ca_file = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(ca_file))
    extra = VSFTPD_TLS_CONF.format(cert=cert, key=key, implicit="YES" if implicit else "NO")
    proc, port = await start_vsftpd(tree, tmp_path / "vsftpd", extra=extra)
    try:
        scheme = "ftps" if implicit else "ftp"
        options = Options(
            ca_file=str(ca_file),
            schemes=() if implicit else (FTPOptions(ssl=True),),
            read_timeout=10,
        )
        async with await resolvers.resolve(
            f"{scheme}://127.0.0.1:{port}/pub/data.bin", options
        ) as res:
            assert await res.read() == PAYLOAD  # vsftpd requires the session to be resumed
        async with await resolvers.resolve(f"{scheme}://127.0.0.1:{port}/pub/", options) as res:
            assert [e.name for e in res.entries] == ["data.bin"]
        if not implicit:  # force_anon_logins_ssl: without TLS vsftpd refuses the login
            with pytest.raises(resolvers.errors.ResolveError):
                await resolvers.resolve(
                    f"ftp://127.0.0.1:{port}/pub/data.bin", Options(read_timeout=10)
                )
    finally:
        await stop(proc)
