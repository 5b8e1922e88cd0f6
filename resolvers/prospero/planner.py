"""The pure half of the Prospero resolver: a prospero URL in, the ARDP datagrams out.

RFC 1738 §3.11: the directory server on ``<host>:<port>`` (default 1525) is asked for the
object's access methods.  The plan holds up to two datagram steps — the version-5
``GET-OBJECT-INFO ACCESS-METHOD`` request, then, only if the server answers
``VERSION-NOT-SUPPORTED``, the version-1 ``LIST ATTRIBUTES`` request — each the exact
Prospero message carried by ARDP (the ARDP header, its connection id and its retransmissions
live below the plan, as TCP's do for the line protocols).

The object version comes from the ``;OBJECT-VERSION=`` field (§3.11) or RFC 1630's ``%00``
(§6.4); both at once must agree.  Other ``;field=value`` pairs become ``SELECT LINK FIELD``
lines.  The hsoname, the version and the field values are tagged with the policy's
``prospero`` wire context.
"""

from __future__ import annotations

from typing import Protocol, cast

from omniurl.schemes.base import URL
from omniurl.schemes.percent import to_octets
from omniurl.schemes.records import record

from ..errors import PlanError
from ..options import Options
from ..plan import Condition, Plan, Role, Step, WireValue
from . import protocol

WIRE_CONTEXT = "prospero"


class ProsperoRole(Role):
    """The version-5 request, and the version-1 one a version-1 server gets instead."""

    V5_REQUEST = "v5-request"
    V1_REQUEST = "v1-request"


@record(frozen=True)
class Version:
    """A request's detail: the Prospero protocol version it speaks."""

    protocol: int


def v1_due(status: str) -> bool:
    """The version-1 request goes only after a version-5 one was answered
    ``VERSION-NOT-SUPPORTED`` (a server that speaks only the old protocol)."""
    return status == "VERSION-NOT-SUPPORTED"


#: The version-1 step's condition: the words and the decision the executor asks.
V1_CONDITION = Condition("reply VERSION-NOT-SUPPORTED", v1_due)


class _ProsperoLike(Protocol):
    """The fields of ``schemes.prospero.ProsperoURL`` the planner reads."""

    hostname: str
    port: int | None
    hsoname: str
    fields: tuple[tuple[str, str], ...]
    version: str | None

    @property
    def effective_port(self) -> int | None: ...


def object_version(url: _ProsperoLike) -> str | None:
    """The requested version: ``;OBJECT-VERSION=`` or RFC 1630's ``%00`` version."""
    from_field = [v for n, v in url.fields if n.upper() == "OBJECT-VERSION"]
    candidates = [v for v in (*from_field, url.version) if v is not None]
    if len(set(candidates)) > 1:
        raise PlanError(
            "the URL names two different object versions "
            f"({', '.join(repr(c) for c in candidates)}): ;OBJECT-VERSION= and %00 must agree",
            component="version",
        )
    return candidates[0] if candidates else None


def plan(url: URL, options: Options) -> Plan:
    """The datagrams ``url`` stands for; pure."""
    p = cast(_ProsperoLike, url)
    hsoname = to_octets(p.hsoname)
    version = object_version(p)
    extra_fields = tuple(
        (to_octets(n), to_octets(v)) for n, v in p.fields if n.upper() != "OBJECT-VERSION"
    )
    values = [WireValue("hsoname", hsoname, WIRE_CONTEXT)]
    if version is not None:
        values.append(WireValue("version", to_octets(version), WIRE_CONTEXT))
    for name, value in extra_fields:
        component = f"field[{name.decode('utf-8', 'surrogateescape')}]"
        values += [
            WireValue(component, name, WIRE_CONTEXT),
            WireValue(component, value, WIRE_CONTEXT),
        ]

    # NUL cannot be carried at all (not even quoted): the policy refuses it by name before
    # anything is sent, so no message is built around it.
    safe = all(b"\x00" not in v.value for v in values)
    v5 = (
        protocol.v5_request(hsoname, to_octets(version) if version else None, extra_fields)
        if safe
        else b""
    )
    steps = [
        Step(
            data=v5,
            shown=_show(v5),
            kind="datagram",
            values=tuple(values),
            role=ProsperoRole.V5_REQUEST,
            detail=Version(5),
        )
    ]
    why_not_v1 = _why_no_v1(hsoname, version, extra_fields)
    if why_not_v1 is None:
        v1 = protocol.v1_request(hsoname)
        steps.append(
            Step(
                data=v1,
                shown=_show(v1),
                kind="datagram",
                when=V1_CONDITION.text,
                values=(WireValue("hsoname", hsoname, WIRE_CONTEXT),),
                role=ProsperoRole.V1_REQUEST,
                detail=Version(1),
                condition=V1_CONDITION,
            )
        )
    else:
        steps.append(Step(data=b"", shown=f"(no version-1 fallback: {why_not_v1})", kind="info"))
    return Plan(
        url=url,
        scheme=url.scheme,
        host=p.hostname,
        port=p.effective_port,
        transport="udp",
        steps=tuple(steps),
        explicit_port=p.port is not None,
        details=ProsperoDetails(hsoname=p.hsoname, version=version, fields=tuple(p.fields)),
    )


@record(frozen=True)
class ProsperoDetails:
    """What the Prospero executor needs to follow a forward or explain a miss."""

    hsoname: str
    version: str | None
    fields: tuple[tuple[str, str], ...]


def _why_no_v1(hsoname: bytes, version: str | None, fields: tuple[object, ...]) -> str | None:
    if version is not None:
        return "version 1 cannot ask for an object version"
    if fields:
        return "version 1 cannot select on link fields"
    _directory, component = protocol.v1_split(hsoname)
    if not component or not protocol.is_v1_safe(hsoname):
        return "version 1 cannot quote this hsoname"
    return None


def _show(data: bytes) -> str:
    return data.decode("utf-8", "backslashreplace").rstrip("\n")
