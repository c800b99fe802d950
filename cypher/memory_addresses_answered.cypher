// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param message_id => 'demo-household~t~kitchen-monday-4'
// :param pid => null
// :param term => 'Dad'
// :param confidence => 0.7
// :param answered_by => 'demo-household~t~kitchen-monday-5'
// An earlier turn called someone by a kinship or role term nobody known bore ("Dad, can we …?")
// and the next voice ($pid) answered it (message $answered_by): the call was said to that voice.
// The earlier turn's inferred ADDRESSES edges (a turn-taking or reply guess, the vocative edge to
// the one other person present, or an LLM backend's guess) give way to one edge {source: 'answered', answered_by, term},
// so an attribution audit reads why; the facts derived from that turn alone are ADDRESSED_TO the
// answerer instead. Group edges and client-given addressees are never touched. Idempotent: a
// replay finds the edge already re-pointed.
// Params: $space, $message_id, $pid, $term, $confidence, $answered_by
MATCH (m:Message {space: $space, id: $message_id})
WHERE NOT EXISTS { (m)-[:ADDRESSES {source: 'given'}]->() }
MATCH (p:Participant {space: $space, id: $pid})
WHERE NOT EXISTS { (p)-[:SPEAKS]->(m) }
CALL (m, p) {
  OPTIONAL MATCH (m)-[r:ADDRESSES]->(q:Participant)
  WHERE q <> p AND r.source IN ['vocative', 'reply', 'turn_taking', 'llm']
  WITH collect(r) AS old, collect(q) AS gone
  FOREACH (r IN old | DELETE r)
  RETURN gone
}
MERGE (m)-[n:ADDRESSES]->(p)
SET n.source = 'answered', n.confidence = $confidence, n.answered_by = $answered_by, n.term = $term
WITH m, p, gone
CALL (m, p, gone) {
  MATCH (f:Fact)-[:DERIVED_FROM]->(m)
  WHERE COUNT { (f)-[:DERIVED_FROM]->() } = 1
  MATCH (f)-[t:ADDRESSED_TO]->(q) WHERE q IN gone
  DELETE t
  MERGE (f)-[:ADDRESSED_TO]->(p)
}
RETURN count(*) AS readdressed;
