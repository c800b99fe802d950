// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param rows => []
// :param space => 'demo-household'
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
// the turn that answered this one's kinship or role call was not derived again: its edge stands,
// and the guesses it replaced (memory_addresses_answered) are not written back beside it
WITH m, e, p
WHERE NOT EXISTS { MATCH (m)-[:ADDRESSES {source: 'answered'}]->(a)
                   WHERE a = p OR e.source IN ['vocative', 'reply', 'turn_taking', 'llm'] }
MERGE (m)-[r:ADDRESSES]->(p)
SET r.source = e.source, r.confidence = e.confidence
RETURN count(r) AS written;
