"""Trust on first use: the Gemini specification's recommended way to trust a server.

Most Gemini servers present self-signed certificates, so a CA cannot vouch for them.  The
first certificate met for a ``host:port`` is remembered in a known-hosts file — one line per
``host:port``, its SHA-256 fingerprint and its expiry (UTC) — and a later connection
presenting another certificate is refused, both fingerprints shown, unless the new one is
also valid for a CA in the trust store (``--cacert``, or the system's), in which case the pin
is updated.  ``-k/--insecure`` checks nothing.

The file's format, one line per host::

    example.org:1965 SHA256:9f86d081…0f00a08 2027-11-27T00:00:00Z

(the fingerprint in full: 64 hex digits).

Pure but for :meth:`KnownHosts.load` and :meth:`KnownHosts.record` (a file read, and an
atomic rewrite).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path

from omniurl.schemes.records import record

from ..errors import PolicyError

FILE_NAME = "gemini_known_hosts"


@record(frozen=True)
class Pin:
    """One known host's certificate: its SHA-256 (lower-case hex) and when it expires."""

    fingerprint: str
    expires: datetime | None = None

    def line(self, key: str) -> str:
        expires = "-" if self.expires is None else self.expires.strftime("%Y-%m-%dT%H:%M:%SZ")
        return f"{key} SHA256:{self.fingerprint} {expires}"

    @property
    def shown(self) -> str:
        expires = "" if self.expires is None else f", expires {self.expires:%Y-%m-%d}"
        return f"SHA256:{self.fingerprint}{expires}"


class CertificateChanged(PolicyError):
    """The server's certificate is not the one first met for this ``host:port`` and no CA
    in the trust store vouches for it: refused before the request was sent."""

    def __init__(self, message: str, *, known: Pin, presented: Pin) -> None:
        super().__init__(message, component="host")
        self.known = known
        self.presented = presented


def default_path(environ: Mapping[str, str] | None = None) -> Path:
    """``$XDG_DATA_HOME/omniurl/gemini_known_hosts`` (the XDG Base Directory
    specification; ``~/.local/share`` when unset or not absolute)."""
    env = os.environ if environ is None else environ
    base = env.get("XDG_DATA_HOME") or ""
    if not os.path.isabs(base):
        base = os.path.join(env.get("HOME") or os.path.expanduser("~"), ".local", "share")
    return Path(base) / "omniurl" / FILE_NAME


def host_key(host: str, port: int) -> str:
    """The file's key: the host as connected to (lower case, IPv6 in brackets) and port."""
    host = host.lower()
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"{host}:{port}"


def fingerprint(der: bytes) -> str:
    """A certificate's SHA-256 over its DER octets, lower-case hex."""
    return hashlib.sha256(der).hexdigest()


def pin_of(der: bytes) -> Pin:
    """The pin of a certificate (DER): its fingerprint and its notAfter."""
    from cryptography import x509

    try:
        expires: datetime | None = x509.load_der_x509_certificate(der).not_valid_after_utc
    except ValueError:  # (not X.509 we can read: pinned by its octets alone)
        expires = None
    return Pin(fingerprint(der), expires)


def parse_line(line: str) -> tuple[str, Pin] | None:
    """``host:port SHA256:hex expiry`` -> (key, pin); None for a blank, comment or bad line."""
    parts = line.split()
    if len(parts) < 2 or parts[0].startswith("#") or not parts[1].startswith("SHA256:"):
        return None
    expires: datetime | None = None
    if len(parts) > 2 and parts[2] != "-":
        try:
            expires = datetime.strptime(parts[2], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
        except ValueError:
            expires = None
    return parts[0], Pin(parts[1].removeprefix("SHA256:").lower(), expires)


class KnownHosts:
    """The known-hosts file: what was first met, by ``host:port``."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def load(self) -> dict[str, Pin]:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {}
        except OSError:
            return {}
        pins: dict[str, Pin] = {}
        for line in text.splitlines():
            parsed = parse_line(line)
            if parsed is not None:
                pins[parsed[0]] = parsed[1]
        return pins

    def lookup(self, key: str) -> Pin | None:
        return self.load().get(key)

    def record(self, key: str, pin: Pin) -> None:
        """Remember ``pin`` for ``key`` (replacing an older one): the file is rewritten
        whole under a temporary name and renamed over the old one, never left half
        written."""
        pins = self.load()
        pins[key] = pin
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".known_hosts.", dir=self.path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                for k, p in pins.items():
                    f.write(p.line(k) + "\n")
            os.replace(tmp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise


@record(frozen=True)
class Verdict:
    """What the pin check decided: ``trusted`` (the known certificate, or vouched for by a
    CA), ``first`` (first contact: to be recorded), or the refusal."""

    outcome: str  # "trusted" | "first" | "changed"
    note: str


def judge(known: Pin | None, presented: Pin) -> Verdict:
    """The pure decision: first contact, the same certificate, or a changed one (which the
    caller then asks a CA about before refusing)."""
    if known is None:
        return Verdict("first", f"first contact: the certificate {presented.shown} is recorded")
    if known.fingerprint == presented.fingerprint:
        return Verdict("trusted", f"the certificate matches the pin {known.shown}")
    return Verdict(
        "changed",
        f"the certificate changed: known {known.shown}, presented {presented.shown}",
    )


__all__ = [
    "FILE_NAME",
    "CertificateChanged",
    "KnownHosts",
    "Pin",
    "Verdict",
    "default_path",
    "fingerprint",
    "host_key",
    "judge",
    "parse_line",
    "pin_of",
]
