"""``python -m praisonlike.cli``: the ``praisonlike`` command."""

from praisonlike.cli import main

raise SystemExit(main())
