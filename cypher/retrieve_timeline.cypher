// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param asker => null
// :param lucene => 'plumber'
// :param fetch => 100
// :param about => null
// :param access_policy => 'open'
// :param current_only => true
// :param speaker => null
// :param addressee => null
// :param session => 'kitchen-monday'
// :param ts_to => null
// :param ts_from => null
// :param k => 10
// Retrieval tool: a topic's timeline of facts with validity, oldest first, inside the asker's
// scope. The topic is a Lucene query over fact content ($lucene) and/or a participant the facts are
// ABOUT ($about); superseded facts stay in the timeline with their valid_to and the fact that
// superseded them, unless $current_only is true.
// Scope: @access.fact (the access rule, written once in cypher/access/; MODEL.md "Access scopes").
// Filters: $speaker (STATED_BY), $addressee (ADDRESSED_TO), $about (ABOUT) as participant id or
// name key; $session (a provenance message in it); $ts_from/$ts_to (validity interval overlaps);
// $current_only (true = current facts only). Each may be null.
// Params: $space, $access_policy, $asker, $lucene (or null), $fetch, $k, $speaker, $addressee, $about,
//         $session, $ts_from, $ts_to, $current_only
@access.asker()
CALL (asker) {
  WITH asker WHERE $lucene IS NOT NULL
  CALL db.index.fulltext.queryNodes('fact_scoped_content',
                                    @access.space_lucene_filter() + '+content:(' + $lucene + ')',
                                    {limit: $fetch}) YIELD node, score
  RETURN node AS f, score
  UNION
  WITH asker WHERE $lucene IS NULL AND $about IS NOT NULL
  MATCH (f:Fact {space: $space})-[:ABOUT]->(b:Participant)
  WHERE b.id = $about OR b.key = $about
  RETURN f, 1.0 AS score
}
WITH asker, asker_sessions, f, score
WHERE f.space = $space
  AND @access.fact(f)
  AND ($current_only IS NULL OR $current_only = false OR (f.current = true AND f.valid_to IS NULL))
  AND ($speaker IS NULL OR EXISTS {
        MATCH (f)-[:STATED_BY]->(p:Participant) WHERE p.id = $speaker OR p.key = $speaker })
  AND ($addressee IS NULL OR EXISTS {
        MATCH (f)-[:ADDRESSED_TO]->(a:Participant) WHERE a.id = $addressee OR a.key = $addressee })
  AND ($about IS NULL OR EXISTS {
        MATCH (f)-[:ABOUT]->(b:Participant) WHERE b.id = $about OR b.key = $about })
  AND ($session IS NULL OR EXISTS { (f)-[:DERIVED_FROM]->(:Message {session: $session}) })
  AND ($ts_to IS NULL OR f.valid_from IS NULL OR f.valid_from <= datetime($ts_to))
  AND ($ts_from IS NULL OR f.valid_to IS NULL OR f.valid_to >= datetime($ts_from))
WITH f, score ORDER BY score DESC LIMIT $k
WITH f, score ORDER BY f.valid_from, f.created_at
RETURN f.id AS id, f.content AS text, f.slot AS slot, toString(f.valid_from) AS valid_from,
       toString(f.valid_to) AS valid_to, coalesce(f.current, f.valid_to IS NULL) AS current,
       [(n:Fact)-[:SUPERSEDES]->(f) | n.id] AS superseded_by,
       [(f)-[:STATED_BY]->(p:Participant) | p {.id, .name}] AS stated_by,
       [(f)-[:ABOUT]->(p:Participant) | p {.id, .name}] AS about,
       [(f)-[:DERIVED_FROM]->(pm:Message) | pm {.id, .session, .idx, .text, ts: toString(pm.ts),
          speaker: head([(q:Participant)-[:SPEAKS]->(pm) | q {.id, .name}]),
          addressees: [(pm)-[r:ADDRESSES]->(a:Participant) | a {.id, .name, source: r.source}]}] AS sources,
       score;
