"""``dprelease serve``: an HTTP query service over registered tables, with a ledger that survives crashes.

* :mod:`~dprelease.service.config`: the configuration file (tables, budgets, analysts, caps).
* :mod:`~dprelease.service.db`, :mod:`~dprelease.service.ledger`: the SQLite ledger (WAL, fsync,
  exact amounts, one budget per table; charges reserved before any data is read, never refunded).
* :mod:`~dprelease.service.sessions`: online MW sessions whose state lives in the ledger's file.
* :mod:`~dprelease.service.releases`: synthetic releases (MWEM) charged to the same budgets.
* :mod:`~dprelease.service.app`, :mod:`~dprelease.service.server`: the endpoints and the HTTP server.

See docs/service.md. The service adds no noise of its own: every private read goes through the
mechanisms (and so the privacy kernel), after the ledger has committed the charge that pays for it.
"""
