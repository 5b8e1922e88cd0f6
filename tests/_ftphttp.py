"""Helpers shared by the FTP, HTTP, file, policy and CLI tests (not a test module)."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import pwd
import shutil
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from _daemon_conf import VSFTPD_CONF, confinement_missing
from helpers import ROOT, free_port, run, run_omniurl

from omniurl.resolvers import Options

if TYPE_CHECKING:
    from omniurl.testservers.gemini import Certificates

#: Options every resolver test uses: short timeouts, a fixed e-mail, nothing from the caller's
#: environment (no proxies, no ~/.netrc, no terminal).
OPTS = Options(email="tester@example.org", connect_timeout=5, read_timeout=5)


def transcript() -> tuple[list[str], Options]:
    """Options whose transcript is collected in the returned list."""
    lines: list[str] = []
    return lines, OPTS.with_(transcript=lambda d, t: lines.append(f"{d} {t}"))


async def run_cli(
    *args: str, timeout: float = 60, cwd: Path | None = None
) -> tuple[int, bytes, bytes]:
    """Run ``python -m omniurl ARGS`` (bounded); the test's servers keep serving meanwhile."""
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    env["PYTHONPATH"] = os.pathsep.join(p for p in [str(ROOT), env.get("PYTHONPATH", "")] if p)
    env["EMAIL"] = "tester@example.org"
    env["HOME"] = str(cwd or ROOT)  # no ~/.netrc of the person running the tests
    return await run_omniurl(*args, timeout=timeout, cwd=cwd or ROOT, env=env)


async def wait_listening(port: int, timeout: float = 10) -> None:
    """Wait (bounded) until something accepts connections on 127.0.0.1:port."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        try:
            _r, w = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), 1)
        except (OSError, TimeoutError):
            if loop.time() > deadline:
                raise TimeoutError(f"nothing listens on port {port} after {timeout} s") from None
            await asyncio.sleep(0.05)
            continue
        self_connected = w.get_extra_info("sockname") == w.get_extra_info("peername")
        w.close()
        await w.wait_closed()
        if self_connected:
            # Nothing listened yet and the kernel picked ``port`` as the connection's own
            # source port (TCP's self-connect "succeeds"): not the daemon.
            await asyncio.sleep(0.05)
            continue
        return


async def stop(proc: asyncio.subprocess.Process) -> None:
    """Stop a daemon a test started (terminate, then kill; bounded)."""
    if proc.returncode is None:
        proc.terminate()
        try:
            await asyncio.wait_for(proc.wait(), 5)
        except TimeoutError:
            proc.kill()
            await proc.wait()


async def start_daemon(argv: list[str], port: int) -> asyncio.subprocess.Process:
    """Start a daemon (its output discarded) and wait (bounded) until it listens on ``port``;
    stop it if it never does."""
    proc = await asyncio.create_subprocess_exec(
        *argv, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )  # fmt: skip
    try:
        await wait_listening(port)
    except BaseException:
        await stop(proc)
        raise
    return proc


NGINX_CONF = """\
daemon off;
master_process off;
worker_processes 1;
pid {scratch}/nginx.pid;
error_log {scratch}/error.log warn;
events {{ worker_connections 64; }}
http {{
  access_log off;
  client_body_temp_path {scratch}/body;
  proxy_temp_path {scratch}/proxy;
  fastcgi_temp_path {scratch}/fastcgi;
  uwsgi_temp_path {scratch}/uwsgi;
  scgi_temp_path {scratch}/scgi;
  include /etc/nginx/mime.types;
  default_type application/octet-stream;
  sendfile on;
  server {{
    listen 127.0.0.1:{port};
    root {root};
    autoindex on;
    location = /moved {{ return 302 /pub/hello.txt; }}
    location = /to-file {{ return 302 file:///etc/passwd; }}
    location /secret/ {{ auth_basic "omniurl"; auth_basic_user_file {scratch}/htpasswd; }}
  }}
}}
"""

VSFTPD = "/usr/sbin/vsftpd"
NGINX = "/usr/sbin/nginx"
#: Debian's pure-ftpd conflicts with vsftpd (both are an ftp-server), so .ci/run unpacks its
#: package into /opt/omniurl-ci/pure-ftpd instead of installing it; an installed one is
#: used where there is one.
_PURE_PREFIX = next(
    (p for p in ("/", "/opt/omniurl-ci/pure-ftpd/") if os.path.exists(f"{p}usr/sbin/pure-ftpd")),
    "/",
)
PURE_FTPD = f"{_PURE_PREFIX}usr/sbin/pure-ftpd"
PURE_PW = f"{_PURE_PREFIX}usr/bin/pure-pw"
#: pure-ftpd's virtual user (pure-pw), mapped to the system user nobody.
PURE_USER = ("alice", "s3cret")
#: The login nginx asks for under /secret/ (auth_basic; nginx reads ``{PLAIN}`` passwords).
NGINX_USER = ("alice", "s3cret")


#: vsftpd's TLS settings (RFC 4217), for FTPS interop: a throw-away certificate, anonymous
#: logins and data forced onto TLS, session reuse required (vsftpd's default) — and modern
#: ciphers (3.0.3's default list is DES-CBC3-SHA alone, which OpenSSL 3 refuses).
VSFTPD_TLS_CONF = """\
ssl_enable=YES
rsa_cert_file={cert}
rsa_private_key_file={key}
allow_anon_ssl=YES
force_anon_logins_ssl=YES
force_anon_data_ssl=YES
require_ssl_reuse=YES
ssl_ciphers=HIGH
ssl_request_cert=NO
implicit_ssl={implicit}
"""


async def start_vsftpd(
    root: Path, scratch: Path, *, extra: str = ""
) -> tuple[asyncio.subprocess.Process, int]:
    """vsftpd on loopback with a private config, anonymous users confined to ``root``
    (:data:`_daemon_conf.VSFTPD_CONF`: started as root, chrooted; skips where it cannot)."""
    missing = confinement_missing()
    if missing is not None:
        pytest.skip(missing)
    if not root.stat().st_mode & 0o001:
        raise RuntimeError(
            f"{root}: vsftpd serves it as its ftp user, who cannot enter it (pytest's own "
            "tmp_path is 0700): give the tree a folder of its own, tmp_path / 'root'"
        )
    port = free_port()
    (scratch / "empty").mkdir(parents=True, exist_ok=True)
    conf = scratch / "vsftpd.conf"
    conf.write_text(
        VSFTPD_CONF.format(port=port, root=root, empty=scratch / "empty", scratch=scratch) + extra
    )
    return await start_daemon([VSFTPD, str(conf)], port), port


async def start_nginx(root: Path, scratch: Path) -> tuple[asyncio.subprocess.Process, int]:
    """nginx on loopback with a private config and prefix (no master, no daemon)."""
    port = free_port()
    scratch.mkdir(parents=True, exist_ok=True)
    conf = scratch / "nginx.conf"
    conf.write_text(NGINX_CONF.format(port=port, root=root, scratch=scratch))
    (scratch / "htpasswd").write_text(f"{NGINX_USER[0]}:{{PLAIN}}{NGINX_USER[1]}\n")
    argv = [NGINX, "-c", str(conf), "-p", str(scratch), "-e", str(scratch / "error.log")]
    return await start_daemon(argv, port), port


async def start_pureftpd(root: Path, scratch: Path) -> tuple[asyncio.subprocess.Process, int]:
    """pure-ftpd on loopback (MLSD, RFC 3659) with a virtual user (pure-pw) chrooted to
    ``root``, which must be readable by nobody; it runs in the foreground, its log discarded.
    pure-ftpd switches to the user's uid: starting it needs root."""
    port = free_port()
    scratch.mkdir(parents=True, exist_ok=True)
    user, password = PURE_USER
    passwd, pdb = scratch / "pureftpd.passwd", scratch / "pureftpd.pdb"
    # pure-pw hashes with argon2id at t=1023: 3.7 s a login here.  A SHA-512 crypt hash
    # (openssl passwd -6) in pure-pw's passwd format logs in at once.
    _rc, hashed, _err = await run(["openssl", "passwd", "-6", "-salt", "omniurl", password])
    nobody = pwd.getpwnam("nobody")
    home = f"{root}/./"  # "/./": chroot to root (pure-ftpd's virtual-user home syntax)
    passwd.write_text(
        f"{user}:{hashed.decode().strip()}:{nobody.pw_uid}:{nobody.pw_gid}::{home}::::::::::::\n"
    )
    await run([PURE_PW, "mkdb", str(pdb), "-f", str(passwd)])
    # -A chroot, -E no anonymous, -H no DNS lookups; -p passive ports in the dynamic range,
    # none of which the policy refuses (as for ProFTPD: PROFTPD_CONF)
    argv = [PURE_FTPD, "-S", f"127.0.0.1,{port}", "-l", f"puredb:{pdb}", "-A", "-E", "-H"]
    argv += ["-p", "49152:60999"]
    return await start_daemon(argv, port), port


APACHE = "/usr/sbin/apache2"
_APACHE_MODULES = "/usr/lib/apache2/modules"

APACHE_CONF = """\
{modules}
ServerName 127.0.0.1
Listen 127.0.0.1:{port}
PidFile {scratch}/apache.pid
ErrorLog {scratch}/error.log
User nobody
Group nogroup
DocumentRoot {root}/www
TypesConfig /etc/mime.types
<Directory {root}/www>
  Require all granted
</Directory>
<Location /digest/>
  AuthType Digest
  AuthName "omniurl"
  AuthDigestProvider file
  AuthUserFile {root}/auth/htdigest
  Require valid-user
</Location>
<Location /basic/>
  AuthType Basic
  AuthName "omniurl"
  AuthBasicProvider file
  AuthUserFile {root}/auth/htpasswd
  Require valid-user
</Location>
"""


async def start_apache(root: Path, scratch: Path) -> tuple[asyncio.subprocess.Process, int]:
    """Apache httpd in the foreground (``-X``) on loopback with a private config, serving
    ``root/www``: ``/basic/`` behind Basic and ``/digest/`` behind Digest (mod_auth_digest,
    realm "omniurl"), both for :data:`NGINX_USER`, whose password files go in ``root/auth``.
    ``root`` must be readable by nobody (Apache switches to it as root)."""
    import base64
    import hashlib

    port = free_port()
    scratch.mkdir(parents=True, exist_ok=True)
    user, password = NGINX_USER
    ha1 = hashlib.md5(f"{user}:omniurl:{password}".encode()).hexdigest()  # (htdigest's format)
    (root / "auth").mkdir(mode=0o755, exist_ok=True)
    (root / "auth" / "htdigest").write_text(f"{user}:omniurl:{ha1}\n")
    sha = base64.b64encode(hashlib.sha1(password.encode()).digest()).decode()
    (root / "auth" / "htpasswd").write_text(f"{user}:{{SHA}}{sha}\n")
    for name in ("htdigest", "htpasswd"):
        (root / "auth" / name).chmod(0o644)
    names = ["mpm_event", "authz_core", "authn_core", "authn_file", "authz_user",
             "auth_digest", "auth_basic", "mime", "dir"]  # fmt: skip
    modules = "\n".join(f"LoadModule {n}_module {_APACHE_MODULES}/mod_{n}.so" for n in names)
    conf = scratch / "apache.conf"
    conf.write_text(APACHE_CONF.format(modules=modules, port=port, root=root, scratch=scratch))
    return await start_daemon([APACHE, "-X", "-f", str(conf)], port), port


#: ProFTPD, like pure-ftpd, unpacked by .ci/run (it conflicts with vsftpd as a package).
PROFTPD = next(
    (p for p in ("/usr/sbin/proftpd", "/opt/omniurl-ci/proftpd-core/usr/sbin/proftpd")
     if os.path.exists(p)),
    "/usr/sbin/proftpd",
)  # fmt: skip

PROFTPD_CONF = """\
ServerType standalone
DefaultServer on
Port {port}
DefaultAddress 127.0.0.1
UseIPv6 off
UseReverseDNS off
User nobody
Group nogroup
PidFile {scratch}/proftpd.pid
ScoreboardFile {scratch}/proftpd.scoreboard
DelayTable none
WtmpLog off
TransferLog none
UseFtpUsers off
# Without a range ProFTPD picks passive ports of its own, below the kernel's ephemeral range
# too: 5984 (CouchDB), which the policy refuses, failed a resume test now and then.
PassivePorts 49152 60999
<Anonymous {root}>
  User nobody
  Group nogroup
  UserAlias anonymous nobody
  RequireValidShell off
</Anonymous>
"""


async def start_proftpd(root: Path, scratch: Path) -> tuple[asyncio.subprocess.Process, int]:
    """ProFTPD in the foreground on loopback, anonymous only, serving ``root`` (which nobody
    must be able to read; ProFTPD switches to nobody: starting it needs root)."""
    port = free_port()
    scratch.mkdir(parents=True, exist_ok=True)
    conf = scratch / "proftpd.conf"
    conf.write_text(PROFTPD_CONF.format(port=port, root=root, scratch=scratch))
    return await start_daemon([PROFTPD, "-n", "-q", "-c", str(conf)], port), port


async def resume_cut_transfer(url: str, whole: bytes, cut: int, folder: Path) -> bytes:
    """``get -v -C - -o FILE URL`` where a transfer cut at byte ``cut`` left its hidden
    ``.part``: checks that the file is ``whole`` afterwards and the ``.part`` gone; returns
    the transcript (stderr) for the server-specific checks."""
    out = folder / "big.bin"
    (folder / ".big.bin.part").write_bytes(whole[:cut])
    status, _out, err = await run_cli("get", "-v", "-C", "-", "-o", str(out), url)
    assert status == 0, err
    assert hashlib.sha256(out.read_bytes()).digest() == hashlib.sha256(whole).digest()
    assert f"> REST {cut}".encode() in err
    assert not (folder / ".big.bin.part").exists()
    return err


def write_tree(root: Path, files: dict[str, bytes]) -> Path:
    """``files`` (relative path: content; a path ending in "/" an empty directory) under
    ``root``, made as needed; returns ``root``."""
    root.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        if name.endswith("/"):
            (root / name).mkdir(parents=True, exist_ok=True)
            continue
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    return root


@contextlib.contextmanager
def world_readable_tree(files: dict[str, bytes]) -> Iterator[Path]:
    """A tree of ``files`` (relative path: content; a path ending in "/" an empty directory)
    everyone can read: for servers that serve as nobody (pytest's own folders are 0700).
    Removed afterwards."""
    root = write_tree(Path(tempfile.mkdtemp(prefix="omniurl-ftp-")), files)
    try:
        for path in [root, *root.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


@contextlib.asynccontextmanager
async def root_ftp_server(
    package: str,
    binary: str,
    start: Callable[[Path, Path], Awaitable[tuple[asyncio.subprocess.Process, int]]],
    files: dict[str, bytes],
    scratch: Path,
) -> AsyncIterator[str]:
    """An FTP server that serves as nobody (Pure-FTPd, ProFTPD) over a world-readable tree of
    ``files``; skips where .ci/run did not unpack ``package`` or the tests are not root."""
    if not os.path.exists(binary):
        pytest.skip(
            f"{binary} not found (.ci/run unpacks Debian's {package} into /opt/omniurl-ci/"
            f"{package}: installing it would remove vsftpd)"
        )
    if os.geteuid() != 0:
        pytest.skip(f"{package} switches to another user: starting it needs root")
    with world_readable_tree(files) as root:
        async with running(start, root, scratch) as netloc:
            yield netloc


@contextlib.asynccontextmanager
async def running(
    start: Callable[[Path, Path], Awaitable[tuple[asyncio.subprocess.Process, int]]],
    root: Path,
    scratch: Path,
) -> AsyncIterator[str]:
    """``start_vsftpd`` or ``start_nginx`` for the block; yields its ``127.0.0.1:port``."""
    proc, port = await start(root, scratch)
    try:
        yield f"127.0.0.1:{port}"
    finally:
        await stop(proc)


@contextlib.asynccontextmanager
async def daemon(argv: list[str], port: int) -> AsyncIterator[int]:
    """A daemon that listens on ``port`` (started, waited for: :func:`start_daemon`) for the
    block; yields the port."""
    proc = await start_daemon(argv, port)
    try:
        yield port
    finally:
        await stop(proc)


#: Debian's molly-brown (a Gemini server), or None.
MOLLY = shutil.which("molly-brown") or (
    "/usr/bin/molly-brown" if os.access("/usr/bin/molly-brown", os.X_OK) else None
)


@contextlib.asynccontextmanager
async def molly_brown(
    docs: Path, scratch: Path, extra: str = "", certs: Certificates | None = None
) -> AsyncIterator[int]:
    """molly-brown serving ``docs`` for the block, its configuration and logs in
    ``scratch``; yields its port.  molly-brown has no port 0, so a free port is picked
    first.  ``extra`` is more of its TOML configuration (after the top-level keys);
    ``certs`` its certificates (made in ``scratch/certs`` when not given)."""
    from omniurl.testservers.gemini import make_certificates

    assert MOLLY is not None
    certs = certs or make_certificates(scratch / "certs")
    port = free_port()
    config = scratch / "molly.conf"
    config.write_text(
        f'Port = {port}\nHostname = "127.0.0.1"\nCertPath = "{certs.server_cert}"\n'
        f'KeyPath = "{certs.server_key}"\nDocBase = "{docs}/"\n'
        f'AccessLog = "{scratch / "access.log"}"\nErrorLog = "{scratch / "error.log"}"\n{extra}'
    )
    async with daemon([MOLLY, "-c", str(config)], port):
        yield port
