// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param ids => []
// :param space => 'demo-household'
// Some messages were derived again while the turn that answered their kinship or role call was
// not (its ADDRESSES {source: 'answered'} edge was kept by memory_clear_messages and
// memory_addresses_write wrote no guess beside it): their facts derived from them alone are
// ADDRESSED_TO the answerer instead of the guesses, as memory_addresses_answered left them, so
// re-deriving the calling turn alone no longer brings its turn-taking guess back.
// Params: $space, $ids (message ids)
UNWIND $ids AS id
MATCH (m:Message {space: $space, id: id})-[:ADDRESSES {source: 'answered'}]->(p:Participant)
CALL (m, p) {
  MATCH (f:Fact)-[:DERIVED_FROM]->(m)
  WHERE COUNT { (f)-[:DERIVED_FROM]->() } = 1
  MATCH (f)-[t:ADDRESSED_TO]->(q) WHERE NOT EXISTS { (m)-[:ADDRESSES]->(q) }
  DELETE t
  MERGE (f)-[:ADDRESSED_TO]->(p)
}
RETURN count(*) AS kept;
