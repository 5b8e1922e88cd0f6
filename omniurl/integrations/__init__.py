"""Where Python already opens URLs: fsspec, urllib/pandas and Dask (each an optional extra).

Each submodule imports its library at import time, so ``import omniurl.integrations`` itself
needs none of them; ``pip install 'omniurl[fsspec]'`` (or ``[dask]``, ``[pandas]``) brings the
library a submodule needs.
"""
