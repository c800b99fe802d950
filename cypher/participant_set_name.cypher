// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param id => null
// :param key => 'maya'
// :param name => 'Maya'
// Give a participant its name (learned from conversation); the previous name, if any,
// becomes an alias. Every message it SPEAKS is thereby named too (back-fill of messages).
// A name given by hand that extraction replaces is remembered (given_name, given_key,
// given_source) so a reprocess that no longer hears the learned name restores it
// (participant_forget_learned).
// Params: $space, $id, $name, $key
MATCH (p:Participant {space: $space, id: $id})
WITH p, [a IN coalesce(p.aliases, []) WHERE toLower(a) <> $key] +
        CASE WHEN p.name IS NULL OR p.key = $key THEN [] ELSE [p.name] END AS aliases,
     p.name IS NOT NULL AND p.given_key IS NULL AND NOT coalesce(p.name_source, '') IN ['extraction', 'mention'] AS by_hand
SET p.given_name = CASE WHEN by_hand THEN p.name ELSE p.given_name END,
    p.given_key = CASE WHEN by_hand THEN p.key ELSE p.given_key END,
    p.given_source = CASE WHEN by_hand THEN p.name_source ELSE p.given_source END
SET p.name = $name, p.key = $key, p.aliases = aliases, p.name_source = 'extraction',
    p.names_text = reduce(t = $name, a IN aliases | t + ' ' + a)
RETURN p.id AS id;
