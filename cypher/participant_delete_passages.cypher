// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param id => null
// Before a participant is deleted: the other people's messages whose passage names them as an
// addressee given by the client ("Ann to Dave: ..."; their own messages are deleted). The
// passage, its dense embedding and its SPLADE terms and head are all computed from the name, so
// all four are removed here, in the deletion's transaction; the caller re-indexes these messages
// after the commit (without the deleted addressee), and `voxmem index` finds any it could not
// (a message without SPLADE terms is pending, cypher/message_index_pending.cypher).
// Params: $space, $id
MATCH (p:Participant {space: $space, id: $id})
MATCH (m:Message)-[r:ADDRESSES]->(p) WHERE r.source = 'given' AND NOT EXISTS { (p)-[:SPEAKS]->(m) }
WITH DISTINCT m
REMOVE m.passage, m.embedding, m.sparse_terms, m.sparse_weights, m.sparse_head
RETURN collect(m.id) AS ids;
