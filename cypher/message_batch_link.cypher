// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param links => [{session: 'kitchen-monday', idx: 1}]
// :param sessions => [{session: 'kitchen-monday', n_messages: 2, last_ts: toString(datetime())}]
// Batch import, after message_batch_append in the same transaction: the NEXT edge from each
// new message's predecessor (idx - 1, stored earlier or in this batch) and each session's
// message count and last timestamp, as message_append sets them for one turn.
// Params: $space, $links [{session, idx}] (new messages with idx > 0),
//         $sessions [{session, n_messages, last_ts}]
CALL () {
  UNWIND $links AS link
  MATCH (prev:Message {space: $space, session: link.session, idx: link.idx - 1})
  MATCH (m:Message {space: $space, session: link.session, idx: link.idx})
  CREATE (prev)-[:NEXT]->(m)
  RETURN count(*) AS linked
}
CALL () {
  UNWIND $sessions AS row
  MATCH (s:Session {space: $space, id: row.session})
  SET s.n_messages = row.n_messages, s.last_ts = datetime(row.last_ts)
  RETURN count(*) AS sessions
}
RETURN linked, sessions;
