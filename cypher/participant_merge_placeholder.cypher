// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param from => null
// :param into => null
// :param keep_name => true
// Fold a voiceless placeholder participant (known only by a name others used) into the
// speaking participant who turned out to bear that name: its edges move over, its name
// is taken (or, with $keep_name, kept as an alias: a nickname like 'Mel' of Melanie), and the
// placeholder is deleted. The caller records an AuditItem (never silent). A name given by hand
// that the placeholder's name replaces is remembered (given_*, see participant_set_name).
// Params: $space, $from (placeholder id), $into (participant id), $keep_name (bool)
MATCH (src:Participant {space: $space, id: $from}), (dst:Participant {space: $space, id: $into})
WHERE NOT EXISTS { (src)-[:SPEAKS]->() } AND NOT EXISTS { (:Speaker)-[:IDENTIFIED_AS]->(src) }
CALL (src, dst) { MATCH (m:Message)-[r:ADDRESSES]->(src) MERGE (m)-[n:ADDRESSES]->(dst)
                  SET n.source = r.source, n.confidence = r.confidence }
CALL (src, dst) { MATCH (f:Fact)-[:ABOUT]->(src) MERGE (f)-[:ABOUT]->(dst) }
CALL (src, dst) { MATCH (f:Fact)-[:ADDRESSED_TO]->(src) MERGE (f)-[:ADDRESSED_TO]->(dst) }
CALL (src, dst) { MATCH (f:Fact)-[:STATED_BY]->(src) MERGE (f)-[:STATED_BY]->(dst) }
CALL (src, dst) { MATCH (src)-[:HAS_ATTRIBUTE]->(a) MERGE (dst)-[:HAS_ATTRIBUTE]->(a) }
CALL (src, dst) { MATCH (src)-[:PARTICIPATED_IN]->(s) MERGE (dst)-[:PARTICIPATED_IN]->(s) }
WITH src, dst, src.name AS name, src.key AS key, coalesce(src.aliases, []) AS aliases
DETACH DELETE src
WITH dst, name, key, aliases, ($keep_name AND dst.name IS NOT NULL) AS keep
WITH dst, keep,
     CASE WHEN keep THEN [a IN coalesce(dst.aliases, []) + aliases WHERE toLower(a) <> key] + [name]
          ELSE [a IN coalesce(dst.aliases, []) + aliases + CASE WHEN dst.name IS NULL THEN [] ELSE [dst.name] END
                WHERE toLower(a) <> key] END AS new_aliases,
     CASE WHEN keep THEN dst.name ELSE name END AS new_name,
     CASE WHEN keep THEN dst.key ELSE key END AS new_key,
     CASE WHEN keep THEN dst.name_source ELSE 'extraction' END AS new_source,
     NOT keep AND dst.name IS NOT NULL AND dst.given_key IS NULL
       AND NOT coalesce(dst.name_source, '') IN ['extraction', 'mention'] AS by_hand
SET dst.given_name = CASE WHEN by_hand THEN dst.name ELSE dst.given_name END,
    dst.given_key = CASE WHEN by_hand THEN dst.key ELSE dst.given_key END,
    dst.given_source = CASE WHEN by_hand THEN dst.name_source ELSE dst.given_source END
SET dst.aliases = new_aliases, dst.name = new_name, dst.key = new_key, dst.name_source = new_source,
    dst.names_text = reduce(t = new_name, a IN new_aliases | t + ' ' + a)
RETURN dst.id AS id;
