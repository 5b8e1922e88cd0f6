"""``python -m omniurl`` runs the command line."""

from omniurl.cli.main import run

run()
