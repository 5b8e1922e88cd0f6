"""The ``Options.extra`` keys the telnet resolver reads, and their defaults.

Shared by the planner and the command line (``resolvers.telnet``'s ``add_arguments``), and
cheap to import: the package's ``__init__`` needs them for every ``omniurl get``/``plan``,
which must not import the planner or telnetlib3 (see resolvers/lazy.py).
"""

from __future__ import annotations

#: A login prompt: "login:", "Username:", "User name:" at the end of what arrived.
DEFAULT_LOGIN_PROMPT = r"(?im)(?:login|user ?name)\s*:\s*$"
#: A password prompt: "Password:" at the end of what arrived.
DEFAULT_PASSWORD_PROMPT = r"(?im)password\s*:\s*$"

#: Options.extra keys this resolver reads.
AUTO_LOGIN = "auto_login"
LOGIN_PROMPT = "telnet_login_prompt"
PASSWORD_PROMPT = "telnet_password_prompt"
SCRIPT = "telnet_script"
