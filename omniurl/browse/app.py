"""``omniurl browse``: the terminal browser (Textual), lynx's keys over omniurl's resolvers.

Everything a page shows comes from the typed resource (a listing's :class:`Entry` stream, a
content's bytes and media type) and the scheme's presentation hooks, as the gateway's pages
do (:mod:`omniurl.showing`): no scheme is named here.  Every link followed is planned and
checked by the policy first (:func:`resolvers.core.check`): a refusal is a page naming its
rule, and nothing is sent.  Resolving runs in a Textual worker, off the interface's loop; Esc
cancels it.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any, ClassVar

from rich.segment import Segment
from rich.style import Style
from textual import events, work
from textual.app import App, ComposeResult, SuspendNotSupported
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.geometry import Size
from textual.screen import ModalScreen
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widgets import Footer, Input, Label, OptionList, Static, TextArea

from omniurl.resolvers.errors import InputNeeded, PlanError, PolicyError
from omniurl.resolvers.options import Options
from omniurl.resolvers.spec import Presentation
from omniurl.schemes.errors import OmniurlError, URLError
from omniurl.schemes.secrets import terminal_safe
from omniurl.showing import article_headers, media_type_of, presentation_for

from .model import (
    SORTS,
    Bookmarks,
    History,
    Link,
    Page,
    data_dir,
    help_page,
    is_threaded,
    listing_page,
    message_page,
    ordered_rows,
    plan_text,
    relist,
    show_rows,
    text_page,
)
from .store import ListingRows

#: Bytes of a text shown as a page; beyond, the page says so (``d`` saves the whole).
MAX_TEXT = 4 << 20
#: Bytes a listing may hold (:class:`~omniurl.browse.store.ListingStore`: its rows' text, its
#: URLs and 40 bytes of offsets an entry — a 10⁶-item Gopher menu holds ~100 MB); beyond,
#: the listing is cut and the page says so.  A safety bound only, ~10⁷ Gopher items: the
#: page no longer holds an object per entry (that was ~870 bytes an entry, and a cut at 10⁵).
MAX_LISTING_BYTES = 1 << 30
#: Entries a listing sorts on the interface's loop (in ~0.1 s); a longer one sorts in a thread.
SORT_IN_PLACE = 20_000
#: Seconds a page may take, connect to last byte of the part shown; a listing, to its first
#: screen (the rest streams in, bounded by the resolvers' speed limit — ``speed_limit``
#: bytes/s over ``speed_time`` — and :data:`MAX_LISTING_BYTES`; Esc stops it).  A 10⁶-item
#: menu takes ~25-50 s to arrive whole over loopback, which a whole-page bound would cut.
MAX_TIME = 60.0


class PageView(ScrollView, can_focus=True):
    """A page, drawn a row at a time as it scrolls (``render_line``): a listing of 10⁶
    entries costs only the rows on screen.  The cursor is on a link (lynx's model); a page
    without links scrolls."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"pageview--link", "pageview--cursor"}
    #: (A scroll view binds these to scrolling; here they move the cursor, as in lynx.  Left
    #: and right too: a scroll view takes them whenever its page is wider than the screen —
    #: as a long page is, once its scroll bar takes a column —, so "back" would do nothing.)
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "nav('back', 0)", "Back", show=False),
        Binding("right", "nav('follow', 0)", "Follow", show=False),
        Binding("less_than_sign", "nav('side', -1)", "Scroll left", show=False),
        Binding("greater_than_sign", "nav('side', 1)", "Scroll right", show=False),
        Binding("home", "nav('edge', 0)", "Top", show=False),
        Binding("end", "nav('edge', 1)", "Bottom", show=False),
        Binding("pagedown", "nav('page', 1)", "Page down", show=False),
        Binding("pageup", "nav('page', -1)", "Page up", show=False),
        Binding("up", "nav('move', -1)", show=False),
        Binding("down", "nav('move', 1)", show=False),
    ]
    DEFAULT_CSS = """
    PageView { height: 1fr; }
    PageView > .pageview--link { text-style: underline; }
    PageView > .pageview--cursor { text-style: reverse bold; }
    """

    def __init__(self, page: Page | None = None, **kw: Any) -> None:
        super().__init__(**kw)
        self.page = page or Page("", "")
        self.cursor = 0

    def show(self, page: Page) -> None:
        self.page = page
        self.cursor = page.cursor if page.links else 0
        self.update_size()
        self.scroll_to(0, page.top, animate=False, immediate=True)
        if page.links:
            self.reveal(self.cursor)
        self.refresh()

    def action_nav(self, what: str, n: int) -> None:
        """The browser's page moves (``move``, ``page``, ``edge``, ``back``, ``follow``)
        for its page; a page shown over it (``=``, ``p``, ``\\``, ``?``) only scrolls, and
        left closes it.  ``side`` scrolls sideways by half a screen (``<``, ``>``)."""
        app = self.app
        if what == "side":  # (a row wider than the screen: an HTML <pre>, a long name)
            self.scroll_to(
                x=max(0, self.scroll_x + n * max(self.size.width // 2, 1)), animate=False
            )
        elif isinstance(app, Browser) and app.view is self:
            if what == "back":
                app.action_go_back()
            elif what == "follow":
                app.action_follow()
            else:
                getattr(app, f"action_{what}")(n)
        elif what == "back":  # (a page over the page: left closes it, as lynx goes back)
            if isinstance(self.screen, TextScreen):
                self.screen.action_close()
        elif what == "follow":
            pass  # (its links are shown, not followed)
        elif what == "move":
            self.scroll_to(y=self.scroll_y + n, animate=False)
        elif what == "page":
            self.scroll_to(y=self.scroll_y + n * max(self.size.height - 1, 1), animate=False)
        else:
            self.scroll_to(y=self.max_scroll_y if n else 0, animate=False)

    def update_size(self) -> None:
        self.virtual_size = Size(max(self.page.width, self.size.width), len(self.page.lines))

    @property
    def link(self) -> Link | None:
        links = self.page.links
        return links[self.cursor] if 0 <= self.cursor < len(links) else None

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        row = y + scroll_y
        lines = self.page.lines
        width = self.size.width
        if row >= len(lines):
            return Strip.blank(width, self.rich_style)
        line = lines[row]
        base = self.rich_style
        segments: list[Segment] = []
        at = 0
        if line.spans:
            link_style = base + self.get_component_rich_style("pageview--link")
            cursor_style = base + self.get_component_rich_style("pageview--cursor")
            for start, end, index in line.spans:
                if start > at:
                    segments.append(Segment(line.text[at:start], base))
                style: Style = cursor_style if index == self.cursor else link_style
                segments.append(Segment(line.text[start:end], style))
                at = end
        if at < len(line.text):
            segments.append(Segment(line.text[at:], base))
        strip = Strip(segments).crop(scroll_x, scroll_x + width)
        return strip.extend_cell_length(width, base)

    # -- moving -------------------------------------------------------------------------

    def move(self, delta: int) -> None:
        page = self.page
        if not page.links:
            self.scroll_to(y=self.scroll_y + delta, animate=False)
            return
        self.select(max(0, min(len(page.links) - 1, self.cursor + delta)))

    def select(self, index: int) -> None:
        if not self.page.links:
            return
        old = self.page.line_of_link(self.cursor)
        self.cursor = index
        self.page.cursor = index
        self.refresh_line(old)
        self.refresh_line(self.page.line_of_link(index))
        self.reveal(index)

    def reveal(self, index: int) -> None:
        row = self.page.line_of_link(index)
        height = max(self.size.height, 1)
        if row < self.scroll_y:
            self.scroll_to(y=row, animate=False, immediate=True)
        elif row >= self.scroll_y + height:
            self.scroll_to(y=row - height + 1, animate=False, immediate=True)
        self.page.top = int(self.scroll_y)

    def refresh_line(self, row: int) -> None:
        self.refresh_lines(row - int(self.scroll_y))

    def show_row(self, row: int) -> None:
        """A search hit: the row on screen and the cursor on its first link."""
        index = self.page.link_at_or_after(row)
        if index is not None and self.page.line_of_link(index) == row:
            self.select(index)
        self.scroll_to(y=max(0, row - 2), animate=False, immediate=True)

    def on_click(self, event: events.Click) -> None:
        row = event.y + int(self.scroll_y)
        col = event.x + int(self.scroll_x)
        if row >= len(self.page.lines):
            return
        for start, end, index in self.page.lines[row].spans:
            if start <= col < end:
                self.select(index)
                if event.chain >= 1:
                    self.app.action_follow()  # type: ignore[attr-defined]
                return


class Prompt(ModalScreen[str | None]):
    """One line asked for (``g``'s URL, ``/``'s words, a search item's words)."""

    DEFAULT_CSS = """
    Prompt { align: center bottom; }
    Prompt > Vertical { height: auto; width: 100%; background: $panel; padding: 0 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, question: str, value: str = "") -> None:
        super().__init__()
        self.question = question
        self.value = value

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(self.question)
            yield Input(value=self.value, id="answer")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)


class AskForm(ModalScreen[list[str] | None]):
    """A Gopher+ +ASK form (§2.8): a line per field that takes an answer (its default
    filled in; a choice's options named), the Notes as text.  Enter moves on, Enter on the
    last field (or Ctrl+S) sends, Esc cancels."""

    DEFAULT_CSS = """
    AskForm > VerticalScroll { background: $panel; padding: 0 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel"),
        Binding("ctrl+s", "send", "Send"),
    ]

    def __init__(self, fields: list[Any]) -> None:
        super().__init__()
        self.fields = fields

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Label("A form (Gopher+ +ASK): Enter on the last field sends, Esc cancels")
            n = 0
            for field in self.fields:
                prompt = terminal_safe(str(field.prompt))
                if not field.answered:
                    yield Label(prompt)
                    continue
                choices = tuple(field.choices)
                if choices:
                    prompt += "  (" + " | ".join(terminal_safe(c) for c in choices) + ")"
                elif field.kind == "Select":
                    prompt += "  (0 or 1)"
                yield Label(prompt)
                yield Input(
                    value=str(field.default or ""),
                    password=field.kind == "AskP",
                    id=f"f{n}",
                )
                n += 1

    def on_mount(self) -> None:
        inputs = list(self.query(Input))
        if inputs:
            inputs[0].focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        inputs = list(self.query(Input))
        index = inputs.index(event.input)
        if index + 1 < len(inputs):
            inputs[index + 1].focus()
        else:
            self.action_send()

    def action_send(self) -> None:
        self.dismiss([field.value for field in self.query(Input)])

    def action_cancel(self) -> None:
        self.dismiss(None)


class ViewChoice(ModalScreen[str | None]):
    """An item offered in several views (Gopher+ §2.5, ``+VIEWS``: formats, languages), as
    the UMN client asks: the views listed with the server's size estimates, and below, the
    request the highlighted one would send — its plan, nothing sent.  Enter fetches that
    view (its URL, RFC 1738 §3.4.8: ``+<view> <language>``), Esc fetches nothing."""

    DEFAULT_CSS = """
    ViewChoice { align: center middle; }
    ViewChoice > Vertical { width: 100%; height: 100%; background: $panel; }
    ViewChoice #title { background: $accent; width: 100%; }
    ViewChoice Label, ViewChoice #request { padding: 0 1; }
    ViewChoice OptionList { height: auto; max-height: 50%; }
    ViewChoice #request { height: 1fr; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, url: str, views: list[tuple[str, str]], options: Options) -> None:
        super().__init__()
        self.url = url
        #: Each view's label (``text/plain De_DE  <1k>``) and its URL.
        self.views = views
        self.options = options
        #: What the request line shows (tests read it).
        self.request = ""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(terminal_safe(f"Views of {self.url}"), id="title", markup=False)
            yield Label("Enter fetches the view, Esc cancels")
            yield OptionList(*(terminal_safe(label) for label, _ in self.views), id="views")
            yield Static("", id="request", markup=False)

    def on_mount(self) -> None:
        choices = self.query_one(OptionList)
        choices.highlighted = 0
        choices.focus()
        self.show_request(0)

    def show_request(self, index: int) -> None:
        """The plan of the highlighted view: where it connects and the lines it sends."""
        from omniurl.resolvers import check

        url = self.views[index][1]
        try:
            text = plan_text(check(url, self.options).to_json())
        except OmniurlError as exc:
            text = f"{url}\n\nRefused ({type(exc).__name__}): {exc}"
        self.request = terminal_safe(text, keep="\n")
        self.query_one("#request", Static).update(self.request)

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self.show_request(event.option_index)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.views[event.option_index][1])

    def action_cancel(self) -> None:
        self.dismiss(None)


class TextScreen(ModalScreen[None]):
    """A page over the page (``=``, ``p``, ``\\``, a download's outcome): Esc or q closes."""

    DEFAULT_CSS = """
    TextScreen { align: center middle; }
    TextScreen > Vertical { width: 100%; height: 100%; background: $panel; }
    TextScreen #title { background: $accent; width: 100%; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "close", "Close"),
        Binding("down,j", "scroll(1)", show=False),
        Binding("up,k", "scroll(-1)", show=False),
    ]

    def __init__(self, title: str, page: Page) -> None:
        super().__init__()
        self.title_text = title
        self.page = page

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(terminal_safe(self.title_text), id="title", markup=False)
            yield PageView(self.page, id="text")

    def on_mount(self) -> None:
        view = self.query_one(PageView)
        view.page.forget_links()  # (shown, not followed)
        view.focus()
        self.call_after_refresh(view.update_size)

    def action_scroll(self, delta: int) -> None:
        view = self.query_one(PageView)
        view.scroll_to(y=view.scroll_y + delta, animate=False)

    def action_close(self) -> None:
        self.dismiss(None)


class Compose(ModalScreen[None]):
    """A form URL (mailto:): the body edited here; below it, the exact lines that would be
    sent — the plan of the message, with nothing sent — updated by Ctrl+P; Ctrl+S sends
    through the relay ``--smtp`` names (none: nothing can be sent)."""

    DEFAULT_CSS = """
    Compose > Vertical { background: $panel; }
    Compose #to { background: $accent; width: 100%; }
    Compose TextArea { height: 6; }
    Compose PageView { height: 1fr; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Cancel"),
        Binding("ctrl+p", "preview", "Show the message"),
        Binding("ctrl+s", "send", "Send"),
    ]

    def __init__(self, browser: Browser, url: str, presentation: Presentation) -> None:
        super().__init__()
        self.browser = browser
        self.url = url
        self.presentation = presentation

    def compose(self) -> ComposeResult:
        from omniurl import schemes

        try:
            fields = getattr(schemes.parse(self.url), "headers", ())
        except URLError:
            fields = ()
        body = next((v for n, v in fields if n.lower() == "body"), "")
        with Vertical():
            yield Static(f"Compose: {self.url}", id="to", markup=False)
            # A body the URL gives is the message's (RFC 6068 §2: the scheme's planner takes
            # it over any other): shown, not edited.
            yield TextArea(body, id="body", read_only=bool(body))
            yield Static("Ctrl+P shows the message, Ctrl+S sends it, Esc cancels", markup=False)
            yield PageView(id="preview")

    def on_mount(self) -> None:
        self.query_one(TextArea).focus()
        self.action_preview()

    def send_options(self) -> Options | str:
        """The options the message is sent with (the scheme's ``gateway_post`` given the
        body), or why it cannot be."""
        from types import SimpleNamespace

        config = SimpleNamespace(smtp=self.browser.smtp or "localhost", max_render_bytes=MAX_TEXT)
        options = self.presentation.gateway_options(self.browser.options, config)
        body = self.query_one(TextArea).text
        return self.presentation.gateway_post(self.url, {"body": body}, options, config)

    def action_preview(self) -> None:
        from omniurl.resolvers import check

        options = self.send_options()
        view = self.query_one(PageView)
        if isinstance(options, str):
            view.show(message_page(self.url, "Not sendable", options))
            return
        try:
            text = plan_text(check(self.url, options).to_json())
        except OmniurlError as exc:
            view.show(self.browser._refused(self.url, exc))
            return
        if not self.browser.smtp:
            text += "\n(no relay: omniurl browse --smtp HOST[:PORT] sends it)\n"
        page = text_page(self.url, text, max(view.size.width, 40))
        page.forget_links()
        view.show(page)

    def action_send(self) -> None:
        if not self.browser.smtp:
            self.browser.say("No relay: start omniurl browse --smtp HOST[:PORT] to send mail.")
            self.action_preview()
            return
        options = self.send_options()
        if isinstance(options, str):
            self.browser.say(options)
            return
        self.browser.send(self.url, options)
        self.dismiss(None)

    def action_close(self) -> None:
        self.browser.say("Not sent.")
        self.dismiss(None)


class Browser(App[None]):
    """The browser: one page at a time, a status line, lynx's keys."""

    TITLE = "omniurl browse"
    #: (Ctrl+P is the compose form's "show the message", as no palette is needed here.)
    ENABLE_COMMAND_PALETTE = False
    CSS = """
    #url { height: 1; background: $primary; color: $text; }
    #status { height: 1; background: $panel; }
    """
    #: The footer shows the keys a newcomer needs first (``?`` lists them all: :data:`KEYS`).
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark", "help", "Help", key_display="?"),
        Binding("down,j", "move(1)", "Down", show=False),
        Binding("up,k", "move(-1)", "Up", show=False),
        Binding("pagedown,space", "page(1)", "Page down", show=False),
        Binding("pageup,b", "page(-1)", "Page up", show=False),
        Binding("home", "edge(0)", "Top", show=False),
        Binding("end", "edge(1)", "Bottom", show=False),
        Binding("enter,right,l", "follow", "Follow", key_display="⏎"),
        Binding("left,h", "go_back", "Back", key_display="←"),
        Binding("g", "go", "Go"),
        Binding("slash", "search", "Find", key_display="/"),
        Binding("n", "next_hit", "Next hit", show=False),
        Binding("equals_sign", "show_url", "URL", show=False),
        Binding("p", "show_plan", "Plan"),
        Binding("backslash", "show_source", "Source", show=False),
        Binding("a", "bookmark", "Bookmark", show=False),
        Binding("s", "sort", "Sort", show=False),
        Binding("d", "download", "Download", show=False),
        Binding("plus", "attributes", "Attributes", show=False),
        Binding("v", "bookmarks", "Bookmarks", show=False),
        Binding("backspace", "history", "History", show=False),
        Binding("escape", "cancel", "Cancel", show=False),
        Binding("q,Q", "quit", "Quit"),
    ]

    def __init__(
        self,
        url: str | None = None,
        *,
        options: Options | None = None,
        folder: Path | None = None,
        max_time: float = MAX_TIME,
        download_dir: Path | None = None,
        smtp: str | None = None,
        max_entries: int | None = None,
        max_listing_bytes: int = MAX_LISTING_BYTES,
        terminal_colors: bool = False,
    ) -> None:
        super().__init__(ansi_color=terminal_colors or None)
        #: The terminal's own colours (Textual's ANSI theme), not a theme's RGB ones.
        self.terminal_colors = terminal_colors
        self.start_url = url
        self.options = (options or Options()).with_(
            stream_listings=True, form=self._ask_form, notice=self._notice
        )
        self.folder = folder if folder is not None else data_dir()
        self.history = History(self.folder)
        self.bookmarks = Bookmarks(self.folder)
        self.max_time = max_time
        self.download_dir = download_dir
        #: The mail relay a composed message is sent through (``--smtp``); None: none sent.
        self.smtp = smtp
        #: At most this many entries of a listing (None: only :attr:`max_listing_bytes`).
        self.max_entries = max_entries
        self.max_listing_bytes = max_listing_bytes
        self._view = PageView(id="page")
        self.words = ""
        self.hit = -1
        #: What the status line says (tests read it).
        self.status = ""
        #: The notices resolves gave (:meth:`_notice`; tests read them).
        self.notices: list[str] = []
        #: Set while a page is being fetched (tests wait for it to clear).
        self.busy = False

    def compose(self) -> ComposeResult:
        yield Static("", id="url", markup=False)
        yield self._view
        yield Static("", id="status", markup=False)
        yield Footer(show_command_palette=False)

    def on_mount(self) -> None:
        if self.terminal_colors:
            self.theme = "ansi-dark"  # (the terminal's own palette, ANSI colour names)
        self.view.focus()
        if self.start_url:
            self.open(self.start_url)
        else:
            self.show_page(self._welcome(), push=True)

    @property
    def view(self) -> PageView:
        """The page (on the main screen, whatever is shown over it)."""
        return self._view

    @property
    def wrap_width(self) -> int:
        """The columns a text is wrapped to: the page's, less one for a scroll bar."""
        return max(self.view.size.width - 1, 40)

    def _notice(self, text: str) -> None:
        """What a resolve says without being asked (a certificate pinned on first use): a
        notification beside the page, as the status line is the fetch's."""
        self.notices.append(text)
        self.notify(terminal_safe(text), timeout=10)

    def say(self, text: str) -> None:
        """The status line (server words in it shown escaped, as everywhere)."""
        self.status = text = terminal_safe(text)
        self.screen_stack[0].query_one("#status", Static).update(text)

    def show_page(self, page: Page, *, push: bool) -> None:
        if push:
            current = self.history.current
            if current is not None:
                current.cursor, current.top = self.view.cursor, int(self.view.scroll_y)
            self.history.push(page)
        from omniurl.schemes.secrets import mask_passwords

        # (the main screen's bar, whatever is shown over it: a prompt, a form)
        bar = self.screen_stack[0].query_one("#url", Static)
        bar.update(terminal_safe(mask_passwords(page.url)))
        self.view.show(page)
        self.hit = -1

    def _welcome(self) -> Page:
        return message_page(
            "",
            "omniurl browse",
            "g opens a URL, v shows the bookmarks, ? lists every key, q quits.\n"
            "Arrows or j/k move, Enter or right follows, left or h goes back; / searches "
            "the page, n finds the next hit; = shows the link's URL, p its plan (nothing is "
            "sent), \\ the page's source; a adds a bookmark; Backspace shows the history.",
        )

    # -- loading ------------------------------------------------------------------------

    def open(self, url: str, *, search: bool = False, views: str | None = None) -> None:
        """Fetch ``url`` and show it (``search``: ask for words first; ``views``: the URL of
        its attributes, whose views are offered first when there are several)."""
        self.busy = True
        self.say(f"Fetching {url} … (Esc cancels)")
        self._load(url, search, views)

    @work(group="load", exclusive=True, exit_on_error=False)
    async def _load(self, url: str, search: bool, views: str | None = None) -> None:
        try:
            if views is not None:
                chosen = await self._choose_view(url, views)
                if chosen is None:
                    return
                url = chosen
            await self._fetch(url, search)
        except asyncio.CancelledError:
            self.say("Cancelled.")
            raise
        except Exception as exc:  # a defect: shown, never a silent stop
            self.show_page(
                message_page(url, f"Error: {type(exc).__name__}", str(exc) or repr(exc)),
                push=True,
            )
            self.say(f"Error: {type(exc).__name__}")
        finally:
            self.busy = False

    async def _fetch(self, url: str, search: bool) -> None:
        from omniurl.resolvers import check, resolve

        presentation = presentation_for(url)
        if search:
            words = await self.push_screen_wait(Prompt("Search for (words):"))
            if words is None:
                self.say("Search cancelled.")
                return
            url = self._search_url(url, words, presentation) or url
            presentation = presentation_for(url)
        try:
            check(url, self.options)  # the policy: a refusal sends nothing
        except InputNeeded as exc:
            await self._ask_words(url, exc, presentation)
            return
        except (URLError, PolicyError) as exc:
            self.show_page(self._refused(url, exc), push=True)
            self.say(f"Refused by the policy ({type(exc).__name__}): nothing was sent.")
            return
        except PlanError as exc:
            self.show_page(message_page(url, "Cannot resolve", exc.message), push=True)
            self.say(type(exc).__name__)
            return
        if type(presentation).gateway_post is not Presentation.gateway_post:
            # A form, not a page (a mailto: URL): composed here, sent only when asked.
            self.busy = False
            await self.push_screen_wait(Compose(self, url, presentation))
            return
        try:
            async with asyncio.timeout(self.max_time) as deadline:
                resource = await resolve(url, self._options_for(presentation))
                await self._render(url, resource, presentation, deadline)
        except InputNeeded as exc:  # (found by the server: a searchable database)
            await self._ask_words(url, exc, presentation)
        except TimeoutError:
            self.show_page(
                message_page(url, "Timed out", f"No page within {self.max_time:g} s."), push=True
            )
            self.say("Timed out.")
        except (URLError, PolicyError) as exc:
            self.show_page(self._refused(url, exc), push=True)
            self.say(f"Refused ({type(exc).__name__}).")
        except OmniurlError as exc:
            self.show_page(message_page(url, f"Error: {type(exc).__name__}", str(exc)), push=True)
            self.say(type(exc).__name__)

    async def _choose_view(self, url: str, attributes: str) -> str | None:
        """The URL of the view of ``url`` to fetch: its attributes asked for (through the
        policy, within :attr:`max_time`) and, when they offer several views (Gopher+
        ``+VIEWS``), the one chosen in a :class:`ViewChoice`; ``url`` itself when they
        offer one or none or cannot be had (a server that is not Gopher+ after all); None
        when the choice is cancelled (nothing fetched)."""
        from omniurl.resolvers import check, resolve

        presentation = presentation_for(url)
        self.say(f"Asking for the views of {url} … (Esc cancels)")
        try:
            check(attributes, self.options)
            async with asyncio.timeout(self.max_time):
                resource = await resolve(attributes, self._options_for(presentation))
                async with resource:
                    offered = presentation.views(resource)
        except (OmniurlError, TimeoutError):
            return url
        views = []
        for view in offered:
            target = presentation.view_url(url, view.view)
            if target is not None:
                size = str(getattr(view, "size", "") or "")
                views.append((f"{view.view}  {size}".rstrip(), target))
        if len(views) < 2:
            return url
        self.busy = False
        chosen = await self.push_screen_wait(ViewChoice(url, views, self.options))
        if chosen is None:
            self.say("No view chosen: nothing fetched.")
            return None
        self.busy = True
        self.say(f"Fetching {chosen} … (Esc cancels)")
        return chosen

    def _options_for(self, presentation: Presentation) -> Options:
        """The options a page of this scheme is resolved with: the scheme's own for a reader
        who follows links one at a time (``gateway_options`` given a policy that changes no
        scheme by itself: a Prospero link's access methods are listed as links, each checked
        when followed, rather than the first one followed unseen); else the browser's."""
        import dataclasses

        one_at_a_time = self.options.with_(
            policy=dataclasses.replace(self.options.policy, redirect_scheme_change=False)
        )
        own = presentation.gateway_options(one_at_a_time, None)
        return self.options if own is one_at_a_time else own.with_(policy=self.options.policy)

    async def _ask_form(self, fields: Any, _url: Any) -> list[str]:
        """A Gopher+ +ASK form (§2.8): its fields asked in a form screen; the answers of
        the fields that take one, in order.  Esc cancels the fetch."""
        fields = list(fields)
        self.busy = False
        answers = await self.push_screen_wait(AskForm(fields))
        if answers is None:
            raise asyncio.CancelledError
        self.busy = True
        return answers

    def action_attributes(self) -> None:
        """``+``: the link's attributes (Gopher+ ``!``: its views, abstract, admin)."""
        link = self.view.link
        if link is None or link.attributes is None:
            self.say("This link has no attributes.")
            return
        self.open(link.attributes)

    async def _ask_words(self, url: str, exc: InputNeeded, presentation: Presentation) -> None:
        """A search (Gopher type 7, a WAIS database): ask for the words, then open the URL
        the scheme's presentation makes of them (``search_url``)."""
        self.busy = False
        words = await self.push_screen_wait(Prompt(f"{exc.message}\nWords:"))
        if words is None:
            self.say("Search cancelled.")
            return
        target = self._search_url(url, words, presentation)
        if target is None:
            self.say("This URL takes no search words.")
            return
        self.busy = True
        await self._fetch(target, False)

    def _search_url(self, url: str, words: str, presentation: Presentation) -> str | None:
        from omniurl import schemes

        try:
            return presentation.search_url(schemes.parse(url), words)
        except URLError:
            return None

    def _refused(self, url: str, exc: OmniurlError) -> Page:
        """A refusal in place: the rule (the error's class), the component it blames, and
        that nothing was sent (unless the refusal came mid-session and says what was)."""
        component = getattr(exc, "component", None)
        sent = getattr(exc, "sent", ())
        text = (
            f"Rule: {type(exc).__name__}"
            + (f" (component: {component})" if component else "")
            + f"\n\n{exc.message if hasattr(exc, 'message') else exc}"
            + ("" if sent else "\n\nNothing was sent.")
        )
        return message_page(url, "Refused", text)

    async def _render(
        self, url: str, resource: Any, presentation: Presentation, deadline: asyncio.Timeout
    ) -> None:
        async with resource:
            if resource.kind == "session":
                await self._hand_over(url, resource, presentation)
                return
            if resource.kind == "listing":
                await self._stream_listing(url, resource, deadline)
                return
            media = media_type_of(resource)
            if not media.startswith(("text/", "message/")) and "html" not in media:
                self.show_page(
                    message_page(
                        url,
                        "A file",
                        f"{media}"
                        + (f", {resource.size} bytes" if resource.size is not None else "")
                        + ": not shown as a page; d saves it.",
                    ),
                    push=True,
                )
                self.say(f"{media}")
                return
            if media.startswith("text/html"):
                raw = await _read_bounded(resource)
                text, preformatted = _html_as_text(raw[0], url)
                page = text_page(url, text, self.wrap_width, unwrapped=preformatted)
                page.source = raw[0].decode("utf-8", "replace")
                self.show_page(page, push=True)
                self.say(f"{media}, {len(raw[0])} bytes, {len(page.links)} links")
                return
            held = bytearray()
            cut = False
            async for chunk in resource:
                held += chunk
                if len(held) > MAX_TEXT:
                    cut = True
                    break
            text = bytes(held[:MAX_TEXT]).decode("utf-8", "replace")
            if presentation.article_headers(resource):
                text = _fold_headers(text, presentation)
            text = presentation.rendered_text(resource, text) or text
            page = text_page(url, text, self.wrap_width)
            page.source = bytes(held[:MAX_TEXT]).decode("utf-8", "replace")
            _add_views(page, url, presentation, resource)
            if cut:
                page.add_line(f"[cut at {MAX_TEXT} bytes]")
            self.show_page(page, push=True)
            self.say(
                f"{media}, {len(held)} bytes{' (cut)' if cut else ''}, {len(page.links)} links"
            )

    async def _hand_over(self, url: str, resource: Any, presentation: Presentation) -> None:
        """A session (telnet): the terminal is the session's until it ends (the scheme's
        ``present`` attaches it, as ``omniurl get`` does), then the browser comes back."""
        import argparse

        try:
            with self.suspend():
                status = await presentation.present(resource, argparse.Namespace(json=False))
        except SuspendNotSupported:
            self.show_page(
                message_page(
                    url,
                    "A session",
                    "This URL is an interactive session; this terminal cannot be handed over "
                    "to it (no real terminal here). omniurl get URL attaches it.",
                ),
                push=True,
            )
            self.say("A session: not handed over.")
            return
        self.refresh()
        self.say(f"Session ended (status {status}).")

    async def _stream_listing(self, url: str, resource: Any, deadline: asyncio.Timeout) -> None:
        """Entries shown as they arrive: the page is up with the first ones, and grows.  The
        interface's loop gets a turn every 256 entries (Esc, scrolling) and the view is
        redrawn at most every 0.1 s; the page holds at most :attr:`max_listing_bytes`.
        Once the first screen is up, :attr:`max_time` no longer applies (see
        :data:`MAX_TIME`)."""
        page = listing_page(url, ())
        store = page.store
        assert store is not None
        self.show_page(page, push=True)
        drawn = -1.0
        loop = asyncio.get_running_loop()
        async for entry in resource.aiter_entries():
            count = len(store)
            if self.max_entries is not None and count >= self.max_entries:
                page.add_line(f"[cut at {count} entries: the browser holds no more]")
                break
            if store.nbytes >= self.max_listing_bytes:
                page.add_line(
                    f"[cut at {count} entries ({store.nbytes >> 20} MB held, the browser's "
                    "bound): the browser holds no more]"
                )
                break
            page.add_entry(entry)
            if count & 255 == 0:
                if count:
                    deadline.reschedule(None)  # (the page is up: the rest streams in)
                if loop.time() - drawn >= 0.1:
                    drawn = loop.time()
                    if self.view.page is page:
                        self.view.update_size()
                        self.view.refresh()
                    self.say(f"{count + 1} entries …")
                await asyncio.sleep(0)
        if is_threaded(page):
            relist(page, "thread")
        if self.view.page is page:
            self.view.update_size()
            if page.links and self.view.cursor == 0:
                self.view.select(0)
            self.view.refresh()
        self.say(f"{len(page.lines)} entries, {len(page.links)} links")

    # -- actions ------------------------------------------------------------------------

    def action_move(self, delta: int) -> None:
        self.view.move(delta)

    def action_page(self, direction: int) -> None:
        view = self.view
        height = max(view.size.height - 1, 1)
        if view.page.links:
            row = view.page.line_of_link(view.cursor) + direction * height
            index = view.page.link_at_or_after(max(row, 0))
            view.select(index if index is not None else len(view.page.links) - 1)
        else:
            view.scroll_to(y=view.scroll_y + direction * height, animate=False)

    def action_edge(self, end: int) -> None:
        view = self.view
        if view.page.links:
            view.select(len(view.page.links) - 1 if end else 0)
        view.scroll_to(y=view.max_scroll_y if end else 0, animate=False, immediate=True)

    def action_follow(self) -> None:
        link = self.view.link
        if link is None:
            self.say("No link here.")
            return
        self.open(link.url, search=link.search, views=link.attributes if link.views else None)

    def action_go_back(self) -> None:
        self.workers.cancel_group(self, "load")
        current = self.history.current
        if current is not None:
            current.cursor, current.top = self.view.cursor, int(self.view.scroll_y)
        page = self.history.back()
        if page is None:
            self.say("No page before this one.")
            return
        if page.dropped:  # (let go to bound the history's memory: fetched again)
            self.history.pages.pop()
            self.open(page.url)
            return
        self.show_page(page, push=False)
        self.say("")

    def action_go(self) -> None:
        def answered(url: str | None) -> None:
            if url and url.strip():
                self.open(url.strip())

        current = self.history.current
        self.push_screen(Prompt("URL to open:", current.url if current else ""), answered)

    def action_search(self) -> None:
        def answered(words: str | None) -> None:
            if words:
                self.words = words
                self.hit = int(self.view.scroll_y) - 1
                self.action_next_hit()

        self.push_screen(Prompt("Find in page:", self.words), answered)

    def action_next_hit(self) -> None:
        if not self.words:
            self.say("No search yet: / asks for words.")
            return
        row = self.view.page.find(self.words, self.hit)
        if row is None:
            self.say(f"Not found: {self.words}")
            return
        self.hit = row
        self.view.show_row(row)
        self.say(f"Found {self.words!r} on line {row + 1}")

    def action_show_url(self) -> None:
        """``=``: the link's URL and the page's (lynx's information page)."""
        from omniurl.schemes.secrets import mask_passwords

        link = self.view.link
        current = self.history.current
        page_url = current.url if current else ""
        text = f"Link: {mask_passwords(link.url)}\n" if link else "Link: (none here)\n"
        text += f"Page: {mask_passwords(page_url)}\n"
        url = link.url if link else page_url
        self.push_screen(TextScreen("URL", text_page(url, text, 10 + len(text))))  # (unwrapped)

    def action_show_plan(self) -> None:
        """``p``: the plan of the link under the cursor — the exact lines it would send,
        checked by the policy — and nothing sent (what ``omniurl plan`` prints)."""
        from omniurl.resolvers import check

        link = self.view.link
        current = self.history.current
        url = link.url if link else (current.url if current else "")
        try:
            text = plan_text(check(url, self.options).to_json())
        except InputNeeded as exc:
            text = f"{url}\n\n{exc.message}"
        except OmniurlError as exc:
            text = self._refused(url, exc).source or str(exc)
        self.push_screen(TextScreen(f"Plan of {url}", text_page(url, text)))

    def action_show_source(self) -> None:
        """``\\``: the page as received.  A listing whose scheme can ask for its source
        (a Gopher menu: :meth:`Presentation.source_url`) is fetched again as that, through
        the policy; any other shows its rows as they came."""
        page = self.view.page
        if page.source is None and page.store is not None:
            source = self._source_url(page.url)
            if source is not None:
                self._load_source(page.url, source)
                return
        shown = page.plain() if page.source is None else text_page(page.url, page.source)
        self.push_screen(TextScreen(f"Source of {page.url}", shown))

    def _source_url(self, url: str) -> str | None:
        from omniurl import schemes

        try:
            return presentation_for(url).source_url(schemes.parse(url))
        except URLError:
            return None

    @work(group="source", exclusive=True, exit_on_error=False)
    async def _load_source(self, url: str, source: str) -> None:
        from omniurl.resolvers import check, resolve

        self.say(f"Fetching the source of {url} … (Esc cancels)")
        try:
            check(source, self.options)
            async with asyncio.timeout(self.max_time):
                async with await resolve(source, self.options) as resource:
                    raw, cut = await _read_bounded(resource)
        except (OmniurlError, TimeoutError) as exc:
            self.say(f"No source ({type(exc).__name__}): {exc}")
            return
        text = raw.decode("utf-8", "replace") + (f"\n[cut at {MAX_TEXT} bytes]" if cut else "")
        self.push_screen(TextScreen(f"Source of {url}", text_page(url, text)))
        self.say(f"Source of {url}: {len(raw)} bytes")

    def action_help(self) -> None:
        """``?``: every key (lynx's help page)."""
        self.push_screen(TextScreen("Keys of omniurl browse (Esc or q closes)", help_page()))

    def action_history(self) -> None:
        """Backspace: the pages of this session, newest first, then the URLs visited
        before (the ``history`` file), each a link (lynx's history page)."""
        self.show_page(self.history.page(), push=True)

    def action_bookmark(self) -> None:
        current = self.history.current
        if current is None or not current.url or current.kind in ("message", "local"):
            self.say("Nothing to bookmark here.")
            return
        if self.bookmarks.add(current.url):
            self.say(f"Bookmarked {current.url}")
        else:
            self.say("Already bookmarked.")

    def action_bookmarks(self) -> None:
        self.show_page(self.bookmarks.page(), push=True)

    def action_download(self) -> None:
        """``d``: save the link's target (or this page) with the batch engine — resumed from
        ``.NAME.part`` when a transfer was cut, the progress on the status line."""
        link = self.view.link
        current = self.history.current
        url = link.url if link else (current.url if current else "")
        if not url:
            self.say("Nothing to download here.")
            return

        def answered(folder: str | None) -> None:
            if folder:
                self._download(url, Path(folder).expanduser())

        default = str(self.download_dir or Path.cwd())
        self.push_screen(Prompt(f"Save {url} into folder:", default), answered)

    @work(group="download", exit_on_error=False)
    async def _download(self, url: str, folder: Path) -> None:
        from omniurl.batch import fetch_many
        from omniurl.showing import download_name

        name = download_name(url)
        watched = (folder / f".{name}.part", folder / name)
        #: The outcome, once known: the progress timer says nothing more (a tick that was
        #: already due would otherwise write "Downloading …" over "Saved …").
        done: list[str] = []

        def progress() -> None:
            if done:
                return
            for path in watched:
                try:
                    self.say(f"Downloading {name}: {path.stat().st_size} bytes …")
                    return
                except OSError:
                    continue

        def finish(text: str) -> None:
            done.append(text)
            timer.stop()
            self.say(text)

        self.say(f"Downloading {name} …")
        timer = self.set_interval(0.2, progress)
        try:
            async for result in fetch_many(
                [url], options=self.options, output_dir=folder, resume=True
            ):
                if result.ok:
                    finish(f"Saved {result.path} ({result.bytes} bytes)")
                else:
                    finish(
                        f"Download failed ({result.error_type}): {result.error_message}"
                        " (d again resumes)"
                    )
        except OmniurlError as exc:
            finish(f"Download failed ({type(exc).__name__}): {exc}")
        except asyncio.CancelledError:
            finish(f"Download of {name} cancelled (d again resumes).")
            raise
        finally:
            timer.stop()
            if done:
                self.say(done[-1])  # (whatever a tick said meanwhile)

    def send(self, url: str, options: Options) -> None:
        self.say(f"Sending {url} …")
        self._send(url, options)

    @work(group="send", exit_on_error=False)
    async def _send(self, url: str, options: Options) -> None:
        from omniurl.resolvers import resolve

        try:
            async with asyncio.timeout(self.max_time):
                resource = await resolve(url, options)
                await resource.aclose()
        except (OmniurlError, TimeoutError) as exc:
            self.say(f"Not sent ({type(exc).__name__}): {exc}")
            return
        last = resource.replies[-2] if len(resource.replies) > 1 else ""
        self.say(f"Sent: {last}")

    def action_sort(self) -> None:
        """``s``: the listing in the next order (server's, name, size, date, thread)."""
        page = self.view.page
        if page.store is None or self.busy:
            self.say("Only a listing sorts.")
            return
        order = SORTS[(SORTS.index(page.order) + 1) % len(SORTS)]
        if len(page.store) < SORT_IN_PLACE:
            relist(page, order)
            self.view.show(page)
            self.say(f"Sorted by {page.order}")
            return
        self.say(f"Sorting {len(page.store)} entries by {order} …")
        self._sort(page, order)

    @work(group="sort", exclusive=True, thread=True, exit_on_error=False)
    def _sort(self, page: Page, order: str) -> None:
        """A long listing sorted in a thread (the interface keeps its turns), then shown."""
        assert page.store is not None
        rows = ordered_rows(page.store, order)
        self.call_from_thread(self._sorted, page, rows, order)

    def _sorted(self, page: Page, rows: ListingRows, order: str) -> None:
        show_rows(page, rows, order)
        if self.view.page is page:
            self.view.show(page)
        self.say(f"Sorted by {order}")

    def action_cancel(self) -> None:
        if self.busy:
            self.workers.cancel_group(self, "load")
            self.busy = False
            self.say("Cancelled.")


def _add_views(page: Page, url: str, presentation: Presentation, resource: Any) -> None:
    """The other views a resource offers (Gopher+ +VIEWS), each a link to that view, under
    the text (the gateway's choice form, as links)."""
    views = presentation.views(resource)
    if not views:
        return
    page.add_line("")
    page.add_line("Views:")
    for view in views:
        target = presentation.view_url(url, view.view)
        label = terminal_safe(
            str(getattr(view, "label", None) or f"{view.view} {getattr(view, 'size', '')}")
        ).strip()
        if target is None:
            page.add_line("  " + label)
        else:
            page.add_line("  " + label, [(2, 2 + len(label), Link(target))])


async def _read_bounded(resource: Any) -> tuple[bytes, bool]:
    """At most :data:`MAX_TEXT` bytes of the content, and whether there was more."""
    held = bytearray()
    async for chunk in resource:
        held += chunk
        if len(held) > MAX_TEXT:
            return bytes(held[:MAX_TEXT]), True
    return bytes(held), False


def _html_as_text(raw: bytes, url: str) -> tuple[str, set[int]]:
    """An HTML page as text (html2text), its links numbered at the end (``[1]: URL``, each
    a link of the page), relative ones resolved against the page's URL; and the numbers of
    the lines that were preformatted (``<pre>``: laid out by the page — nginx's and
    Apache's directory indexes, name, date and size in columns —, so never wrapped)."""
    try:
        import html2text
    except ImportError:  # (the extra not installed: the markup as it is)
        return raw.decode("utf-8", "replace"), set()
    converter = html2text.HTML2Text(bodywidth=0)
    converter.inline_links = False  # numbered: "[text][1]", then "[1]: <URL>" at the end
    converter.protect_links = True
    converter.mark_code = True  # a <pre> between "[code]" and "[/code]" lines (taken out)
    text = converter.handle(raw.decode("utf-8", "replace"))
    text = _REFERENCE.sub(lambda m: m.group(1) + _joined(url, m.group(2)) + ">", text)
    lines: list[str] = []
    preformatted: set[int] = set()
    inside = False
    for line in text.split("\n"):
        if line.strip() == "[code]":
            inside = True
        elif line.strip() == "[/code]":
            inside = False
        elif inside:
            preformatted.add(len(lines))
            lines.append(line.removeprefix("    ").rstrip("\r"))  # (html2text's indent)
        else:
            lines.append(line)
    return "\n".join(lines), preformatted


#: html2text's numbered link lines: "   [1]: <URL>".
_REFERENCE = re.compile(r"(?m)^(\s*\[\d+\]: <)([^<>\n]*)>")


def _joined(base: str, ref: str) -> str:
    """A link of the page resolved against its URL (RFC 3986 §5.2, omniurl's join: urllib's
    would mangle a base of a scheme it does not know); as written when it cannot be."""
    from omniurl.schemes import join

    try:
        return join(base, ref, check=False)
    except OmniurlError:
        return ref


def _fold_headers(text: str, presentation: Presentation) -> str:
    """An article: Subject, From, Date, Newsgroups, References on top (the rest of the
    header folded away: ``\\`` shows it), then the body."""
    head, sep, body = text.replace("\r\n", "\n").partition("\n\n")
    fields = article_headers(head, presentation)
    if not sep or not fields:
        return text
    lines = []
    for name, value in fields:
        href = value.get("href")
        lines.append(f"{name}: {value['text']}" + (f"  <URL:{href}>" if href else ""))
    return "\n".join(lines) + "\n\n" + body


def run(url: str | None, options: Options | None = None, smtp: str | None = None) -> int:
    """Run the browser in this terminal until ``q``."""
    Browser(url, options=options, smtp=smtp, terminal_colors=True).run()
    return 0


__all__ = [
    "AskForm",
    "Browser",
    "Compose",
    "PageView",
    "Prompt",
    "TextScreen",
    "ViewChoice",
    "run",
]
