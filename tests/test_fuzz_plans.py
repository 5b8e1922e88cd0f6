"""A fuzz property over the planners of every scheme (not only the parser): whatever the text,
``parse`` + ``plan`` + the policy check raise nothing but omniurl's own typed errors.

(Structured inputs found ``mailto:a@%5Bx`` leaking the email package's AttributeError;
``benchmarks/fuzz_bench.py`` runs 10⁶ such inputs and counts untyped exceptions.)
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from omniurl import resolvers
from omniurl.resolvers import Options
from omniurl.resolvers.nntp.settings import NNTPOptions
from omniurl.schemes.errors import OmniurlError

SCHEMES = ["ftp", "http", "https", "gopher", "mailto", "news", "nntp", "telnet", "wais",
           "file", "prospero", "mid", "cid", "urn"]  # fmt: skip
#: Pieces that mean something to some scheme's grammar or planner.
PIECES = ["/", "//", ":", "@", "%", "%2F", "%09", "%00", "%0D%0A", "%5B", "%5D", "[", "]", "?",
          "#", ";type=a", ";type=d", ";type=x", "+", "!", "$", "~", ".", "..", "*", "<", ">",
          "%25", "%FF", "%C3%A9", "é", "\t", " ", "1", "7", "0", "a", "host", "127.0.0.1",
          "[::1]", "65536", "21", "user:pw@", "?subject=x", "&body=y", "=", ",",
          "%3A%3A"]  # fmt: skip

OPTIONS = Options(email="fuzz@example.org", schemes=(NNTPOptions(server="news.example:119"),))


@st.composite
def urls(draw: st.DrawFn) -> str:
    scheme = draw(st.sampled_from(SCHEMES))
    sep = draw(st.sampled_from(["://", ":", ":/", "://h/"]))
    rest = "".join(draw(st.lists(st.sampled_from(PIECES), max_size=12)))
    return scheme + sep + rest


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(urls())
def test_parse_plan_and_check_raise_only_typed_errors(text: str) -> None:
    for strict in (True, False):
        try:
            from omniurl import schemes

            url = schemes.parse(text, strict=strict)
            plan = resolvers.plan(url, OPTIONS)
            OPTIONS.policy.check_plan(plan)
            plan.to_json()
        except OmniurlError:
            pass
