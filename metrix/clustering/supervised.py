"""Supervised clustering metrics (being written)."""

__all__: list[str] = []
