// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param asker => null
// :param participant => null
// :param access_policy => 'open'
// :param current_only => true
// Retrieval tool: a participant's profile (name, aliases, visible attributes with provenance),
// inside the asker's scope. Returns no row when the participant is unknown in the space.
// Scope: @access.attribute (the access rule, written once in cypher/access/; MODEL.md "Access scopes").
// Filters: $participant (owner id or name key), $kind (background|preference|relationship),
// $current_only. Each may be null.
// Params: $space, $access_policy, $asker, $participant (id or name key), $current_only
@access.asker()
MATCH (o:Participant {space: $space})
WHERE o.id = $participant OR o.key = $participant
OPTIONAL MATCH (o)-[:HAS_ATTRIBUTE]->(at:Attribute)
WHERE at.space = $space
  AND @access.attribute(at)
  AND ($current_only IS NULL OR $current_only = false OR coalesce(at.current, true) = true)
WITH o, at ORDER BY at.kind, at.created_at
RETURN o {.id, .name, .aliases} AS participant,
       collect(at {.id, .text, .kind, current: coalesce(at.current, true),
          sources: [(at)-[:DERIVED_FROM]->(pm:Message) | pm {.id, .session, .idx, .text, ts: toString(pm.ts),
             speaker: head([(q:Participant)-[:SPEAKS]->(pm) | q {.id, .name}]),
             addressees: [(pm)-[r:ADDRESSES]->(a:Participant) | a {.id, .name, source: r.source}]}]}) AS attributes;
