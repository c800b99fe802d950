// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param message_id => null
// :param edges => []
// Inferred ADDRESSES edges of one message, each with how it was inferred (source) and a
// confidence. A message with client-given addressees gets none (the client knows best).
// Params: $space, $message_id, $edges [{pid, source, confidence}]
MATCH (m:Message {space: $space, id: $message_id})
WHERE NOT EXISTS { (m)-[:ADDRESSES {source: 'given'}]->() }
UNWIND $edges AS e
MATCH (p:Participant {space: $space, id: e.pid})
WHERE NOT EXISTS { (p)-[:SPEAKS]->(m) }
MERGE (m)-[r:ADDRESSES]->(p)
SET r.source = e.source, r.confidence = e.confidence
RETURN count(r) AS written;
