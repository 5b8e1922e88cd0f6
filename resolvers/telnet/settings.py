"""The telnet options and their defaults (cheap to import: the command line reads their
flags; the planner and the session are not imported for that, see resolvers/lazy.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from omniurl.schemes.records import record

from ..spec import flag

if TYPE_CHECKING:
    from .planner import ScriptStep

#: A login prompt: "login:", "Username:", "User name:" at the end of what arrived.
DEFAULT_LOGIN_PROMPT = r"(?im)(?:login|user ?name)\s*:\s*$"
#: A password prompt: "Password:" at the end of what arrived.
DEFAULT_PASSWORD_PROMPT = r"(?im)password\s*:\s*$"


def read_script(path: str) -> tuple[ScriptStep, ...]:
    """``--script FILE``: the file's expect/send lines (a ValueError names what is wrong)."""
    from pathlib import Path

    from ..errors import PlanError
    from .planner import parse_script

    try:
        return parse_script(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise ValueError(exc.strerror) from None
    except UnicodeDecodeError as exc:
        raise ValueError(f"not UTF-8 (byte {exc.start})") from None
    except PlanError as exc:
        raise ValueError(str(exc)) from None


@record(frozen=True)
class TelnetOptions:
    """A telnet URL's user and password are advisory (RFC 1738 §3.8): sent only with
    ``login``."""

    login: bool = flag(
        "--login",
        default=False,
        action="store_true",
        help="answer the server's login and password prompts with the URL's user and password",
    )
    login_prompt: str = flag(
        "--login-prompt",
        default=DEFAULT_LOGIN_PROMPT,
        metavar="REGEX",
        help=f"the login prompt to wait for (default {DEFAULT_LOGIN_PROMPT!r})",
    )
    password_prompt: str = flag(
        "--password-prompt",
        default=DEFAULT_PASSWORD_PROMPT,
        metavar="REGEX",
        help=f"the password prompt to wait for (default {DEFAULT_PASSWORD_PROMPT!r})",
    )
    #: Expect/send pairs run without a person (a script's text is parsed when planned).
    #: None: a person at the terminal.
    script: tuple[Any, ...] | str | None = flag(
        "--script",
        default=None,
        metavar="FILE",
        convert=read_script,
        help="run FILE without a person and print the transcript: one 'expect TEXT', "
        "'expect-re REGEX' or 'send LINE' per line ('#' starts a comment)",
    )


__all__ = ["DEFAULT_LOGIN_PROMPT", "DEFAULT_PASSWORD_PROMPT", "TelnetOptions", "read_script"]
