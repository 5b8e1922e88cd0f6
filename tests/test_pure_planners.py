"""The planners are functions of their arguments: what they need to know about the machine
(its name for file:, the time for mailto:'s Date) is passed in by the resolver."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from omniurl import schemes
from omniurl.resolvers.errors import PlanError
from omniurl.resolvers.file.planner import plan_file
from omniurl.resolvers.mailto.planner import plan_mailto
from omniurl.resolvers.options import Options


def test_file_planner_takes_this_machines_name() -> None:
    url = schemes.parse("file://box.example.org/etc/motd")
    assert (
        plan_file(url, Options(), hostname="box.example.org").steps[0].shown.endswith("/etc/motd")
    )
    assert plan_file(schemes.parse("file://box/etc/motd"), Options(), hostname="box.example.org")
    with pytest.raises(PlanError, match="names a file on the machine"):
        plan_file(url, Options(), hostname="other.example.org")
    with pytest.raises(PlanError):
        plan_file(url, Options())  # no name given: only "" and localhost are this machine


def test_mailto_planner_dates_the_message_with_the_time_given() -> None:
    url = schemes.parse("mailto:someone@example.org?subject=hi")
    when = datetime(1994, 12, 1, 12, 0, 0, 123456, tzinfo=timezone(timedelta(hours=1)))
    first = plan_mailto(url, Options(email="me@example.org"), now=when)
    again = plan_mailto(url, Options(email="me@example.org"), now=when)
    assert first.to_json() == again.to_json()
    text = "\n".join(step.shown for step in first.steps)
    assert "Date: Thu, 01 Dec 1994 12:00:00 +0100" in text
    later = plan_mailto(url, Options(email="me@example.org"), now=when + timedelta(days=1))
    assert "Date: Fri, 02 Dec 1994 12:00:00 +0100" in "\n".join(s.shown for s in later.steps)
