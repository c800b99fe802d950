// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param ids => []
// Anonymous voices (Speaker nodes) of some messages whose messages have no speaker
// participant yet: identity mapping must give each one a Participant first.
// Params: $space, $ids (message ids)
MATCH (m:Message {space: $space})-[:SPOKEN_AS]->(sk:Speaker)
WHERE m.id IN $ids AND NOT EXISTS { (:Participant)-[:SPEAKS]->(m) }
RETURN DISTINCT sk.id AS speaker_id;
