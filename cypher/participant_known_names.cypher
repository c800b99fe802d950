// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param limit => 30
// Names the space already gives to people (named from conversation, by the client or by hand),
// newest first: the ASR gets them as spelling hints, so a name heard in one session is written
// the same way when it is said again in the next. People known only because a name was heard
// (name_source 'mention') are left out: a misheard word ("Mad, …") must not become a hint.
// Params: $space, $limit
MATCH (p:Participant {space: $space})
WHERE p.name IS NOT NULL AND coalesce(p.name_source, 'given') <> 'mention'
RETURN p.name AS name
ORDER BY p.created_at DESC
LIMIT $limit;
