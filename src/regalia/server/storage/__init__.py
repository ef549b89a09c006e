"""The server's database: ``models`` (tables, rows), ``values`` (the data read back and
the data written, the conflicts a write may meet), ``engine`` (engines and migrations),
``database`` (how a call reaches the database: deadlines, at-once writes, disk syncs),
``statements`` (the hot paths' statements), ``store`` (``Store``: the blocking calls) and
``writer`` (``Writer``: the write path, group commit of the moves, every write bounded in
time)."""
