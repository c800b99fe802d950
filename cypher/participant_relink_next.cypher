// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param sessions => ['kitchen-monday', 'car-wednesday']
// :param space => 'demo-household'
// Re-link NEXT over gaps left by deleted messages, so each session stays one chain in idx
// order (MERGE: existing links are kept). Params: $space, $sessions (session ids)
UNWIND $sessions AS sid
MATCH (m:Message {space: $space, session: sid})
WITH sid, m ORDER BY m.idx
WITH sid, collect(m) AS ms
UNWIND range(0, size(ms) - 2) AS i
WITH ms[i] AS a, ms[i + 1] AS b
MERGE (a)-[:NEXT]->(b)
RETURN count(*) AS links;
