// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param ids => []
// Delete the deleted participant's messages with their images, the voiceprints taken from
// them and the routing decisions about them, each message first taken out of its session's BM25
// statistics (@keyword.uncount: its words leave the per-session term counts); returns the sessions
// to re-link.
// Params: $space, $ids (message ids)
MATCH (m:Message {space: $space}) WHERE m.id IN $ids
@keyword.uncount(m)
OPTIONAL MATCH (m)-[:HAS_IMAGE]->(img:Image)
OPTIONAL MATCH (v:Voiceprint {space: $space, message_id: m.id})
OPTIONAL MATCH (r:RoutingDecision {space: $space, message_id: m.id})
WITH collect(DISTINCT m) AS doomed, collect(DISTINCT m.session) AS sessions,
     collect(DISTINCT img) + collect(DISTINCT v) + collect(DISTINCT r) AS extra
FOREACH (n IN extra | DETACH DELETE n)
FOREACH (n IN doomed | DETACH DELETE n)
RETURN size(doomed) AS messages, size(extra) AS attached, sessions;
