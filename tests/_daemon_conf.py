"""vsftpd's configuration as the tests and benchmarks run it (not a test module).

Kept apart from tests/_ftphttp.py, which needs pytest: the benchmarks import this from a
fresh virtual environment that has only omniurl and its peers.  Fields: ``port``, ``root``
(the anonymous tree), ``empty`` (an empty folder vsftpd insists on), ``scratch`` (its log).
"""

VSFTPD_CONF = """\
listen=YES
listen_ipv6=NO
listen_address=127.0.0.1
listen_port={port}
background=NO
run_as_launching_user=YES
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
ftp_username=nobody
"""
