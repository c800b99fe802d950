"""Memory construction: identity mapping, facts, attributes and their evolution in Neo4j.

``pipeline.MemoryPipeline`` is the entry point (process a stored turn, reprocess a session
or space, delete a participant, check for orphans); ``writer`` applies one turn's
extraction in one transaction; ``identity`` (naming) and ``rules`` (repeat, supersede,
conflict) are the pure rules it follows; facts and attributes are read and written only
through ``voxmem.stores.facts``.
"""
