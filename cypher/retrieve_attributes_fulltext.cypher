// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param asker => null
// :param lucene => 'plumber'
// :param fetch => 100
// :param access_policy => 'open'
// :param participant => null
// :param kind => 'preference'
// :param current_only => true
// :param ts_from => null
// :param ts_to => null
// :param k => 10
// Retrieval tool: full-text (BM25) search over profile attribute text, inside the asker's scope.
// Scope: @access.attribute (the access rule, written once in cypher/access/; MODEL.md "Access scopes").
// Filters: $participant (owner id or name key), $kind (background|preference|relationship),
// $current_only; $ts_from/$ts_to (validity interval overlaps, as for facts). Each may be null.
// Params: $space, $access_policy, $asker, $lucene, $fetch, $k, $participant, $kind, $current_only,
//         $ts_from, $ts_to
@access.asker()
CALL db.index.fulltext.queryNodes('attribute_scoped_text',
                                  @access.space_lucene_filter() + '+text:(' + $lucene + ')',
                                  {limit: $fetch}) YIELD node AS at, score
WITH asker, asker_sessions, at, score
WHERE at.space = $space
  AND @access.attribute(at)
  AND ($participant IS NULL OR EXISTS {
        MATCH (o:Participant)-[:HAS_ATTRIBUTE]->(at) WHERE o.id = $participant OR o.key = $participant })
  AND ($kind IS NULL OR at.kind = $kind)
  AND ($current_only IS NULL OR $current_only = false OR coalesce(at.current, true) = true)
  AND ($ts_to IS NULL OR at.valid_from IS NULL OR at.valid_from <= datetime($ts_to))
  AND ($ts_from IS NULL OR at.valid_to IS NULL OR at.valid_to >= datetime($ts_from))
WITH at, score ORDER BY score DESC, at.id LIMIT $k
RETURN at.id AS id, at.text AS text, at.kind AS kind, coalesce(at.current, true) AS current,
       head([(o:Participant)-[:HAS_ATTRIBUTE]->(at) | o {.id, .name}]) AS owner,
       [(at)-[:DERIVED_FROM]->(pm:Message) | pm {.id, .session, .idx, .text, ts: toString(pm.ts),
          speaker: head([(q:Participant)-[:SPEAKS]->(pm) | q {.id, .name}]),
          addressees: [(pm)-[r:ADDRESSES]->(a:Participant) | a {.id, .name, source: r.source}]}] AS sources,
       score
ORDER BY score DESC, id;
