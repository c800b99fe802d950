// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param speakers => []
// Delete voices identified only as the deleted participant: their Voiceprints, routing
// decisions (by speaker or by voiceprint) and the Speaker nodes themselves. Params: $space, $speakers (speaker ids)
MATCH (sk:Speaker {space: $space}) WHERE sk.id IN $speakers
OPTIONAL MATCH (v:Voiceprint)-[:OF]->(sk)
OPTIONAL MATCH (r:RoutingDecision {space: $space, speaker_id: sk.id})
WITH collect(DISTINCT sk) AS speakers, collect(DISTINCT v) AS prints, collect(DISTINCT r) AS by_speaker
// decisions naming one of these voiceprints though routed to another speaker id (a merge
// moved the print) would point at a deleted node: they go too
CALL (prints) {
  OPTIONAL MATCH (r:RoutingDecision {space: $space}) WHERE r.voiceprint_id IN [v IN prints | v.id]
  RETURN collect(r) AS by_print
}
WITH speakers, prints, by_speaker + [r IN by_print WHERE NOT r IN by_speaker] AS decisions
FOREACH (n IN prints | DETACH DELETE n)
FOREACH (n IN decisions | DETACH DELETE n)
FOREACH (n IN speakers | DETACH DELETE n)
RETURN size(prints) AS voiceprints, size(speakers) AS speakers, size(decisions) AS decisions;
