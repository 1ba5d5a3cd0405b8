"""What a finished game leaves behind: statistics rows (``rows``) and rating updates (``ratings``).

Written by the live path and the arena in the transaction that ends a game; read by the pages.
"""
