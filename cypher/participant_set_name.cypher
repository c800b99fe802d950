// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param id => null
// :param key => 'maya'
// :param name => 'Maya'
// Give a participant its name (learned from conversation); the previous name, if any,
// becomes an alias. Every message it SPEAKS is thereby named too (back-fill of messages).
// Params: $space, $id, $name, $key
MATCH (p:Participant {space: $space, id: $id})
WITH p, [a IN coalesce(p.aliases, []) WHERE toLower(a) <> $key] +
        CASE WHEN p.name IS NULL OR p.key = $key THEN [] ELSE [p.name] END AS aliases
SET p.name = $name, p.key = $key, p.aliases = aliases, p.name_source = 'extraction',
    p.names_text = reduce(t = $name, a IN aliases | t + ' ' + a)
RETURN p.id AS id;
