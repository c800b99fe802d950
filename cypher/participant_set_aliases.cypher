// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param id => null
// :param aliases => ['Mom']
// :param alias_keys => ['mom']
// Rewrite a participant's aliases with their name keys after its name changed (a rename keeps
// the old name as an alias; a placeholder folded in brings its aliases). Python computes the
// keys (voxmem.ids.name_key) and drops aliases that repeat the name, so lookups by alias
// (participant_find_name) use the same Unicode-aware key as lookups by name.
// Params: $space, $id, $aliases (list), $alias_keys (list, same order)
MATCH (p:Participant {space: $space, id: $id})
SET p.aliases = $aliases, p.alias_keys = $alias_keys,
    p.names_text = reduce(t = coalesce(p.name, ''), a IN $aliases | t + ' ' + a)
RETURN p.id AS id;
