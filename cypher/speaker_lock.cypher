// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// First statement of a routing transaction: take the space's voice lock (the SET), so two
// turns of one space are routed one after the other and a new voice seen twice at once
// cannot create two speakers. Text-only appends never take this lock.
// Params: $space
MATCH (sp:Space {id: $space})
SET sp.voice_locked_at = datetime()
RETURN sp.id AS space;
