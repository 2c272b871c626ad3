"""``python -m hermes_trail`` runs the ``trail`` command."""

from hermes_trail.cli.app import main

main()
