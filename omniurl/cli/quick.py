"""``omniurl parse URL…`` and ``omniurl plan URL…`` with no option: the namespace argparse
would give, made without argparse.

Such a command line has nothing for argparse to decide: every word is a URL, every option
keeps its default.  Yet reading it with argparse cost ~4-5 ms of a ~45 ms command (fresh
venv, 2026-11-28): importing argparse and gettext (gettext compiles a pattern as it is
imported), ``locale`` (loaded by the first message argparse translates, each ``add_argument``
and group title), building the subcommand's parser and parsing.  So :func:`quick_args` makes
the namespace itself, from the same functions that add the subcommand's arguments
(cli/arguments.py), run against a recorder that keeps each argument's destination and
default as argparse reads them (the first default given for a destination wins; a parser's
``set_defaults`` after the arguments).  Anything else — an option, ``-`` (standard input),
``--``, no URL, a URL of a scheme no built-in resolver serves (a plugin's options), an
argument of an action the recorder does not know — goes to argparse as before
(:func:`quick_args` answers None).  tests/test_cli_quick.py holds the namespaces equal, key
for key and in order, to argparse's.
"""

from __future__ import annotations

from .commands import cmd_parse, cmd_plan

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any


class Namespace:
    """What ``argparse.Namespace`` is to a command (attributes, ``vars``, ``==``, ``in``,
    ``repr``), without importing argparse."""

    def __init__(self, **kwargs: Any) -> None:
        self.__dict__.update(kwargs)

    def __repr__(self) -> str:
        shown = [f"{name}={value!r}" for name, value in self.__dict__.items()]
        return f"Namespace({', '.join(shown)})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Namespace):
            return NotImplemented
        return vars(self) == vars(other)

    __hash__ = None  # type: ignore[assignment]  # (as argparse's: equal by contents)

    def __contains__(self, key: str) -> bool:
        return key in self.__dict__


class _Unsure(Exception):
    """An argument the recorder cannot vouch for: argparse reads the command line."""


#: argparse's default for each action named by a string, when ``default=`` is not given.
_ACTION_DEFAULTS: dict[str | None, Any] = {
    None: None,
    "store": None,
    "store_const": None,
    "store_true": False,
    "store_false": True,
    "append": None,
    "append_const": None,
    "count": None,
    "paired_output": None,  # (get's -o and -O: cli.parser._PairedOutput)
}


class _Recorder:
    """The part of ``argparse.ArgumentParser`` (and of its argument groups) that the
    functions adding ``parse``'s and ``plan``'s arguments call: each optional argument's
    destination and default, as argparse computes them (``_get_optional_kwargs``,
    ``add_argument``, ``set_defaults``, ``get_default``)."""

    def __init__(self) -> None:
        #: (destination, default, type) in the order added.
        self.actions: list[tuple[str, Any, Any]] = []
        self.defaults: dict[str, Any] = {}

    def add_argument_group(self, *_args: Any, **_kwargs: Any) -> _Recorder:
        return self  # (a group adds to its parser, with the parser's defaults)

    def add_mutually_exclusive_group(self, **_kwargs: Any) -> _Recorder:
        return self

    def add_argument(self, *names: str, **kwargs: Any) -> None:
        if not names or not all(name.startswith("-") for name in names):
            raise _Unsure("a positional argument")
        action = kwargs.get("action")
        if action not in _ACTION_DEFAULTS:
            raise _Unsure(f"action {action!r}")
        dest = kwargs.get("dest")
        if dest is None:
            longs = [name for name in names if len(name) > 1 and name[1] == "-"]
            dest = (longs or list(names))[0].lstrip("-").replace("-", "_")
        if "default" in kwargs:
            default = kwargs["default"]
        elif dest in self.defaults:
            default = self.defaults[dest]
        else:
            default = _ACTION_DEFAULTS[action]
        self.actions.append((dest, default, kwargs.get("type")))

    def set_defaults(self, **kwargs: Any) -> None:
        self.defaults.update(kwargs)
        self.actions = [
            (dest, kwargs.get(dest, default), kind) for dest, default, kind in self.actions
        ]

    def get_default(self, dest: str) -> Any:
        for name, default, _kind in self.actions:
            if name == dest and default is not None:
                return default
        return self.defaults.get(dest)

    def namespace(self, values: dict[str, Any]) -> dict[str, Any]:
        """``values`` (the positional arguments, by destination, in their order), then each
        argument's default (the first for a destination), then the parser's defaults: the
        order argparse sets them in.  A text default goes through the argument's ``type``,
        as argparse converts one."""
        out = dict(values)
        for dest, default, kind in self.actions:
            if dest not in out:
                if isinstance(default, str) and kind is not None:
                    default = kind(default)
                out[dest] = default
        for dest, default in self.defaults.items():
            out.setdefault(dest, default)
        return out


def quick_args(words: Sequence[str]) -> Namespace | None:
    """The namespace ``build_parser(words[0]).parse_args(words)`` gives for ``parse URL…``
    or ``plan URL…`` without any option, or None: argparse reads ``words``."""
    if words and words[0] == "get":
        return _quick_get(words)
    if len(words) < 2 or words[0] not in ("parse", "plan"):
        return None
    urls = list(words[1:])
    if any(url.startswith("-") for url in urls):
        return None  # an option, "-" or "--": argparse's to read
    from . import arguments

    recorder = _Recorder()
    try:
        if words[0] == "parse":
            arguments.add_syntax_arguments(recorder, lenient=True)  # type: ignore[arg-type]
            func = cmd_parse
        else:
            probe = Namespace(urls=urls)
            if arguments.names_other_scheme(probe):  # type: ignore[arg-type]
                return None  # (a plugin's scheme: its options are the parser's to add)
            arguments.add_resolve_arguments_named(recorder, urls)  # type: ignore[arg-type]
            func = cmd_plan
        recorder.defaults = {"func": func, **recorder.defaults}
        values = recorder.namespace({"urls": urls})
    except _Unsure:
        return None
    return Namespace(command=words[0], **values)


class _GetRecorder(_Recorder):
    """:class:`_Recorder` for ``get``'s arguments: its one positional, ``urls`` (the
    first argument it adds: first in the namespace, as :meth:`_Recorder.namespace` puts
    the positional values), is the command line's URLs."""

    def add_argument(self, *names: str, **kwargs: Any) -> None:
        if names == ("urls",) and not self.actions and kwargs.get("nargs") == "*":
            return
        super().add_argument(*names, **kwargs)


#: The options of ``get`` that :func:`_quick_get` reads, as argparse matches them (exactly:
#: the parsers take no abbreviation), each with whether it takes a value.
_GET_OPTIONS = {
    "-o": True,
    "--output": True,
    "-O": False,
    "--remote-name": False,
    "-s": False,
    "--silent": False,
}


def _quick_get(words: Sequence[str]) -> Namespace | None:
    """``get`` with URLs and only ``-o FILE``/``--output FILE``, ``-O``/``--remote-name``
    and ``-s``/``--silent``, in any order and number: the namespace argparse gives (the URLs
    in the order given, ``-o`` and ``-O`` paired with them in order as
    ``cli.parser._PairedOutput`` pairs them), or None.  A FILE that starts with ``-`` (but
    ``-`` itself), an empty word, ``-oFILE``, ``--output=FILE``, ``-sS``, ``--``, any other
    option: argparse's."""
    urls: list[str] = []
    outputs: list[str | None] = []
    silent = False
    rest = iter(words[1:])
    for word in rest:
        if not word:
            return None  # (an empty URL: argparse's)
        if not word.startswith("-"):
            urls.append(word)
            continue
        takes = _GET_OPTIONS.get(word)
        if takes is None:
            return None
        if takes:
            value = next(rest, None)
            if not value or (value.startswith("-") and value != "-"):
                return None  # (argparse's error, or a value it reads its own way)
            outputs.append(value)
        elif word in ("-O", "--remote-name"):
            outputs.append(None)
        else:
            silent = True
    if not urls:
        return None
    from . import arguments

    probe = Namespace(urls=urls)
    if arguments.names_other_scheme(probe):  # type: ignore[arg-type]
        return None  # (a plugin's scheme: its options are the parser's to add)
    recorder = _GetRecorder()
    try:
        arguments.add_get_arguments(recorder)  # type: ignore[arg-type]
        arguments.add_resolve_arguments_named(recorder, words[1:])  # type: ignore[arg-type]
        values = recorder.namespace({"urls": urls})
    except _Unsure:
        return None
    if outputs:  # (as _PairedOutput sets them: the first -o or -O is the one-URL case's)
        values["outputs"] = outputs
        values["output"] = outputs[0]
        values["remote_name"] = outputs[0] is None
    if silent:
        values["silent"] = True
    return Namespace(command="get", **values)
