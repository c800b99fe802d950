// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param ref => 'maya'
// :param key => 'maya'
// Participants of a space that a caller's reference can mean: the participant with that id, or those
// bearing the normalised name as their name or an alias (askers may be given by id or by name).
// Params: $space, $ref (as given), $key (voxmem.ids.name_key of it)
MATCH (p:Participant {space: $space})
WHERE p.id = $ref OR p.key = $key OR $key IN coalesce(p.alias_keys, [])
   OR (p.alias_keys IS NULL AND $key IN [a IN coalesce(p.aliases, []) | toLower(a)])  // written before alias_keys
RETURN p.id AS id, p.name AS name, p.id = $ref AS by_id, p.key = $key AS by_name
ORDER BY by_id DESC, by_name DESC, p.created_at;
