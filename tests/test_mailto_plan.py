"""mailto planner (RFC 1738 §3.5, RFC 6068): the exact message and envelope, the SMTP steps,
and the policy's refusals (header injection, the allow-list, addr-spec) — pure."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import pytest

from omniurl import schemes
from omniurl.resolvers import Options, check, plan
from omniurl.resolvers.errors import (
    DelimiterRefused,
    HeaderRefused,
    MailAddressRefused,
    PlanError,
)
from omniurl.resolvers.mailto import split_addresses
from omniurl.resolvers.mailto.planner import MailtoDetails
from omniurl.resolvers.mailto.settings import MailtoOptions
from omniurl.resolvers.policy import DEFAULT, STRICT

DATE = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
BASE = Options(email="me@example.org", schemes=(MailtoOptions(date=DATE),))
RELAY = BASE.with_scheme(MailtoOptions(smtp="relay.example:2525", date=DATE))


def message_of(url: str, options: Options = BASE) -> bytes:
    return next(s for s in check(url, options).steps if s.kind == "message").data


def test_rfc1738_example_draft_is_the_exact_message() -> None:
    p = check("mailto:chris@example.org", BASE)
    assert (p.host, p.port, p.transport) == (None, None, None)
    assert [s.kind for s in p.steps] == ["info", "message"]
    assert p.steps[0].shown == (
        "no SMTP relay configured (--smtp HOST[:PORT]): output the message as a draft "
        "(message/rfc822); envelope MAIL FROM:<me@example.org> RCPT TO:<chris@example.org>"
    )
    assert p.steps[1].data == (
        b"From: me@example.org\r\n"
        b"To: chris@example.org\r\n"
        b"Date: Fri, 02 Jan 2026 03:04:05 +0000\r\n"
        b"Message-ID: <" + p.details_as(MailtoDetails).message_id[1:-1].encode() + b">\r\n"
        b'Content-Type: text/plain; charset="utf-8"\r\n'
        b"Content-Transfer-Encoding: 7bit\r\n"
        b"MIME-Version: 1.0\r\n"
        b"\r\n"
        b"\r\n"  # the empty text/plain body is one empty line
    )
    # Deterministic: the same URL and options give the same message (the plan is a function).
    assert message_of("mailto:chris@example.org") == p.steps[1].data


def test_rfc6068_fields_build_the_message() -> None:
    url = (
        "mailto:joe@example.org,bob@example.org?subject=Caf%C3%A9%20tonight%3F"
        "&cc=ann@example.org&body=Hello%20Joe%2C%0D%0A.see%20you%0D%0Aat%208"
        "&in-reply-to=%3C3469A91.D10AF4C%40example.com%3E"
    )
    data = message_of(url)
    head, _, body = data.partition(b"\r\n\r\n")
    assert head.split(b"\r\n")[:5] == [
        b"From: me@example.org",
        b"To: joe@example.org, bob@example.org",
        b"Cc: ann@example.org",
        b"Subject: =?utf-8?q?Caf=C3=A9?= tonight?",  # RFC 2047
        b"In-Reply-To: <3469A91.D10AF4C@example.com>",
    ]
    # The body's line breaks become CRLF; the leading dot is data (SMTP dot-stuffs it).
    assert body == b"Hello Joe,\r\n.see you\r\nat 8\r\n"


def test_non_ascii_body_is_quoted_printable_utf8() -> None:
    data = message_of("mailto:a@example.org?body=gr%C3%BC%C3%9Fe")
    assert b"Content-Transfer-Encoding: quoted-printable\r\n" in data
    assert data.endswith(b"\r\n\r\ngr=C3=BC=C3=9Fe\r\n")


def test_smtp_steps_are_the_envelope_then_the_message() -> None:
    p = check("mailto:joe@example.org?cc=ann@example.org&subject=hi", RELAY)
    assert (p.host, p.port, p.transport, p.explicit_port) == ("relay.example", 2525, "tcp", False)
    shown = p.to_json()["steps"]
    assert shown[:-2] == [
        "EHLO localhost",
        "MAIL FROM:<me@example.org>",
        "RCPT TO:<joe@example.org>",
        "RCPT TO:<ann@example.org>",
        "DATA",
    ]
    assert shown[-1] == "QUIT"
    assert p.steps[-2].kind == "message"
    assert shown[-2].startswith("From: me@example.org\r\nTo: joe@example.org\r\n")


def test_starttls_and_auth_steps() -> None:
    mine = replace(RELAY.of(MailtoOptions), starttls=True, smtp_user="demo")
    shown = check("mailto:joe@example.org", RELAY.with_scheme(mine)).to_json()["steps"]
    assert shown[:4] == [
        "EHLO localhost",
        "STARTTLS",
        "EHLO localhost",
        "AUTH (user 'demo', password ****)",
    ]


def test_relay_default_ports_and_from_option() -> None:
    p = check("mailto:a@example.org", BASE.with_(schemes=(MailtoOptions(smtp="mx.example"),)))
    assert p.port == 25
    mine = MailtoOptions(smtp="mx.example", tls=True, sender="boss@example.org", date=DATE)
    p = check("mailto:a@example.org", BASE.with_scheme(mine))
    assert p.port == 465
    assert p.to_json()["steps"][2] == "MAIL FROM:<boss@example.org>"
    # A relay on a port the URL policy would refuse is fine: the caller chose it, not a URL.
    assert (
        check(
            "mailto:a@example.org", BASE.with_(schemes=(MailtoOptions(smtp="mx.example:25"),))
        ).port
        == 25
    )


def test_bcc_goes_to_the_envelope_only_when_allowed() -> None:
    options = RELAY.with_(policy=DEFAULT.allowing_mail_headers(["Bcc"]))
    p = check("mailto:a@example.org?bcc=hidden@example.org", options)
    assert "RCPT TO:<hidden@example.org>" in p.to_json()["steps"]
    assert b"hidden" not in next(s for s in p.steps if s.kind == "message").data


@pytest.mark.parametrize(
    ("url", "field", "component"),
    [
        ("mailto:a@example.org?From=ceo@example.org", "From", "headers[0]"),
        ("mailto:a@example.org?subject=x&bcc=spy@example.org", "bcc", "headers[1]"),
        ("mailto:a@example.org?Received=from%20x", "Received", "headers[0]"),
        ("mailto:a@example.org?reply-to=evil@example.org", "reply-to", "headers[0]"),
        ("mailto:a@example.org?X-Mailer=omniurl", "X-Mailer", "headers[0]"),
    ],
)
def test_fields_outside_the_allow_list_are_refused(url: str, field: str, component: str) -> None:
    with pytest.raises(HeaderRefused) as info:
        check(url, BASE)
    assert info.value.field == field
    assert info.value.component == component
    assert f"--allow-header {field}" in str(info.value)
    # Allowed by the caller, the same URL plans, and the field is in the message.
    options = BASE.with_(policy=STRICT.allowing_mail_headers([field.upper()]))
    message = message_of(url, options)
    if field.lower() != "bcc":
        assert f"\r\n{field.lower()}: ".encode() in (b"\r\n" + message).lower()


@pytest.mark.parametrize(
    ("url", "component", "octet"),
    [
        ("mailto:a@example.org?subject=hi%0D%0ABcc:%20spy@example.org", "headers[0]", 0x0D),
        ("mailto:a@example.org?subject=hi%0ABcc:%20spy@example.org", "headers[0]", 0x0A),
        ("mailto:a@example.org?keywords=a%00b", "headers[0]", 0x00),
        ("mailto:a@example.org?body=a%00b", "headers[0]", 0x00),
        ("mailto:a@example.org?sub%0D%0Aject=x", "headers[0]", 0x0D),
    ],
)
def test_header_injection_is_refused(url: str, component: str, octet: int) -> None:
    with pytest.raises(DelimiterRefused) as info:
        check(url, BASE)
    assert (info.value.component, info.value.octet) == (component, octet)


def test_crlf_in_body_is_a_line_break_not_an_injection() -> None:
    data = message_of("mailto:a@example.org?body=Bcc:%20x%0D%0ATo:%20y")
    assert data.endswith(b"\r\n\r\nBcc: x\r\nTo: y\r\n")


@pytest.mark.parametrize(
    ("url", "component"),
    [
        ("mailto:not-an-address", "address"),
        ("mailto:a@example.org,bad@", "address[1]"),
        ("mailto:a@example.org?cc=Joe%20%3Cjoe@example.org%3E", "headers[0]"),
        ("mailto:a@example.org?to=x@y@z", "headers[0]"),
        ("mailto:a..b@example.org", "address"),
        ("mailto:%22a%0Db%22@example.org", "address"),
    ],
)
def test_addresses_must_be_addr_specs(url: str, component: str) -> None:
    with pytest.raises((MailAddressRefused, DelimiterRefused)) as info:
        check(url, BASE)
    assert info.value.component == component


def test_sender_must_be_an_addr_spec_too() -> None:
    with pytest.raises(MailAddressRefused) as info:
        check("mailto:a@example.org", BASE.with_(email="Me <me@example.org>"))
    assert info.value.component == "sender"


def test_percent_in_the_address_is_encoded() -> None:
    # §3.5: "%" must be encoded in a mailto address; %25 is a literal percent sign.
    p = check("mailto:chris%25jones@example.org", BASE)
    assert b"To: chris%jones@example.org\r\n" in p.steps[-1].data
    with pytest.raises(schemes.URLError):
        schemes.parse("mailto:chris%jones@example.org")


def test_no_recipient_is_a_plan_error() -> None:
    with pytest.raises(PlanError) as info:
        plan("mailto:?subject=hello", BASE)
    assert info.value.component == "address"


def test_to_field_alone_names_the_recipient() -> None:
    p = check("mailto:?to=joe@example.org&subject=hello", RELAY)
    assert "RCPT TO:<joe@example.org>" in p.to_json()["steps"]


def test_duplicate_subject_is_a_plan_error() -> None:
    with pytest.raises(PlanError) as info:
        plan("mailto:a@example.org?subject=one&subject=two", BASE)
    assert "cannot build the message" in str(info.value)


def test_body_from_options_when_the_url_has_none() -> None:
    options = BASE.with_scheme(MailtoOptions(date=DATE, body="typed\nat the terminal\n"))
    assert message_of("mailto:a@example.org", options).endswith(
        b"\r\n\r\ntyped\r\nat the terminal\r\n"
    )
    # The URL's body wins.
    assert message_of("mailto:a@example.org?body=url", options).endswith(b"\r\n\r\nurl\r\n")


def test_split_addresses_keeps_commas_inside_quotes() -> None:
    assert split_addresses('"a,b"@example.org, c@example.org,,') == [
        '"a,b"@example.org',
        "c@example.org",
    ]
