// @access.message_search(m, score, query_vector, fetch): UNION branches of a CALL subquery
// returning `m` and `score`, the nearest messages by embedding that the asker could possibly
// read, filtered INSIDE the vector index (Cypher 25 `SEARCH … WHERE` on the index's filter
// properties, migration 0007): open = the space; participant and private = the asker's sessions
// (`m.session IN asker_sessions`: the asker SPEAKS only in sessions they PARTICIPATED_IN, and a
// given addressee joins the session too); private also scores exactly the turns addressed to
// the asker in sessions they never joined (inferred addressees; none when the asker took part in
// every session, @access.asker_in_every_session). One filter property per search:
// Neo4j 2026.08.1 fails a conjunction filter (`m.space = … AND m.session IN …`) with a Lucene
// ArrayIndexOutOfBounds while other transactions delete indexed nodes (docs/retrieval.md), so
// a same-named session of another space can share the candidates; the query drops it (m.space).
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
MATCH (m:Message)
  SEARCH m IN (VECTOR INDEX message_embedding FOR query_vector WHERE m.session IN asker_sessions LIMIT fetch)
  SCORE AS score
RETURN m, score
UNION
WITH asker, asker_sessions WHERE $access_policy = 'private' AND asker IS NOT NULL
  AND NOT @access.asker_in_every_session()
MATCH (m:Message)-[:ADDRESSES]->(asker)
WHERE m.space = $space AND NOT m.session IN asker_sessions AND m.embedding IS NOT NULL
RETURN m, vector.similarity.cosine(m.embedding, query_vector) AS score
