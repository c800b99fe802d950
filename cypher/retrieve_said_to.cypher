// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param asker => null
// :param speaker => null
// :param addressee => null
// :param access_policy => 'open'
// :param session => 'kitchen-monday'
// :param ts_from => null
// :param ts_to => null
// :param embedding => [x IN range(1, 384) | 0.05]
// :param k => 10
// Graph tool "what did A say to B": turns A SPEAKS that ADDRESS B, inside the asker's scope, ranked
// by similarity to $embedding when given, else newest first. A and B are participant ids or name keys.
// Scope: @access.message (the access rule, written once in cypher/access/; MODEL.md "Access scopes").
// Params: $space, $access_policy, $asker, $speaker, $addressee, $embedding (or null), $k, $session,
//         $ts_from, $ts_to
@access.asker()
MATCH (a:Participant {space: $space})-[:SPEAKS]->(m:Message)-[:ADDRESSES]->(b:Participant {space: $space})
WHERE (a.id = $speaker OR a.key = $speaker) AND (b.id = $addressee OR b.key = $addressee)
  AND @access.message(m)
  AND ($session IS NULL OR m.session = $session)
  AND ($ts_from IS NULL OR m.ts >= datetime($ts_from))
  AND ($ts_to IS NULL OR m.ts <= datetime($ts_to))
WITH DISTINCT m,
     CASE WHEN $embedding IS NULL OR m.embedding IS NULL THEN 0.0
          ELSE vector.similarity.cosine(m.embedding, $embedding) END AS score
ORDER BY score DESC, m.ts DESC LIMIT $k
OPTIONAL MATCH (sp:Participant)-[:SPEAKS]->(m)
RETURN m.id AS id, m.session AS session, m.idx AS idx, m.text AS text, toString(m.ts) AS ts,
       sp {.id, .name} AS speaker,
       [(m)-[r:ADDRESSES]->(a:Participant) | a {.id, .name, source: r.source, confidence: r.confidence}] AS addressees,
       score
ORDER BY score DESC, ts DESC;
