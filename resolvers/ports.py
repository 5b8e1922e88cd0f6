"""Port lists used by the safety policy.

RFC 1738 §6: "A URL-specified port number ... should be used with care, especially when it is a
number within the reserved space."  Browsers settled on a concrete list; we take it whole and
add the cross-protocol targets it misses.
"""

from __future__ import annotations

#: The "bad ports" of the WHATWG Fetch standard (§2.9 "port blocking"): 83 ports, 0 included.
FETCH_BAD_PORTS: frozenset[int] = frozenset(
    {
        0, 1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95,
        101, 102, 103, 104, 109, 110, 111, 113, 115, 117, 119, 123, 135, 137, 139, 143, 161,
        179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532, 540, 548, 554, 556, 563,
        587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060,
        5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
    }
)  # fmt: skip

#: Services that speak a line protocol and trust their network: the usual SSRF targets of
#: ``gopher://`` and friends that Fetch's list does not cover.  Port -> what listens there.
CROSS_PROTOCOL_TARGETS: dict[int, str] = {
    1433: "Microsoft SQL Server",
    1521: "Oracle TNS",
    2375: "Docker API (plain)",
    2376: "Docker API (TLS)",
    2379: "etcd",
    3306: "MySQL",
    5432: "PostgreSQL",
    5984: "CouchDB",
    6379: "Redis",
    8500: "Consul",
    9000: "PHP-FPM (FastCGI)",
    9042: "Cassandra",
    9200: "Elasticsearch",
    11211: "memcached",
    11300: "beanstalkd",
    15672: "RabbitMQ management",
    25565: "Minecraft",
    27017: "MongoDB",
}

#: Every port the default policy refuses unless the caller allows it.
BLOCKED_PORTS: frozenset[int] = FETCH_BAD_PORTS | frozenset(CROSS_PROTOCOL_TARGETS)


def why_blocked(port: int) -> str | None:
    """The reason a port is on the blocked list, or ``None``."""
    if port in CROSS_PROTOCOL_TARGETS:
        return f"a cross-protocol target ({CROSS_PROTOCOL_TARGETS[port]})"
    if port in FETCH_BAD_PORTS:
        return "on the Fetch standard's list of bad ports"
    return None
