"""The pure planner: news: and nntp: URLs as exact NNTP command lines (RFC 1738 §3.6, §3.7)."""

from __future__ import annotations

import pytest

from omniurl import schemes
from omniurl.resolvers import Options, check, plan
from omniurl.resolvers.errors import ConfigurationError, DelimiterRefused, PortRefused
from omniurl.resolvers.nntp import NNTPResolver, options_from_environment
from omniurl.resolvers.nntp.planner import parse_server
from omniurl.resolvers.nntp.settings import NNTPOptions
from omniurl.resolvers.policy import STRICT
from omniurl.schemes.errors import SchemeSyntaxError, URLError

NEWS = Options(schemes=(NNTPOptions(server="news.example:1119"),))
COMMON = ["CAPABILITIES", "MODE READER"]


def steps(url: str, options: Options = NEWS) -> list[str]:
    return check(url, options).to_json()["steps"]


def test_news_message_id_is_article_with_brackets_added() -> None:
    p = check("news:1234@example.com", NEWS)
    assert (p.host, p.port, p.transport, p.explicit_port) == ("news.example", 1119, "tcp", False)
    assert p.to_json()["steps"] == [*COMMON, "ARTICLE <1234@example.com>", "QUIT"]
    article = p.steps[2]
    assert article.data == b"ARTICLE <1234@example.com>"
    assert [(v.component, v.value, v.context) for v in article.values] == [
        ("message_id", b"1234@example.com", "nntp")
    ]


def test_news_group_is_group_then_over_with_fallbacks() -> None:
    p = check("news:comp.lang.python", NEWS)
    assert p.to_json()["steps"] == [
        *COMMON,
        "GROUP comp.lang.python",
        "OVER <first>-<last>",
        "XOVER <first>-<last>",
        "LISTGROUP comp.lang.python <first>-<last>",
        "QUIT",
    ]
    by_shown = {s.shown: s for s in p.steps}
    assert by_shown["MODE READER"].when is not None
    assert by_shown["GROUP comp.lang.python"].when is None
    assert "newest 1000" in str(by_shown["OVER <first>-<last>"].when)
    assert by_shown["XOVER <first>-<last>"].when == "OVER answered 500, 501 or 503"
    assert by_shown["LISTGROUP comp.lang.python <first>-<last>"].when == (
        "XOVER answered 500, 501 or 503"
    )
    assert by_shown["GROUP comp.lang.python"].values[0].component == "newsgroup"


def test_news_star_lists_active_groups_falling_back_to_rfc977_list() -> None:
    p = check("news:*", NEWS)
    assert p.to_json()["steps"] == [*COMMON, "LIST ACTIVE", "LIST", "QUIT"]
    assert p.steps[3].when is not None and "RFC 977" in p.steps[3].when


def test_nntp_article_by_number() -> None:
    p = check("nntp://news.example.org/comp.lang.python/42", Options())
    assert (p.host, p.port, p.explicit_port) == ("news.example.org", 119, False)
    assert p.to_json()["steps"] == [*COMMON, "GROUP comp.lang.python", "ARTICLE 42", "QUIT"]


def test_nntp_group_listing_and_explicit_port() -> None:
    p = check("nntp://News.Example.org:1119/alt.test", Options())
    assert (p.host, p.port, p.explicit_port) == ("news.example.org", 1119, True)
    assert p.to_json()["steps"][2:4] == ["GROUP alt.test", "OVER <first>-<last>"]


def test_news_needs_a_configured_server() -> None:
    """A program is told the argument it has (before: "set NNTPSERVER", which a library
    call never reads, and the command line's --nntp-server)."""
    with pytest.raises(ConfigurationError) as info:
        plan("news:comp.lang.python", Options())
    assert info.value.component == "host"
    message = str(info.value)
    assert "NNTPOptions(server='host[:port]')" in message
    assert "news://host[:port]/group" in message
    assert "--nntp-server" not in message and "set NNTPSERVER" not in message
    # the command line's options: its flag and variable, not the API's
    with pytest.raises(ConfigurationError) as info:
        plan("news:comp.lang.python", Options(command_line=True))
    message = str(info.value)
    assert "set NNTPSERVER=host[:port] or pass --nntp-server host[:port]" in message
    assert "NNTPOptions" not in message


def test_nntp_needs_no_configuration() -> None:
    assert plan("nntp://h/g", Options()).host == "h"


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("news.example", ("news.example", 119, False)),
        ("News.Example:563", ("news.example", 563, True)),
        ("[::1]:1119", ("::1", 1119, True)),
        ("[::1]", ("::1", 119, False)),
        ("127.0.0.1:1119", ("127.0.0.1", 1119, True)),
    ],
)
def test_server_configuration(spec: str, expected: tuple[str, int, bool]) -> None:
    assert parse_server(spec) == expected


@pytest.mark.parametrize(
    "spec",
    # "\u00b2" (superscript two) is a str.isdigit() digit that int() refuses with ValueError;
    # "\u0661\u0661\u0669" (Arabic-Indic 119) is one int() accepts: neither is a port.
    [
        "",
        "host:0",
        "host:99999",
        "host:x",
        "[::1",
        "a b",
        "h/x",
        "h:\u00b2",
        "h:\u0661\u0661\u0669",
    ],
)
def test_bad_server_configuration(spec: str) -> None:
    with pytest.raises(ConfigurationError):
        parse_server(spec)


def test_configured_port_is_not_a_url_port() -> None:
    # §6 cautions about URL-specified ports; the configured server is the user's own choice.
    p = check("news:a.b", Options(schemes=(NNTPOptions(server="h:119"),), policy=STRICT))
    assert (p.port, p.explicit_port) == (119, False)


def test_policy_still_applies_to_nntp_url_ports() -> None:
    with pytest.raises(PortRefused):
        check("nntp://h:6379/g", Options())
    with pytest.raises(PortRefused):
        check("nntp://h:1119/g", Options(policy=STRICT))


def test_environment_is_read_by_the_options_layer_not_the_planner() -> None:
    assert options_from_environment({"NNTPSERVER": " news.example:1119 "}) == NNTPOptions(
        server="news.example:1119"
    )
    assert options_from_environment({}) == NNTPOptions()


def test_max_articles_option_shows_in_the_condition() -> None:
    p = plan("news:a.b", Options(schemes=(NNTPOptions(server="h", max_articles=20),)))
    assert "newest 20 article numbers" in str(p.steps[3].when)
    with pytest.raises(ConfigurationError):
        plan("news:a.b", Options(schemes=(NNTPOptions(server="h", max_articles=0),)))


# -- credentials ---------------------------------------------------------------------------


def test_authinfo_steps_are_conditional_and_the_password_masked() -> None:
    options = Options(
        schemes=(NNTPOptions(server="news.example"),),
        credentials={"news.example": ("fred", "s3 cret")},
    )
    p = check("news:a.b", options)
    shown = p.to_json()["steps"]
    assert shown[:4] == ["CAPABILITIES", "MODE READER", "AUTHINFO USER fred", "AUTHINFO PASS ****"]
    user, password = p.steps[2], p.steps[3]
    assert user.when == "reply 480 (then the refused command is sent again)"
    assert password.when == "reply 381"
    assert password.data == b"AUTHINFO PASS s3 cret"  # RFC 4643 erratum 1787: SP allowed
    assert [v.component for v in (*user.values, *password.values)] == [
        "credentials.user",
        "credentials.password",
    ]


def test_no_credentials_no_authinfo_steps() -> None:
    options = Options(
        schemes=(NNTPOptions(server="news.example"),), credentials={"other": ("u", "p")}
    )
    assert not any("AUTHINFO" in s for s in steps("news:a.b", options))


def test_credentials_with_line_ends_are_refused() -> None:
    options = Options(credentials={"h": ("fred", "x\r\nQUIT")})
    with pytest.raises(DelimiterRefused) as info:
        check("nntp://h/g", options)
    assert info.value.component == "credentials.password"


# -- what may go on the wire ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("field", "value", "octet"),
    [
        ("newsgroup", "comp.lang\r\nQUIT", 0x0D),
        ("newsgroup", "a b", 0x20),
        ("newsgroup", "a\tb", 0x09),
        ("message_id", "a b@example.com", 0x20),
        ("message_id", "x@y\nQUIT", 0x0A),
    ],
)
def test_delimiters_are_refused_by_the_policy(field: str, value: str, octet: int) -> None:
    url = schemes.scheme_class("news")(scheme="news", **{field: value})  # type: ignore[misc]
    with pytest.raises(DelimiterRefused) as info:
        check(url, NEWS)
    assert (info.value.component, info.value.octet) == (field, octet)


def test_nntp_url_newsgroup_delimiters_are_refused() -> None:
    base = schemes.parse("nntp://h/g")
    with pytest.raises(DelimiterRefused) as info:
        check(base.replace(newsgroup="g\r\nPOST"), Options())
    assert info.value.component == "newsgroup"


def test_grammar_errors_name_the_component() -> None:
    news = schemes.scheme_class("news")
    assert news is not None
    # "comp.*" is a wildmat now (RFC 5538 §2.2: LIST ACTIVE comp.*); "[" is reserved in one
    assert plan(news(scheme="news", newsgroup="comp.*"), NEWS).steps[2].data == (  # type: ignore[call-arg]
        b"LIST ACTIVE comp.*"
    )
    with pytest.raises(SchemeSyntaxError) as info:
        plan(news(scheme="news", newsgroup="comp.[ab]"), NEWS)  # type: ignore[call-arg]
    assert info.value.component == "newsgroup"
    with pytest.raises(SchemeSyntaxError) as info:
        plan(news(scheme="news", message_id="a>b@c"), NEWS)  # type: ignore[call-arg]
    assert info.value.component == "message_id"
    with pytest.raises(URLError) as info:
        plan(schemes.parse("nntp://h/g").replace(article=0), Options())
    assert info.value.component == "article"


def test_the_resolver_serves_both_schemes() -> None:
    assert set(NNTPResolver.schemes) == {"news", "snews", "nntp"}
