// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param participant => null
// Message indexing (voxmem.passages): the messages whose passage names a participant (as the
// speaker, or as an addressee given by the client), to re-index after a naming or renaming.
// Params: $space, $participant (participant id)
MATCH (p:Participant {space: $space, id: $participant})
CALL (p) {
  MATCH (p)-[:SPEAKS]->(m:Message)
  RETURN m
  UNION
  MATCH (m:Message)-[r:ADDRESSES]->(p) WHERE r.source = 'given'
  RETURN m
}
RETURN m.id AS id;
