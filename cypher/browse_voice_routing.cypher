// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param voice => null
// Browser: a voice's routing decisions (CREATE a new voice or LINK to a known one), with score,
// margin, the turn and who the voice is identified as. $voice: a speaker id, a participant id
// or name (any case), or null for every voice.
// Params: $space, $voice
MATCH (d:RoutingDecision {space: $space})
OPTIONAL MATCH (s:Speaker {space: $space, id: d.speaker_id})
OPTIONAL MATCH (s)-[:IDENTIFIED_AS]->(p:Participant)
WITH d, s, p
WHERE $voice IS NULL OR d.speaker_id = $voice OR p.id = $voice OR p.key = toLower(trim($voice))
   OR toLower(p.name) = toLower(trim($voice))
OPTIONAL MATCH (m:Message {space: $space, id: d.message_id})
RETURN d.ts AS at, d.speaker_id AS voice, coalesce(p.display, p.name) AS person, d.decision AS decision,
       round(d.score, 3) AS score, round(d.margin, 3) AS margin, m.session AS session, m.idx AS turn,
       m.text AS text
ORDER BY at
LIMIT 300;
