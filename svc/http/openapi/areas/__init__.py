"""One module per blueprint: its view functions' :class:`~..registry.Op` entries.

A module's ``OPERATIONS`` maps view function names to ops; ``BLUEPRINT`` names
the blueprint when the module name cannot (``global_``). Modules are found by
listing this package, so a new area adds a file and touches nothing else.
"""
