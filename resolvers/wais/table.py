"""A WAIS search's hits as a table on the terminal (rich, imported only here: a resolver's
package imports no terminal library)."""

from __future__ import annotations

from collections.abc import Sequence


def print_hits(title: str, rows: Sequence[Sequence[str]]) -> None:
    """Score, size, type, headline and URL of each hit, in folded columns."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    # Text(): headlines come from the server, never rich markup.
    table = Table(title=Text(title))
    for column in ("score", "size", "type", "headline", "url"):
        table.add_column(column, overflow="fold")
    for row in rows:
        table.add_row(*(Text(cell) for cell in row))
    Console().print(table)


__all__ = ["print_hits"]
