"""Agentic retrieval and answering over interaction, fact and profile memory.

Data flows one way into here (messages → extraction → memory) and out as answers: the
tools in :mod:`tools` run the scoped Cypher queries of ``cypher/retrieve_*.cypher``,
:mod:`fusion` merges their rankings, :mod:`agent` plans up to three rounds, and
:mod:`answer` turns the retained evidence into an answer that names its evidence, trace
and access scope.
"""
