// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// Audit: spoken turns whose SPEAKS person is not the person their voice is IDENTIFIED_AS. Every
// identity change (link, merge, unmerge, split) re-points SPEAKS with the voice, so the two never
// disagree unless a link was written by hand or by a bug: the turn is attributed to someone whose
// voice it is not. Voices identified as nobody (or as two people, audit_speaker_identity) are
// left out. Must be zero.
// Params: $space
MATCH (m:Message {space: $space})-[:SPOKEN_AS]->(s:Speaker)
WHERE COUNT { (s)-[:IDENTIFIED_AS]->(:Participant) } = 1
MATCH (s)-[:IDENTIFIED_AS]->(voice:Participant)
WITH m, voice
WHERE EXISTS { MATCH (p:Participant)-[:SPEAKS]->(m) WHERE p <> voice }
RETURN count(DISTINCT m) AS violations, collect(DISTINCT m.id)[..10] AS sample;
