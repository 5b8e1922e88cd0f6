"""vsftpd's configuration as the tests and benchmarks run it (not a test module).

Kept apart from tests/_ftphttp.py, which needs pytest: the benchmarks import this from a
fresh virtual environment that has only omniurl and its peers.  Fields: ``port``, ``root``
(the anonymous tree), ``empty`` (an empty folder vsftpd insists on), ``scratch`` (its log).

Anonymous users are confined to ``root``: vsftpd is started as root (never
``run_as_launching_user``, under which "vsftpd does not / cannot use chroot technology to
restrict file access", vsftpd.conf(5) — before, ``ftp://127.0.0.1:PORT/%2Fetc/`` listed the
machine's /etc through the tests' server) and chroots an anonymous session into
``anon_root``, then serves it as ``ftp_username`` (Debian's vsftpd package makes the user
``ftp``; its home must exist, vsftpd changes into it before the chroot).  So the tree's
files must be readable by that user, and ``empty`` owned by root and not writable by others
(``secure_chroot_dir``).  :func:`confinement_missing` says why this cannot hold here.
"""

import os

VSFTPD_CONF = """\
listen=YES
listen_ipv6=NO
listen_address=127.0.0.1
listen_port={port}
background=NO
run_as_launching_user=NO
anonymous_enable=YES
anon_root={root}
local_enable=NO
write_enable=NO
connect_from_port_20=NO
pasv_enable=YES
seccomp_sandbox=NO
secure_chroot_dir={empty}
xferlog_enable=NO
syslog_enable=NO
vsftpd_log_file={scratch}/vsftpd.log
ftp_username=ftp
chroot_local_user=YES
"""


def confinement_missing() -> str | None:
    """Why vsftpd could not confine anonymous users to ``anon_root`` here (None: it can):
    only root can chroot, and the anonymous user must exist with a home."""
    if os.geteuid() != 0:
        return "vsftpd confines anonymous users to anon_root only when started as root"
    try:
        import pwd

        home = pwd.getpwnam("ftp").pw_dir
    except KeyError:
        return "no user ftp (Debian's vsftpd package makes it) for vsftpd's anonymous logins"
    if not os.path.isdir(home):
        return f"the ftp user's home {home} is missing (vsftpd changes into it)"
    return None
