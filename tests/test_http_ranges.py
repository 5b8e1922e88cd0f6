"""Resuming over HTTP, decided by pure functions (RFC 9110 §13.1.5, §14.4)."""

from __future__ import annotations

import pytest

from omniurl.resolvers.errors import ProtocolError
from omniurl.resolvers.http.ranges import (
    ContentRange,
    parse_content_range,
    range_headers,
    range_outcome,
    validator_of,
)


@pytest.mark.parametrize(
    ("value", "parsed"),
    [
        ("bytes 42-1233/1234", ContentRange(42, 1233, 1234)),  # RFC 9110 §14.4's examples
        ("bytes 42-1233/*", ContentRange(42, 1233, None)),
        ("bytes */1234", ContentRange(None, None, 1234)),
        ("BYTES 0-0/1", ContentRange(0, 0, 1)),
    ],
)
def test_content_range_parses(value: str, parsed: ContentRange) -> None:
    assert parse_content_range(value) == parsed


@pytest.mark.parametrize(
    "value", ["bytes 5-4/10", "bytes 0-10/10", "bytes=0-1/2", "items 0-1/2", "bytes 1-/2", ""]
)
def test_malformed_content_range_is_a_protocol_error(value: str) -> None:
    with pytest.raises(ProtocolError) as err:
        parse_content_range(value)
    assert err.value.component == "content-range"


def test_range_headers() -> None:
    assert range_headers(0, '"abc"') == []
    assert range_headers(1000) == [("Range", "bytes=1000-")]
    assert range_headers(1000, '"abc"') == [("Range", "bytes=1000-"), ("If-Range", '"abc"')]
    # a weak validator is not allowed in If-Range (§13.1.5): the range is asked unconditionally
    assert range_headers(7, 'W/"abc"') == [("Range", "bytes=7-")]


def test_validator_prefers_a_strong_etag() -> None:
    date = "Tue, 24 Nov 2026 02:00:00 GMT"
    assert validator_of({"etag": '"x"', "last-modified": date}) == '"x"'
    assert validator_of({"etag": 'W/"x"', "last-modified": date}) == date
    assert validator_of({}) is None


def test_outcomes() -> None:
    assert range_outcome(206, "bytes 100-199/200", 100) == "append"
    assert range_outcome(200, None, 100) == "restart"  # range ignored: never append
    assert range_outcome(416, "bytes */100", 100) == "complete"
    assert range_outcome(416, "bytes */50", 100) == "refetch"
    assert range_outcome(416, None, 100) == "refetch"
    with pytest.raises(ProtocolError, match="asked for bytes from 100"):
        range_outcome(206, "bytes 0-199/200", 100)
    with pytest.raises(ProtocolError, match="without a Content-Range"):
        range_outcome(206, None, 100)
