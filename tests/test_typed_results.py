"""Typed results: no string-keyed metadata, one frozen result per scheme.

* No module of ``omniurl/`` or ``resolvers/`` indexes, writes or calls a method of a
  ``.metadata`` (``resource.metadata["status"]``, ``.metadata.get(…)``), passes
  ``metadata=`` (but to ``dataclasses.field``), or indexes into a ``["metadata"]`` (an AST
  scan, like tests/test_spec.py's).  Surfaces read ``Resource.status``/``modified``/
  ``total``/``validator``/``resumed``; a scheme's own facts are its result's attributes.
* Each built-in scheme's result, against the local test servers: exact values, and its
  ``to_json()`` exactly the ``"metadata"`` of ``omniurl get --json`` (a contract).
"""

from __future__ import annotations

import ast
import datetime
import os
from pathlib import Path

import pytest

from omniurl import testservers
from omniurl.resolvers import Options, resolve
from omniurl.resolvers.ftp.result import FTPResult
from omniurl.resolvers.gopher.result import GopherResult
from omniurl.resolvers.http.result import HTTPResult
from omniurl.resolvers.mailto.settings import Draft, MailtoOptions, Sent
from omniurl.resolvers.nntp.result import NNTPResult
from omniurl.resolvers.prospero.result import ProsperoResult
from omniurl.resolvers.resource import Resource, Resumed
from omniurl.resolvers.resume import Outcome
from omniurl.resolvers.telnet.result import TelnetResult
from omniurl.resolvers.telnet.settings import TelnetOptions
from omniurl.resolvers.wais.result import WAISResult

ROOT = Path(__file__).resolve().parent.parent
#: The modules scanned: the surfaces and the resolvers (omniurl/resolvers is a symlink to
#: resolvers/, scanned once).
SCANNED = (ROOT / "omniurl", ROOT / "resolvers")
SKIPPED = {ROOT / "omniurl" / name for name in ("schemes", "resolvers", "testservers")}
#: ``dataclasses.Field.metadata`` (the record of a flag, resolvers/spec.py), not a resource's.
FIELD_RECEIVERS = {"f"}

HELLO = b"hello, typed world\n"


def _modules() -> list[Path]:
    found = []
    for top in SCANNED:
        for path in sorted(top.rglob("*.py")):
            if not any(path.is_relative_to(s) for s in SKIPPED):
                found.append(path)
    return found


def _metadata_attr(node: ast.AST) -> bool:
    """``X.metadata`` where X is not a dataclass field."""
    if not (isinstance(node, ast.Attribute) and node.attr == "metadata"):
        return False
    return not (isinstance(node.value, ast.Name) and node.value.id in FIELD_RECEIVERS)


def _metadata_key(node: ast.AST) -> bool:
    """``X["metadata"]``."""
    return (
        isinstance(node, ast.Subscript)
        and isinstance(node.slice, ast.Constant)
        and node.slice.value == "metadata"
    )


def _is_field_call(call: ast.Call) -> bool:
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    return name == "field"


def _passes_metadata(call: ast.Call) -> bool:
    """``metadata=`` to anything but ``dataclasses.field``."""
    return any(k.arg == "metadata" for k in call.keywords) and not _is_field_call(call)


def metadata_bag_uses(source: str) -> list[int]:
    """The lines of ``source`` that use a string-keyed metadata bag (see module doc)."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Subscript) and (
            _metadata_attr(node.value) or _metadata_key(node.value)
        ):
            lines.append(node.lineno)  # .metadata["k"], x["metadata"]["k"] (read or write)
        elif isinstance(node, ast.Attribute) and _metadata_attr(node.value):
            lines.append(node.lineno)  # .metadata.get(...), .update(...), .setdefault(...)
        elif isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(_metadata_attr(t) for t in targets):
                lines.append(node.lineno)  # resource.metadata = {...}
        elif isinstance(node, ast.Call) and _passes_metadata(node):
            lines.append(node.lineno)  # Resource(..., metadata={...}), d.update(metadata=)
    return sorted(lines)


def test_the_scan_finds_every_form_of_a_metadata_bag() -> None:
    """The scan itself can fail: each form it forbids is found, the allowed ones are not."""
    bad = "\n".join(
        [
            "a = r.metadata['status']",
            "r.metadata['bytes'] = 1",
            "b = r.metadata.get('size')",
            "r.metadata.update(bytes=1)",
            "r.metadata = {}",
            "Resource(plan, metadata={'k': 1})",
            "d['metadata']['transcript'] = 't'",
        ]
    )
    assert metadata_bag_uses(bad) == [1, 2, 3, 4, 5, 6, 7]
    good = "\n".join(
        [
            "x = field(default=1, metadata=meta)",
            "y = dataclasses.field(default=1, metadata=meta)",
            "z = f.metadata['flag']",
            "doc = {**d, 'metadata': {**d['metadata'], 't': 1}}",
            "j = r.metadata",
        ]
    )
    assert metadata_bag_uses(good) == []


def test_no_module_reads_or_writes_a_metadata_bag() -> None:
    found = []
    for path in _modules():
        for line in metadata_bag_uses(path.read_text(encoding="utf-8")):
            found.append(f"{path.relative_to(ROOT)}:{line}")
    assert found == [], "string-keyed metadata (read the typed result instead): " + ", ".join(found)


def test_metadata_is_derived_from_the_result_and_read_only() -> None:
    """``Resource.metadata`` is the result's ``to_json()``: a new dict each time, so a write
    to it changes nothing; there is no ``metadata=`` to pass."""
    from omniurl.resolvers import plan as make_plan

    plan = make_plan("gopher://127.0.0.1/0/a")
    resource = Resource(plan, result=ProsperoResult(5))
    view = resource.metadata
    view["prospero_protocol_version"] = 1
    assert resource.metadata == {"prospero_protocol_version": 5}
    assert resource.describe()["metadata"] == {"prospero_protocol_version": 5}
    assert Resource(plan).metadata == {}
    assert Resource(plan, result=object()).metadata == {}  # a result without to_json
    with pytest.raises(TypeError):
        Resource(plan, metadata={"k": 1})  # type: ignore[call-arg]


# -- each scheme's result, against its local test server ------------------------------------


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "pub").mkdir()
    (tmp_path / "pub" / "hello.txt").write_bytes(HELLO)
    (tmp_path / "pub" / "bin.dat").write_bytes(bytes(range(256)) * 20)
    stamp = datetime.datetime(2024, 3, 5, 6, 7, 8, tzinfo=datetime.UTC).timestamp()
    os.utime(tmp_path / "pub" / "bin.dat", (stamp, stamp))
    return tmp_path


async def _resolved(url: str, options: Options | None = None) -> tuple[Resource, bytes]:
    async with resolve(url, options or Options()) as resource:
        body = await resource.read() if resource.kind == "content" else b""
        if resource.kind == "listing":
            await resource.collect_entries()
        return resource, body


async def test_http_result(root: Path) -> None:
    server = await testservers.start("http", root)
    try:
        resource, body = await _resolved(f"http://{server.netloc}/pub/hello.txt")
        result = resource.result_as(HTTPResult)
        assert result is not None and body == HELLO
        assert (result.status, result.location, result.resumed) == (200, None, None)
        assert result.headers["content-length"] == str(len(HELLO))
        assert result.validator is not None and result.validator == result.headers["etag"]
        assert (resource.status, resource.total) == (200, None)
        assert resource.validator == result.validator
        assert resource.metadata == {
            "status": 200,
            "headers": dict(result.headers),
            "location": None,
            "validator": result.validator,
        }
        # -C at byte 5: a 206 from 5 on, the complete length 19.
        options = Options(resume_from=5, resume_validator=result.validator)
        resource, body = await _resolved(f"http://{server.netloc}/pub/hello.txt", options)
        ranged = resource.result_as(HTTPResult)
        assert ranged is not None and body == HELLO[5:]
        assert (ranged.status, ranged.resumed, ranged.total) == (
            206,
            Resumed(Outcome.APPEND, 5),
            len(HELLO),
        )
        assert (resource.resumed, resource.total) == (Resumed(Outcome.APPEND, 5), len(HELLO))
        assert list(resource.metadata)[-3:] == ["resume", "offset", "total"]
        assert resource.metadata["resume"] == "append"  # (reading the JSON, as a program would)
        # Nothing missing: a 416 whose complete length is the offset.
        options = Options(resume_from=len(HELLO))
        resource, body = await _resolved(f"http://{server.netloc}/pub/hello.txt", options)
        done = resource.result_as(HTTPResult)
        assert done is not None and body == b""
        assert (done.status, done.unsatisfied, resource.resumed, resource.total) == (
            416,
            True,
            Resumed(Outcome.COMPLETE, len(HELLO)),
            len(HELLO),
        )
        assert resource.metadata == {
            "status": 416,
            "headers": dict(done.headers),
            "resume": "complete",
            "offset": len(HELLO),
            "total": len(HELLO),
        }
    finally:
        await server.close()


async def test_ftp_result(root: Path) -> None:
    server = await testservers.start("ftp", root)
    try:
        base = f"ftp://{server.netloc}/pub"
        resource, body = await _resolved(f"{base}/hello.txt")
        assert resource.result_as(FTPResult) == FTPResult(typecode="A")
        assert resource.metadata == {"type": "A"} and body == HELLO
        resource, _ = await _resolved(f"{base}/")
        listing = resource.result_as(FTPResult)
        assert listing is not None and listing.command in ("MLSD", "LIST")
        assert resource.metadata == {"command": listing.command}
        # -I: SIZE and MDTM, typed; the JSON's "modified" an HTTP-date.
        resource, _ = await _resolved(f"{base}/bin.dat", Options(head=True))
        when = datetime.datetime(2024, 3, 5, 6, 7, 8, tzinfo=datetime.UTC)
        assert resource.result_as(FTPResult) == FTPResult(
            head=True, size=5120, modified=when, total=5120
        )
        assert (resource.modified, resource.total, resource.size) == (when, 5120, 0)
        assert resource.metadata == {
            "head": True,
            "size": 5120,
            "modified": "Tue, 05 Mar 2024 06:07:08 GMT",
            "total": 5120,
        }
        # -C: REST from 5000 of 5120; then nothing missing.
        resource, body = await _resolved(f"{base}/bin.dat;type=i", Options(resume_from=5000))
        assert len(body) == 120
        assert resource.result_as(FTPResult) == FTPResult(
            typecode="I", resumed=Resumed(Outcome.APPEND, 5000), total=5120
        )
        assert resource.metadata == {"type": "I", "resume": "append", "offset": 5000, "total": 5120}
        resource, body = await _resolved(f"{base}/bin.dat;type=i", Options(resume_from=5120))
        assert body == b"" and resource.resumed == Resumed(Outcome.COMPLETE, 5120)
        assert resource.metadata == {
            "type": "I",
            "resume": "complete",
            "offset": 5120,
            "total": 5120,
        }
    finally:
        await server.close()


async def test_gopher_plus_result(root: Path) -> None:
    server = await testservers.start("gopher", root)
    try:
        base = f"gopher://{server.netloc}"
        resource, _ = await _resolved(f"{base}/0/pub/hello.txt%09%09!")
        result = resource.result_as(GopherResult)
        assert result is not None and result.single and len(result.items) == 1
        assert result.attributes["+INFO"] == f"0hello.txt\t/pub/hello.txt\t{server.host}\t" + (
            f"{server.port}\t+"
        )
        assert resource.metadata == {"attributes": dict(result.attributes)}
        resource, _ = await _resolved(f"{base}/1/pub%09%09$")
        every = resource.result_as(GopherResult)
        assert every is not None and not every.single
        assert sorted(item["+INFO"].split("\t")[0] for item in every.items) == [
            "0hello.txt",
            "9bin.dat",
        ]
        assert resource.metadata == {"attributes": [dict(item) for item in every.items]}
        resource, _ = await _resolved(f"{base}/0/pub/hello.txt")  # plain Gopher: no result
        assert (resource.result, resource.metadata) == (None, {})
    finally:
        await server.close()


async def test_nntp_result(tmp_path: Path) -> None:
    server = await testservers.start("nntp", tmp_path)
    try:
        resource, _ = await _resolved(f"nntp://{server.netloc}/omniurl.test")
        result = resource.result_as(NNTPResult)
        assert result is not None and result.reply is None and not result.starttls
        assert result.greeting == "201 posting prohibited (omniurl NNTP test server)"
        assert result.capabilities is not None and "OVER" in result.capabilities
        assert result.group is not None
        assert (result.group.count, result.group.low, result.group.high) == (3, 1, 3)
        assert resource.metadata == {
            "greeting": result.greeting,
            "capabilities": sorted(result.capabilities),
            "count": 3,
            "low": 1,
            "high": 3,
        }
        resource, body = await _resolved(f"nntp://{server.netloc}/omniurl.announce/10")
        article = resource.result_as(NNTPResult)
        assert article == NNTPResult(reply="220 10 <v0.1@omniurl.test>")
        assert resource.metadata == {"reply": "220 10 <v0.1@omniurl.test>"}
        assert b"Message-ID: <v0.1@omniurl.test>" in body
    finally:
        await server.close()


async def test_wais_result(root: Path) -> None:
    server = await testservers.start("wais", root)
    try:
        resource, _ = await _resolved(f"wais://{server.netloc}/pub?hello")
        assert resource.result_as(WAISResult) == WAISResult(1, "hello")
        assert resource.metadata == {"result_count": 1, "seed_words_used": "hello"}
        url = resource.entries[0].url
        assert url is not None
        resource, body = await _resolved(url)
        result = resource.result_as(WAISResult)
        assert result is not None and result.wtype == "TEXT" and body == HELLO
        assert resource.metadata == {"wtype": "TEXT", "chunk_size": result.chunk_size}
    finally:
        await server.close()


async def test_telnet_result(tmp_path: Path) -> None:
    server = await testservers.start("telnet", tmp_path)
    try:
        options = Options().with_scheme(TelnetOptions(login=True))
        async with resolve(f"telnet://demo:demo@{server.netloc}/", options) as resource:
            result = resource.result_as(TelnetResult)
            assert result == TelnetResult(
                host=server.host,
                port=server.port,
                user="demo",
                password_given=True,
                logged_in=True,
            )
            assert resource.metadata == {
                "host": server.host,
                "port": server.port,
                "user": "demo",
                "password_given": True,
                "advisory": True,
                "logged_in": True,
            }
    finally:
        await server.close()


async def test_mailto_results(tmp_path: Path) -> None:
    """A draft is a :class:`Draft`, a message sent a :class:`Sent`; both JSON as before."""
    options = Options(email="ann@example.org").with_scheme(MailtoOptions(date=_DATE))
    resource, body = await _resolved("mailto:joe@example.org?subject=hi", options)
    draft = resource.result_as(Draft)
    assert draft is not None and resource.result_as(Sent) is None
    assert (draft.sender, draft.recipients) == ("ann@example.org", ("joe@example.org",))
    assert draft.message_id is not None and draft.message_id.encode() in body
    assert resource.metadata == {
        "envelope": {"mail_from": "ann@example.org", "rcpt_to": ["joe@example.org"]},
        "message_id": draft.message_id,
        "sent": False,
    }
    server = await testservers.start("smtp", tmp_path)
    try:
        relay = options.with_scheme(MailtoOptions(smtp=server.netloc, date=_DATE))
        resource, _ = await _resolved("mailto:joe@example.org?subject=hi", relay)
        sent = resource.result_as(Sent)
        assert sent is not None and sent.relay == server.netloc
        assert sent.last_reply.startswith("250 ")
        assert resource.metadata == {
            "envelope": {"mail_from": "ann@example.org", "rcpt_to": ["joe@example.org"]},
            "message_id": sent.message_id,
            "sent": True,
            "relay": server.netloc,
        }
    finally:
        await server.close()


_DATE = datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=datetime.UTC)


def test_results_are_frozen() -> None:
    import dataclasses

    for result in (
        HTTPResult(200, {}),
        FTPResult(),
        GopherResult(()),
        NNTPResult(),
        WAISResult(),
        ProsperoResult(5),
        TelnetResult("h", 23, None, False, False),
        Resumed(Outcome.APPEND, 1),
    ):
        assert dataclasses.is_dataclass(result)
        with pytest.raises(dataclasses.FrozenInstanceError):
            result.__setattr__("x", 1)
