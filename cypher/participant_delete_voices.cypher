// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param speakers => []
// Delete voices identified only as the deleted participant: their Voiceprints, routing
// decisions and the Speaker nodes themselves. Params: $space, $speakers (speaker ids)
MATCH (sk:Speaker {space: $space}) WHERE sk.id IN $speakers
OPTIONAL MATCH (v:Voiceprint)-[:OF]->(sk)
OPTIONAL MATCH (r:RoutingDecision {space: $space, speaker_id: sk.id})
WITH collect(DISTINCT sk) AS speakers, collect(DISTINCT v) AS prints, collect(DISTINCT r) AS decisions
FOREACH (n IN prints | DETACH DELETE n)
FOREACH (n IN decisions | DETACH DELETE n)
FOREACH (n IN speakers | DETACH DELETE n)
RETURN size(prints) AS voiceprints, size(speakers) AS speakers, size(decisions) AS decisions;
