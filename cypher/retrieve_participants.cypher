// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param limit => 50
// Names, aliases and ids of the participants of a space, so a planner can map names in a question
// to participant filters. Names are not evidence: no message, fact or attribute is returned.
// Params: $space, $limit
MATCH (p:Participant {space: $space})
RETURN p.id AS id, p.name AS name, p.key AS key, coalesce(p.aliases, []) AS aliases
ORDER BY p.name LIMIT $limit;
