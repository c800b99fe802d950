// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param session => 'kitchen-monday'
// :param speaker => null
// :param id => null
// :param idx => 0
// :param text => 'Tom, the plumber is coming on Thursday.'
// :param ts => datetime()
// :param source => 'text'
// :param passage => 'Priya: Tom, the plumber is coming on Thursday.'
// :param sparse_terms => []
// :param sparse_weights => []
// :param embedding => [x IN range(1, 384) | 0.05]
// :param addressees => []
// Append one text turn to a session, after session_lock in the same transaction.
// Creates the speaker and addressee participants if new (by normalised name key),
// the Message with its embedding, SPEAKS, ADDRESSES, PARTICIPATED_IN and NEXT edges.
// The embedding and the SPLADE terms are of the speaker-aware passage (voxmem.passages).
// Params: $space, $session, $idx, $id, $text, $ts, $source, $embedding (list of floats),
//         $passage, $sparse_terms, $sparse_weights, $speaker {key, id, name}, $addressees [{key, id, name}]
MATCH (s:Session {space: $space, id: $session})
MERGE (p:Participant {space: $space, key: $speaker.key})
  ON CREATE SET p.id = $speaker.id, p.name = $speaker.name, p.names_text = $speaker.name,
                p.aliases = [], p.created_at = datetime()
CREATE (m:Message {space: $space, id: $id, session: $session, idx: $idx, text: $text,
                   ts: datetime($ts), source: $source, created_at: datetime(),
                   passage: $passage, sparse_terms: $sparse_terms, sparse_weights: $sparse_weights})
CREATE (s)-[:HAS_MESSAGE]->(m)
CREATE (p)-[:SPEAKS]->(m)
MERGE (p)-[:PARTICIPATED_IN]->(s)
SET s.n_messages = $idx + 1, s.last_ts = datetime($ts)
WITH s, m
CALL db.create.setNodeVectorProperty(m, 'embedding', $embedding)
WITH s, m
CALL (s, m) {
  MATCH (prev:Message {space: $space, session: $session, idx: $idx - 1})
  CREATE (prev)-[:NEXT]->(m)
}
CALL (s, m) {
  UNWIND $addressees AS a
  MERGE (ap:Participant {space: $space, key: a.key})
    ON CREATE SET ap.id = a.id, ap.name = a.name, ap.names_text = a.name, ap.aliases = [],
                  ap.created_at = datetime()
  MERGE (m)-[:ADDRESSES {source: 'given'}]->(ap)
  MERGE (ap)-[:PARTICIPATED_IN]->(s)
}
RETURN m.id AS id;
