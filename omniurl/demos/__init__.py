"""One demo module per scheme (see ``omniurl.demo``)."""
