"""The graph schema: migrations (constraints, full-text and vector indexes) and their runner."""

from voxmem.graph_schema.migrate import available_migrations, check_vector_dimensions, migrate, schema_version

__all__ = ["available_migrations", "check_vector_dimensions", "migrate", "schema_version"]
