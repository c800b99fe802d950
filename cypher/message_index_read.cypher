// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param ids => []
// :param space => 'demo-household'
// Message indexing (voxmem.passages): the messages to (re)index with what their passage is
// built from: text, the speaker's current name and the names of addressees given by the client
// (inferred addressees are guesses and stay out of the passage), and the passage stored now.
// Params: $space, $ids (message ids)
UNWIND $ids AS id
MATCH (m:Message {id: id})
WHERE m.space = $space
OPTIONAL MATCH (sp:Participant)-[:SPEAKS]->(m)
RETURN m.id AS id, m.text AS text, m.passage AS passage, sp.name AS speaker,
       [(m)-[r:ADDRESSES]->(a:Participant) WHERE r.source = 'given' AND a.name IS NOT NULL | a.name]
         AS addressees;
