"""``python -m praisonlike``: the ``praisonlike`` command."""

from praisonlike.cli import main

raise SystemExit(main())
