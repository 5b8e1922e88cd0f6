"""resolvers.ftp.listing: MLSD facts (RFC 3659 §7) and the LIST formats servers write."""

from __future__ import annotations

import datetime

import pytest

from omniurl.resolvers.ftp.listing import Fact, parse_list_line, parse_mlsd_line, parse_nlst_line

TODAY = datetime.date(2026, 11, 24)


@pytest.mark.parametrize(
    ("line", "fact"),
    [
        (
            "type=file;size=1234;modify=20240305060708; a.txt",
            Fact("a.txt", "file", 1234, "2024-03-05T06:07:08Z"),
        ),
        (
            "type=dir;modify=20240305060708.123; sub dir",
            Fact("sub dir", "directory", None, "2024-03-05T06:07:08Z"),
        ),
        ("Type=OS.unix=symlink;Size=4; link", Fact("link", "link", 4, None)),
        ("type=cdir; .", None),
        ("type=pdir; ..", None),
        ("nonsense", None),
    ],
)
def test_mlsd(line: str, fact: Fact | None) -> None:
    assert parse_mlsd_line(line) == fact


@pytest.mark.parametrize(
    ("line", "fact"),
    [
        # vsftpd / GNU ls
        (
            "-rw-r--r--    1 0        0            4096 Mar 05 06:07 data.bin",
            Fact("data.bin", "file", 4096, "2026-03-05T06:07:00"),
        ),
        (
            "drwxr-xr-x    2 ftp      ftp          4096 Dec 31  2019 old stuff",
            Fact("old stuff", "directory", 4096, "2019-12-31"),
        ),
        (
            "lrwxrwxrwx    1 0        0               7 Nov 20 10:00 latest -> v1.2.3",
            Fact("latest", "link", 7, "2026-11-20T10:00:00", "v1.2.3"),
        ),
        # ProFTPD without the group column, a future-looking date (last year)
        (
            "-rw-r--r--   1 user     12 Dec 25 12:00 x.txt",
            Fact("x.txt", "file", 12, "2025-12-25T12:00:00"),
        ),
        # IIS / DOS
        (
            "03-05-24  06:07AM       <DIR>          Program Files",
            Fact("Program Files", "directory", None, "2024-03-05T06:07:00"),
        ),
        (
            "11-24-2026  11:59PM              1234 report.pdf",
            Fact("report.pdf", "file", 1234, "2026-11-24T23:59:00"),
        ),
        ("total 12", None),
        ("drwxr-xr-x 2 u g 4096 Mar  5 06:07 .", None),
        ("weird line from an old server", Fact("weird line from an old server", "entry")),
    ],
)
def test_list_formats(line: str, fact: Fact | None) -> None:
    assert parse_list_line(line, today=TODAY) == fact


def test_nlst() -> None:
    assert parse_nlst_line("pub/a.txt") == Fact("a.txt", "entry")
    assert parse_nlst_line("") is None


def test_mlsd_symbolic_links_with_and_without_their_target() -> None:
    """ProFTPD's ``OS.unix=slink:TARGET`` gives the target (a mirror makes the link from
    it); ``OS.unix=symlink`` gives none."""
    from omniurl.resolvers.ftp.listing import Fact, parse_mlsd_line

    assert parse_mlsd_line("type=OS.unix=slink:../Sub/A;size=3; l") == Fact(
        name="l", kind="link", size=3, target="../Sub/A"
    )
    assert parse_mlsd_line("type=OS.unix=symlink; l") == Fact(name="l", kind="link")
