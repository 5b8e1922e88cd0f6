"""Any other scheme: the generic URL of §5 (``genericurl = scheme ":" schemepart``).

``x-`` schemes (§4, experimental) and schemes no parser is registered for parse here.  The
scheme-specific part is kept as written — without knowing the scheme, decoding it would lose
the difference between a reserved character and its escape (§2.2).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import grammar
from .authority import format_fragment, split_fragment
from .base import URL
from .percent import check

# schemepart = *xchar | ip-schemepart
_BAD_XCHARS = grammar.bad_char(grammar.XCHAR)


@dataclass(frozen=True, kw_only=True)
class GenericURL(URL):
    """``scheme:schemepart`` for a scheme omniurl has no parser for (§5)."""

    #: Everything between "scheme:" and "#", as written (still encoded).
    scheme_specific_part: str = ""

    @classmethod
    def from_text(cls, text: str, *, scheme: str, rest: str, strict: bool = True) -> GenericURL:
        start = len(text) - len(rest)
        end, fragment = split_fragment(text, start, strict)
        if strict:
            check(text, start, end, _BAD_XCHARS, "scheme_specific_part", "§5: *xchar")
        return cls._make(
            {"scheme": scheme, "fragment": fragment, "scheme_specific_part": text[start:end]}
        )

    def __str__(self) -> str:
        return f"{self.scheme}:{self.scheme_specific_part}{format_fragment(self.fragment)}"

    def components(self) -> dict[str, Any]:
        return {"scheme_specific_part": self.scheme_specific_part}
