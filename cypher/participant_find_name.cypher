// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param key => 'maya'
// Participants of a space who bear a name key as their name or as an alias.
// Keys come from voxmem.ids.name_key (Unicode-aware: NFKC + casefold, Latin accents folded),
// never from Cypher's toLower, so "Wei 王" and "Wei 李" stay apart and "Иван" has a key.
// Aliases are matched by their stored keys (p.alias_keys, written with every alias change).
// Params: $space, $key (normalised name, see voxmem.ids.name_key)
MATCH (p:Participant {space: $space})
WHERE p.key = $key OR $key IN coalesce(p.alias_keys, [])
   OR (p.alias_keys IS NULL AND $key IN [a IN coalesce(p.aliases, []) | toLower(a)])  // written before alias_keys
RETURN p.id AS id, p.key = $key AS by_name
ORDER BY by_name DESC, p.created_at;
