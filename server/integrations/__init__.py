"""Adapters that let other agent frameworks use voxmem in a few lines."""
