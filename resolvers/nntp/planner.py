"""``news:`` and ``nntp:`` URLs as NNTP steps (pure: URL and options in, :class:`Plan` out).

What the URLs stand for (RFC 1738 §3.6, §3.7; RFC 3977 is the protocol, RFC 977's commands the
fallbacks)::

    news:<message-id>        ARTICLE <message-id>                   -> the article (content)
    news:<newsgroup>         GROUP, OVER (XOVER, LISTGROUP)         -> its articles (listing)
    news:*                   LIST ACTIVE (LIST)                     -> every group (listing)
    news:comp.*              LIST ACTIVE comp.* (LIST, filtered)    -> matching groups
    news://host/group        as news:group, on host (RFC 5538)
    snews://host/...         the same over TLS from the first byte (port 563)
    nntp://host/group/n      GROUP, ARTICLE n                       -> the article (content)
    nntp://host/group        GROUP, OVER (XOVER, LISTGROUP)         -> its articles (listing)

Every plan opens with ``CAPABILITIES`` and a conditional ``MODE READER`` (§5.3: only for a
server that lists MODE-READER, or one too old to know CAPABILITIES), carries conditional
``AUTHINFO USER``/``PASS`` steps when credentials are configured for the server (RFC 4643:
sent only after a ``480`` reply, and the refused command is then sent again), and ends with
``QUIT``.

§3.6: a ``news:`` URL names no server; it comes from ``NNTPOptions.server``
(``host[:port]``; the CLI fills it from ``--nntp-server`` or ``$NNTPSERVER``).  RFC 5538's
``news://server/…`` names one, which wins.  This module never reads the environment.

TLS: ``snews:`` opens with a TLS handshake (a plan step of its own); otherwise, after
CAPABILITIES, a conditional ``STARTTLS`` (RFC 4642) when the server lists it, then
CAPABILITIES again (§2.2.2) — with ``NNTPOptions.starttls`` = auto or require
(``--nntp-starttls``; the default, never, sends plain NNTP as curl does).
"""

from __future__ import annotations

from typing import Literal

from omniurl.resolvers.errors import ConfigurationError, PlanError
from omniurl.resolvers.options import Options
from omniurl.resolvers.plan import Condition, Plan, Step, WireValue
from omniurl.schemes.base import URL
from omniurl.schemes.errors import URLError
from omniurl.schemes.news import NewsURL
from omniurl.schemes.nntp import NNTPURL
from omniurl.schemes.percent import to_octets
from omniurl.schemes.records import record

from .conditions import (
    AUTH_PASS,
    AUTH_USER,
    CAPABILITIES_AGAIN,
    MODE_READER,
    NO_LIST_ACTIVE,
    NO_LIST_ACTIVE_FILTERED,
    NO_OVER,
    NO_XOVER,
    STARTTLS,
    NNTPRole,
    Seen,
    group_has_articles,
)
from .grammar import check_article_number, check_message_id, check_newsgroup, check_wildmat

# The typed options (the news: server, the listing's length) live in .settings.
from .settings import NNTPOptions, StartTLS

#: RFC 3977 §3 (and RFC 1738 §3.7): the NNTP port; RFC 5538 §2.1: snews, NNTP over TLS.
NNTP_PORT = 119
SNEWS_PORT = 563

#: The placeholder of a range the executor fills from the GROUP reply (decimal digits only).
RANGE = b"{range}"


@record(frozen=True)
class RangeSlot:
    """The detail of a step with a :data:`RANGE` placeholder, which the executor fills from
    the GROUP reply (decimal digits only, never URL data)."""

    placeholder: bytes = RANGE


def parse_server(spec: str) -> tuple[str, int, bool]:
    """``host[:port]`` (IPv6 in brackets) -> ``(host, port, port_given)``, or
    :class:`ConfigurationError` saying what is wrong with it."""
    text = spec.strip()
    host, port_text = text, ""
    if text.startswith("["):
        end = text.find("]")
        if end < 0:
            raise ConfigurationError(f"NNTP server {spec!r}: unclosed '['", component="host")
        host, rest = text[1:end], text[end + 1 :]
        if rest and not rest.startswith(":"):
            raise ConfigurationError(f"NNTP server {spec!r}: junk after ']'", component="host")
        port_text = rest[1:]
    elif text.count(":") == 1:
        host, port_text = text.split(":")
    if not host or any(c.isspace() or c in "/@?#" for c in host):
        raise ConfigurationError(
            f"NNTP server {spec!r} is not host[:port] (IPv6 in brackets)", component="host"
        )
    if port_text == "":
        return host.lower(), NNTP_PORT, False
    if not (port_text.isascii() and port_text.isdigit()) or not 0 < int(port_text) < 65536:
        raise ConfigurationError(f"NNTP server {spec!r}: bad port {port_text!r}", component="port")
    return host.lower(), int(port_text), True


NNTPResult = Literal["article", "articles", "groups"]


@record(frozen=True)
class NNTPDetails:
    """What the NNTP executor needs beyond the steps (typed; never sent)."""

    #: An article's text, a group's article list, or the list of groups.
    result: NNTPResult
    #: The group as sent (checked against RFC 3977's grammar), for a group or an article.
    group: bytes | None
    #: The most articles a group listing asks for (``--nntp-max-articles``).
    max_articles: int
    #: TLS from the first byte (snews:).
    tls: bool = False
    #: A wildmat whose LIST fallback the executor filters (RFC 977 servers), or None.
    wildmat: bytes | None = None
    #: "require": refuse a server whose CAPABILITIES does not list STARTTLS.
    require_starttls: bool = False


def plan_nntp(url: URL, options: Options) -> Plan:
    """The plan for a ``news:`` or ``nntp:`` URL (see the module's table)."""
    if isinstance(url, NewsURL):
        if url.hostname is not None:  # RFC 5538: the URL's server wins over configuration
            host, port = url.hostname, url.effective_port or NNTP_PORT
            explicit = url.port is not None
        else:
            host, port = _news_server(options)
            if url.scheme == "snews" and port == NNTP_PORT:
                port = SNEWS_PORT
            explicit = False  # configuration, not a URL-specified port (§6 is about the URL)
        newsgroup, message_id, article = url.newsgroup, url.message_id, None
    elif isinstance(url, NNTPURL):
        host, port, explicit = url.hostname, url.effective_port or NNTP_PORT, url.port is not None
        if not host:
            raise URLError("an nntp: URL names its server (§3.7)", component="host")
        newsgroup, message_id, article = url.newsgroup, None, url.article
    else:
        raise PlanError(f"the NNTP resolver plans news: and nntp: URLs, not {url.scheme}:")

    tls = url.scheme == "snews"
    starttls = _starttls_mode(options)
    steps: list[Step] = []
    if tls:
        steps.append(
            Step(
                data=b"",
                shown=f"TLS handshake with {host} (its certificate verified)",
                kind="info",
                role=NNTPRole.TLS,
            )
        )
    steps.append(_step("CAPABILITIES", NNTPRole.CAPABILITIES))
    if not tls and starttls != "never":
        steps.append(_step("STARTTLS", NNTPRole.STARTTLS, when=STARTTLS))
        steps.append(_step("CAPABILITIES", NNTPRole.CAPABILITIES, when=CAPABILITIES_AGAIN))
    steps += [
        _step("MODE READER", NNTPRole.MODE_READER, when=MODE_READER),
        *_auth_steps(host, options),
    ]
    limit = _max_articles(options)
    result: NNTPResult
    group: bytes | None = None
    wildmat: bytes | None = None
    if message_id is not None:
        wired = check_message_id(message_id)
        value = WireValue("message_id", wired[1:-1], "nntp")
        steps.append(_step(b"ARTICLE " + wired, NNTPRole.ARTICLE, values=[value]))
        result = "article"
    elif newsgroup == "*" and isinstance(url, NewsURL):
        steps.append(_step("LIST ACTIVE", NNTPRole.LIST_ACTIVE))
        steps.append(_step("LIST", NNTPRole.LIST, when=NO_LIST_ACTIVE))
        result = "groups"
    elif newsgroup and isinstance(url, NewsURL) and url.wildmat:
        # RFC 5538 §2.2 / RFC 3977 §7.6.3: the groups a wildmat matches
        wildmat = check_wildmat(newsgroup)
        value = WireValue("newsgroup", wildmat, "nntp")
        steps.append(_step(b"LIST ACTIVE " + wildmat, NNTPRole.LIST_ACTIVE, values=[value]))
        steps.append(_step("LIST", NNTPRole.LIST, when=NO_LIST_ACTIVE_FILTERED))
        result = "groups"
    elif newsgroup:
        group = check_newsgroup(newsgroup)
        steps += _group_steps(group, article, limit)
        result = "article" if article is not None else "articles"
    else:
        raise PlanError(f"{url} names neither a newsgroup nor a message-id", component="newsgroup")
    steps.append(_step("QUIT", NNTPRole.QUIT))
    return Plan(
        url=url,
        scheme=url.scheme,
        host=host,
        port=port,
        transport="tcp",
        steps=tuple(steps),
        explicit_port=explicit,
        details=NNTPDetails(
            result=result,
            group=group,
            max_articles=limit,
            tls=tls,
            wildmat=wildmat,
            require_starttls=starttls == "require" and not tls,
        ),
    )


def _starttls_mode(options: Options) -> str:
    mode = options.of(NNTPOptions).starttls
    try:
        return StartTLS(mode).value
    except ValueError:
        raise ConfigurationError(
            f"NNTPOptions.starttls is one of {', '.join(StartTLS)}, not {mode!r}"
        ) from None


def _group_steps(group: bytes, article: int | None, limit: int) -> list[Step]:
    """GROUP, then ARTICLE n (§3.7) or the overview of the newest ``limit`` articles."""
    value = WireValue("newsgroup", group, "nntp")
    steps = [_step(b"GROUP " + group, NNTPRole.GROUP, values=[value])]
    if article is not None:
        return [*steps, _step(f"ARTICLE {check_article_number(article)}", NNTPRole.ARTICLE)]
    listgroup = b"LISTGROUP " + group + b" " + RANGE
    return [
        *steps,
        _step(b"OVER " + RANGE, NNTPRole.OVER, when=group_has_articles(limit)),
        _step(b"XOVER " + RANGE, NNTPRole.XOVER, when=NO_OVER),
        _step(listgroup, NNTPRole.LISTGROUP, when=NO_XOVER, values=[value]),
    ]


def _news_server(options: Options) -> tuple[str, int]:
    """The server of a ``news:`` URL without one (RFC 1738 §3.6: "the news server is a
    configuration setting"); the error names what the caller can set: the command line's
    ``--nntp-server`` and ``$NNTPSERVER``, a program's ``NNTPOptions(server=...)`` (the
    library reads no environment variable: ``options_from_environment`` does, asked)."""
    spec = options.of(NNTPOptions).server
    if not spec:
        if options.command_line:
            ways = "set NNTPSERVER=host[:port] or pass --nntp-server host[:port]"
        else:
            ways = (
                "pass Options().with_scheme(NNTPOptions(server='host[:port]')) "
                "(omniurl.resolvers.nntp; a program reads no environment variable: "
                "options_from_environment() reads $NNTPSERVER as the command line does)"
            )
        raise ConfigurationError(
            f"a news: URL names no server (RFC 1738 §3.6): {ways}, or name one in the URL "
            "(RFC 5538: news://host[:port]/group or news://host/message-id)",
            component="host",
        )
    host, port, _given = parse_server(str(spec))
    return host, port


def _auth_steps(host: str, options: Options) -> list[Step]:
    """AUTHINFO USER/PASS (RFC 4643 §2.3) with ``Options.credentials`` for the server (the
    CLI reads ~/.netrc); none when no credentials are configured for it.

    RFC 4643 §3.1 (erratum 1787) lets a server accept SP and TAB inside a user name or a
    password, and INN does: only the line's end (CR, LF, NUL) is refused, by the policy's
    "line" context.
    """
    found = options.user or options.credentials.get(host.lower())
    if found is None:
        return []
    user = to_octets(found[0])
    password = to_octets(found[1])
    return [
        _step(
            b"AUTHINFO USER " + user,
            NNTPRole.AUTH_USER,
            when=AUTH_USER,
            values=[WireValue("credentials.user", user, "line")],
        ),
        Step.line(
            b"AUTHINFO PASS " + password,
            shown="AUTHINFO PASS ****",
            when=AUTH_PASS,
            values=[WireValue("credentials.password", password, "line")],
            role=NNTPRole.AUTH_PASS,
        ),
    ]


def _max_articles(options: Options) -> int:
    value = options.of(NNTPOptions).max_articles
    try:
        limit = int(value)
    except (TypeError, ValueError):
        limit = 0
    if limit < 1:
        raise ConfigurationError(
            f"NNTPOptions.max_articles must be a positive number of articles, not {value!r}"
        )
    return limit


def _step(
    text: str | bytes,
    role: NNTPRole,
    *,
    when: Condition[Seen] | Condition[int] | None = None,
    values: list[WireValue] | None = None,
) -> Step:
    """A command line with its ``role`` (what the executor does with the reply).  A ``{range}``
    in it is filled by the executor from the GROUP reply — decimal digits, never URL data —
    and shown as ``<first>-<last>``."""
    data = text.encode() if isinstance(text, str) else text
    shown = data.decode("utf-8", "backslashreplace").replace("{range}", "<first>-<last>")
    detail = RangeSlot() if RANGE in data else None
    return Step.line(data, shown=shown, when=when, values=values or (), role=role, detail=detail)
