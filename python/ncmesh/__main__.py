"""`python -m ncmesh` is the `ncmesh` command."""

from .cli import main

raise SystemExit(main())
