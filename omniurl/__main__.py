"""``python -m omniurl`` runs the command line."""

from omniurl.cli import main

raise SystemExit(main())
