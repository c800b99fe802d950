// @access.message_search(m, score, query_vector, fetch): UNION branches of a CALL subquery
// returning `m` and `score`, the nearest messages by embedding that the asker could possibly
// read, filtered INSIDE the vector index (Cypher 25 `SEARCH … WHERE` on the index's filter
// properties, migrations 0007 and 0011): open = the space; participant and private = the asker's
// sessions of this space (`m.session_key IN …`, @access.session_key: the asker SPEAKS only in
// sessions they PARTICIPATED_IN, and a given addressee joins the session too); private also scores
// exactly the turns addressed to the asker in sessions they never joined (inferred addressees;
// none when the asker took part in every session, @access.asker_in_every_session). One filter
// property per search: Neo4j 2026.08.1 fails a conjunction filter (`m.space = … AND m.session IN
// …`) with a Lucene ArrayIndexOutOfBounds while other transactions delete indexed nodes
// (docs/retrieval.md), hence one key naming space and session together; before 0011 the bare
// session let other spaces' same-named sessions crowd the candidates.
// An unknown asker gets candidates only under open. A shortcut, never the gate: the query still
// applies @access.message to every candidate. The subquery must import `asker` and `asker_sessions`.
// Params: $space, $access_policy
WITH asker WHERE $access_policy = 'open'
MATCH (m:Message)
  SEARCH m IN (VECTOR INDEX message_embedding FOR query_vector WHERE m.space = $space LIMIT fetch)
  SCORE AS score
RETURN m, score
UNION
WITH asker_sessions WHERE $access_policy IN ['participant', 'private'] AND size(asker_sessions) > 0
WITH [sid IN asker_sessions | @access.session_key($space, sid)] AS asker_keys
MATCH (m:Message)
  SEARCH m IN (VECTOR INDEX message_embedding FOR query_vector WHERE m.session_key IN asker_keys LIMIT fetch)
  SCORE AS score
RETURN m, score
UNION
WITH asker, asker_sessions WHERE $access_policy = 'private' AND asker IS NOT NULL
  AND NOT @access.asker_in_every_session()
MATCH (m:Message)-[:ADDRESSES]->(asker)
WHERE m.space = $space AND NOT m.session IN asker_sessions AND m.embedding IS NOT NULL
RETURN m, vector.similarity.cosine(m.embedding, query_vector) AS score
