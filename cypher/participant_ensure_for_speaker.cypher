// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param speaker_id => null
// :param pid => null
// Identity mapping for an anonymous voice: the Participant its Speaker is IDENTIFIED_AS,
// created (unnamed, key null) when none exists yet, and SPEAKS edges from it to every
// message spoken as that voice that has no speaker participant yet. Voiceprints untouched.
// Params: $space, $speaker_id, $pid (id used if a participant must be created)
MATCH (sk:Speaker {space: $space, id: $speaker_id})
OPTIONAL MATCH (sk)-[:IDENTIFIED_AS]->(known:Participant)
WITH sk, head(collect(known)) AS known
OPTIONAL CALL (sk, known) {
  WITH sk, known WHERE known IS NULL
  CREATE (c:Participant {space: $space, id: $pid, aliases: [], names_text: '', name_evidence: [],
                         created_at: datetime()})
  CREATE (sk)-[:IDENTIFIED_AS {confidence: 1.0, source: 'extraction'}]->(c)
  RETURN c
}
WITH sk, coalesce(known, c) AS p
CALL (sk, p) {
  MATCH (m:Message {space: $space})-[:SPOKEN_AS]->(sk)
  WHERE NOT EXISTS { (:Participant)-[:SPEAKS]->(m) }
  MERGE (p)-[:SPEAKS]->(m)
  WITH p, m
  MATCH (s:Session {space: $space, id: m.session})
  MERGE (p)-[:PARTICIPATED_IN]->(s)
}
RETURN p.id AS id;
