// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param id => null
// :param alias_key => 'mom'
// :param alias => 'Mom'
// Add an alias (nickname, kinship or role term) to a participant, once (compared by name key).
// names_text (what the name full-text index reads) takes the new alias too: p.aliases on the
// right of SET is still the old list.
// Params: $space, $id, $alias, $alias_key (voxmem.ids.name_key of $alias)
MATCH (p:Participant {space: $space, id: $id})
WHERE NOT $alias_key IN coalesce(p.alias_keys, []) AND coalesce(p.key, '') <> $alias_key
SET p.aliases = coalesce(p.aliases, []) + [$alias],
    p.alias_keys = coalesce(p.alias_keys, []) + [$alias_key],
    p.names_text = reduce(t = coalesce(p.name, ''), a IN coalesce(p.aliases, []) + [$alias] | t + ' ' + a)
RETURN p.id AS id;
