// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param ids => []
// Inspect audit_speaks_voice: each listed turn, the person said to speak it, and its voice with
// the person that voice is identified as.
// Params: $space, $ids (message ids from the audit's sample)
MATCH (m:Message {space: $space})-[a:SPOKEN_AS]->(s:Speaker)-[i:IDENTIFIED_AS]->(voice:Participant)
WHERE m.id IN $ids
OPTIONAL MATCH (p:Participant)-[r:SPEAKS]->(m)
RETURN m, r, p, a, s, i, voice
LIMIT 100;
