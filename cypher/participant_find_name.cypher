// Participants of a space who bear a name key as their name or as an alias.
// Params: $space, $key (normalised name, see voxmem.ids.name_key)
MATCH (p:Participant {space: $space})
WHERE p.key = $key OR $key IN [a IN coalesce(p.aliases, []) | toLower(a)]
RETURN p.id AS id, p.key = $key AS by_name
ORDER BY by_name DESC, p.created_at;
