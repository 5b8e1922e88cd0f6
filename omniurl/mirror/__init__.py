"""``omniurl mirror``: a tree under a URL copied into a folder and kept current.

``walk`` decides (pure: which links are followed, the local name of a remote name, whether
a file is fetched again); ``state`` remembers (SQLite in ``DIR/.omniurl-mirror``); ``run``
moves the bytes through an :class:`omniurl.AsyncClient`; ``warc`` writes the WARC records.
"""
