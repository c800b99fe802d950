// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param sessions => ['kitchen-monday', 'car-wednesday']
// :param space => 'demo-household'
// Benchmark loader, second step: the NEXT chain of each listed session (idx order), for
// sessions written by bench/cypher/load_messages.cypher.
// Params: $space, $sessions (list of session ids)
UNWIND $sessions AS sid
MATCH (m:Message {space: $space, session: sid})
WITH sid, m ORDER BY m.idx
WITH sid, collect(m) AS ms
UNWIND range(0, size(ms) - 2) AS i
WITH ms[i] AS a, ms[i + 1] AS b
MERGE (a)-[:NEXT]->(b)
RETURN count(*) AS linked;
