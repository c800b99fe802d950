// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param old => null
// :param message_id => null
// :param pid => null
// Facts and attributes that speak of a participant by the name they had before a rename
// (a correction such as "Actually it's Katherine, not Kate"): facts about them, stated by
// them or with them as subject, and attributes they hold, whose text contains the old name.
// The writer replaces the old name as a whole word and re-embeds (memory_backfill_set), so
// what people read follows the correction. Current and superseded ones alike; not what the
// correcting turn itself said ("Actually it's Katherine, not Kate" keeps its "Kate").
// Params: $space, $pid, $old (the previous name, as written in texts), $message_id (the correction)
MATCH (f:Fact {space: $space})
WHERE f.content CONTAINS $old AND NOT EXISTS { (f)-[:DERIVED_FROM]->(:Message {id: $message_id}) }
  AND (f.subject_key = $pid OR EXISTS { (f)-[:ABOUT]->(:Participant {id: $pid}) }
       OR EXISTS { (f)-[:STATED_BY]->(:Participant {id: $pid}) })
RETURN f.id AS id, 'Fact' AS label, f.content AS text
UNION
MATCH (:Participant {space: $space, id: $pid})-[:HAS_ATTRIBUTE]->(a:Attribute)
WHERE a.text CONTAINS $old AND NOT EXISTS { (a)-[:DERIVED_FROM]->(:Message {id: $message_id}) }
RETURN a.id AS id, 'Attribute' AS label, a.text AS text;
