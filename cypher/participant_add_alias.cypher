// Add an alias (nickname, kinship or role term) to a participant, once.
// Params: $space, $id, $alias
MATCH (p:Participant {space: $space, id: $id})
WHERE NOT toLower($alias) IN [a IN coalesce(p.aliases, []) | toLower(a)]
  AND coalesce(p.key, '') <> toLower($alias)
SET p.aliases = coalesce(p.aliases, []) + [$alias],
    p.names_text = trim(coalesce(p.name, '') + ' ' + reduce(t = '', a IN coalesce(p.aliases, []) | t + ' ' + a))
RETURN p.id AS id;
