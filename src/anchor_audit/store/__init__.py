"""What outlives a run, and what a run keeps: the cache folder, the signed SQLite store and the codecs of its rows,
which anchor-audit wrote a kept result, and the bounded most-recent values."""
