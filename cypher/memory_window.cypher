// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param ids => []
// :param n => 3
// The context windows of some messages (one row each): the message and up to $n previous
// messages of its session (oldest first), each with its speaker's current identity (SPEAKS participant,
// else the participant its voice is IDENTIFIED_AS, else the anonymous Speaker), the
// client-given addressees, addressees named by vocative, image captions; plus the session's participants.
// A batch import reads its chunk's windows in one statement.
// Params: $space, $ids (message ids), $n (previous turns)
UNWIND $ids AS id
MATCH (m:Message {space: $space, id: id})
MATCH (s:Session {space: $space, id: m.session})
CALL (m) {
  MATCH (w:Message {space: $space, session: m.session})
  WHERE w.idx <= m.idx AND w.idx >= m.idx - $n
  OPTIONAL MATCH (p:Participant)-[:SPEAKS]->(w)
  OPTIONAL MATCH (w)-[:SPOKEN_AS]->(:Speaker)-[:IDENTIFIED_AS]->(ip:Participant)
  OPTIONAL MATCH (w)-[:SPOKEN_AS]->(sk:Speaker)
  WITH w, coalesce(p, ip) AS who, sk
  WITH w, sk, CASE WHEN who IS NOT NULL THEN who {.id, .name, .aliases}
                   WHEN sk IS NOT NULL THEN {id: sk.id, name: null, aliases: []} END AS speaker
  ORDER BY w.idx
  RETURN collect({id: w.id, idx: w.idx, text: w.text, ts: w.ts, speaker: speaker,
                  given: [(w)-[:ADDRESSES {source: 'given'}]->(a:Participant) | a.id],
                  addressed: [(w)-[r:ADDRESSES]->(a:Participant) WHERE r.source IN ['given', 'vocative'] | a.id],
                  captions: [(w)-[:HAS_IMAGE]->(img:Image) | img.caption]}) AS turns
}
CALL (s) {
  MATCH (p:Participant)-[:PARTICIPATED_IN]->(s)
  RETURN collect(p {.id, .name, .aliases}) AS roster
}
RETURN m.id AS id, m.session AS session, s.started_at AS started_at, turns, roster;
