"""The ``Options.extra`` keys the WAIS resolver reads, and their defaults.

Shared by the planner and the command line (``resolvers.wais``' ``add_arguments`` shows the
defaults), and cheap to import: the package's ``__init__`` is imported by every ``omniurl
get``/``plan``, which must not import the APDU codec (see resolvers/lazy.py).
"""

from __future__ import annotations

#: What our Init announces as Preferred-Message-Size and Maximum-Record-Size.
MESSAGE_SIZE = 65536
#: Bytes asked for by one retrieval Search (well under MESSAGE_SIZE with the framing).
CHUNK_SIZE = 32768
#: Maximum-Documents-Retrieved of a search.
MAX_DOCUMENTS = 40

#: ``Options.extra`` keys: CHUNK_SIZE and MAX_DOCUMENTS for one resolution.
CHUNK_SIZE_KEY = "wais_chunk_size"
MAX_DOCUMENTS_KEY = "wais_max_documents"
