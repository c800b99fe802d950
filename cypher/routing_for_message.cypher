// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param message_id => null
// The routing decision(s) recorded for one message (audit view): the latest first.
// Params: $space, $message_id
MATCH (r:RoutingDecision {space: $space, message_id: $message_id})
RETURN r.id AS decision_id, r.decision AS decision, r.score AS score, r.margin AS margin,
       r.policy AS policy, r.speaker_id AS speaker_id, toString(r.ts) AS ts
ORDER BY r.ts DESC;
