"""voxmem: long-term memory for multi-party spoken conversations, kept in Neo4j."""

__version__ = "0.1.0"
