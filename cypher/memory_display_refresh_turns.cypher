// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param ids => ['msg_example']
// :param people => []
// Captions (see memory_display_refresh) of only what some turns' memory write touched: the
// facts and attributes derived from these messages, the memory of people named or renamed by
// them (back-fill and rename re-rendered those texts), and the people of all of these
// (speakers, addressees, subjects, holders, the named). Why not the whole space: that scan ran
// on every turn, grew with the space, and its SETs on other turns' facts made concurrent turns
// deadlock; this one's cost is the turns' own memory. A caption can only go stale through a
// write, and every memory write ends here, so the whole-space query is a catch-up, not a step.
// Params: $space, $ids (message ids whose memory was just written), $people (participant ids
//         named or renamed by those turns)
OPTIONAL MATCH (m:Message {space: $space}) WHERE m.id IN $ids
WITH collect(m) AS msgs
CALL (msgs) {
  UNWIND msgs AS m
  MATCH (d)-[:DERIVED_FROM]->(m) WHERE d:Fact OR d:Attribute
  RETURN d
  UNION
  MATCH (p:Participant {space: $space}) WHERE p.id IN $people
  MATCH (d:Fact)-[:STATED_BY|ADDRESSED_TO|ABOUT]->(p)
  RETURN d
  UNION
  MATCH (p:Participant {space: $space}) WHERE p.id IN $people
  MATCH (p)-[:HAS_ATTRIBUTE]->(d:Attribute)
  RETURN d
}
WITH msgs, collect(d) AS memory
CALL (msgs, memory) {
  UNWIND msgs AS m
  MATCH (p:Participant)-[:SPEAKS]->(m)
  RETURN p
  UNION
  UNWIND msgs AS m
  MATCH (m)-[:ADDRESSES]->(p:Participant)
  RETURN p
  UNION
  UNWIND memory AS d
  MATCH (d)-[:STATED_BY|ADDRESSED_TO|ABOUT]->(p:Participant)
  RETURN p
  UNION
  UNWIND memory AS d
  MATCH (p:Participant)-[:HAS_ATTRIBUTE]->(d)
  RETURN p
  UNION
  MATCH (p:Participant {space: $space}) WHERE p.id IN $people
  RETURN p
}
WITH memory, collect(p) AS people
CALL (people) {
  UNWIND people AS p
  WITH p, coalesce(p.name, 'unnamed voice ' + substring(p.id, 2, 6)) AS shown
  WHERE p.display IS NULL OR p.display <> shown
  SET p.display = shown
  RETURN count(p) AS participants
}
CALL (memory) {
  UNWIND memory AS d
  WITH d, coalesce(d.content, d.text, '') AS text
  CALL (text) {
    // a '{p_…}' placeholder reads as that (still unnamed) person's caption
    WITH text WHERE text CONTAINS '{'
    MATCH (p:Participant {space: $space}) WHERE text CONTAINS '{' + p.id + '}'
    RETURN collect(p) AS unnamed
  }
  WITH d, reduce(t = text, p IN unnamed |
                 replace(t, '{' + p.id + '}', coalesce(p.name, 'unnamed voice ' + substring(p.id, 2, 6)))) AS shown
  WHERE d.display IS NULL OR d.display <> shown
  SET d.display = shown
  RETURN count(d) AS captions
}
RETURN participants, captions;
