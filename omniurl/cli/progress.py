"""The progress bar on stderr (rich), fed from the resource's byte count."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from omniurl.resolvers.resource import Resource


class Progress:
    """A rich progress bar fed from ``Resource.bytes_read`` (size when known)."""

    def __init__(self, resource: Resource) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            DownloadColumn,
            Progress,
            TransferSpeedColumn,
        )

        self.resource = resource
        self.progress = Progress(
            "[progress.description]{task.description}",
            BarColumn(),
            DownloadColumn(),
            TransferSpeedColumn(),
            transient=True,
            # stderr: stdout may be carrying the content itself.
            console=Console(stderr=True),
        )
        self.task = self.progress.add_task(str(resource.url)[-40:], total=resource.size)
        self.progress.start()

    def update(self) -> None:
        self.progress.update(self.task, completed=self.resource.bytes_read)

    def stop(self) -> None:
        self.progress.stop()
