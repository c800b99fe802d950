// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param participant => null
// One participant's profile: names, voices, counts, and open audit items naming them.
// Params: $space, $participant (id or name key)
MATCH (p:Participant {space: $space})
WHERE p.id = $participant OR p.key = $participant
RETURN p {.id, .name, .aliases, .name_source} AS participant,
       [(sk:Speaker)-[:IDENTIFIED_AS]->(p) | sk.id] AS speakers,
       COUNT { (p)-[:SPEAKS]->(:Message) } AS messages,
       COUNT { (:Message)-[:ADDRESSES]->(p) } AS addressed_in,
       COUNT { (f:Fact)-[:ABOUT]->(p) WHERE f.current } AS facts_about,
       COLLECT { MATCH (a:AuditItem {space: $space}) WHERE p.id IN coalesce(a.participants, []) AND NOT a.resolved
                 RETURN a {.id, .kind, .detail, .message_id} } AS open_audit;
