"""``omniurl browse``: a terminal browser for every scheme (the ``[browse]`` extra, Textual).

The terminal sibling of the gateway: the same typed listings, presentation hooks and policy.
:mod:`omniurl.browse.model` is the pure part (pages, links, history, bookmarks);
:mod:`omniurl.browse.app` the Textual application, imported only by ``omniurl browse``.
"""
