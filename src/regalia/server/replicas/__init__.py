"""Many server processes, one site, over Redis: ``cluster`` (``Cluster``: table events on
pub/sub, the heartbeat; knows no registry, only the callbacks it is handed), ``leases``
(``Leases``: which replica runs a table's bots and clock) and ``connections`` (websockets
per client address, counted across the replicas)."""
