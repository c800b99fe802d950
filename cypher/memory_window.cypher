// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param ids => []
// :param space => 'demo-household'
// :param n => 3
// The context windows of some messages (one row each): the message and up to $n previous
// messages of its session (oldest first), each with its speaker's current identity (SPEAKS participant,
// else the participant its voice is IDENTIFIED_AS, else the anonymous Speaker), the
// client-given addressees, addressees named by vocative, image captions, the names a spoken turn's
// ASR was told to expect; plus the session's participants
// as they were at that turn: someone who first speaks or is addressed later in the session is not
// in it yet (a live turn never sees them; a batch import or a reprocess, which find every turn
// stored already, must not either, or "everyone" and "the one other person present" would change).
// `later`: those left out for that reason (a batch adds one to the roster of its later windows once
// a turn calls them, as the call would have made them present: voxmem.pipeline.batch._follow).
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
                  captions: [(w)-[:HAS_IMAGE]->(img:Image) | img.caption],
                  vocabulary: coalesce(w.asr_vocabulary, [])}) AS turns
}
CALL (s, m) {
  MATCH (p:Participant)-[:PARTICIPATED_IN]->(s)
  WITH p, EXISTS { MATCH (p)-[:SPEAKS]->(w:Message) WHERE w.session = m.session AND w.idx <= m.idx }
     OR EXISTS { MATCH (w:Message)-[:ADDRESSES]->(p) WHERE w.session = m.session AND w.idx <= m.idx }
     OR (NOT EXISTS { MATCH (p)-[:SPEAKS]->(w:Message) WHERE w.session = m.session }
         AND NOT EXISTS { MATCH (w:Message)-[:ADDRESSES]->(p) WHERE w.session = m.session }) AS yet
  RETURN collect(CASE WHEN yet THEN p {.id, .name, .aliases} END) AS roster,
         collect(CASE WHEN NOT yet THEN p {.id, .name, .aliases} END) AS later
}
RETURN m.id AS id, m.session AS session, s.started_at AS started_at, turns, roster, later;
