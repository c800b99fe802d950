// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param rows => []
// Inferred ADDRESSES edges of some messages (a turn's, or a batch chunk's), each with how it
// was inferred (source) and a confidence. A message with client-given addressees gets none
// (the client knows best).
// Params: $space, $rows [{message_id, edges: [{pid, source, confidence}]}]
UNWIND $rows AS row
MATCH (m:Message {space: $space, id: row.message_id})
WHERE NOT EXISTS { (m)-[:ADDRESSES {source: 'given'}]->() }
UNWIND row.edges AS e
MATCH (p:Participant {space: $space, id: e.pid})
WHERE NOT EXISTS { (p)-[:SPEAKS]->(m) }
MERGE (m)-[r:ADDRESSES]->(p)
SET r.source = e.source, r.confidence = e.confidence
RETURN count(r) AS written;
