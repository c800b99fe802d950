// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param speaker_id => null
// :param vp_id => null
// :param encoder => 'resemblyzer'
// :param message_id => null
// :param updated => false
// :param embedding => [x IN range(1, 256) | 0.0625]
// :param decision => 'LINK'
// One observation of a voice: the Voiceprint exemplar OF its speaker, and the audit record
// of the routing decision. Params: $space, $vp_id, $speaker_id, $encoder, $embedding,
// $message_id (or null), $updated (bool), $decision {id, decision, score, margin, policy}
MATCH (s:Speaker {space: $space, id: $speaker_id})
CREATE (v:Voiceprint {space: $space, id: $vp_id, encoder: $encoder, message_id: $message_id,
                      updated_centroid: $updated, created_at: datetime()})
CREATE (v)-[:OF]->(s)
WITH s, v
CALL db.create.setNodeVectorProperty(v, 'embedding', $embedding)
CREATE (r:RoutingDecision {space: $space, id: $decision.id, decision: $decision.decision,
                           score: $decision.score, margin: $decision.margin, policy: $decision.policy,
                           speaker_id: $speaker_id, message_id: $message_id, voiceprint_id: $vp_id,
                           ts: datetime()})
RETURN v.id AS voiceprint_id, r.id AS decision_id;
