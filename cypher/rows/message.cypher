// @rows.message(m): the columns of a message search tool's row for `m` (vector, BM25, SPLADE):
// id, session and idx always; text, time, speaker and addressees only when $lean is false.
// Why a switch: the fused round (/retrieve) fuses on ids and positions alone and materialises only
// its final turns in one scoped query (ContextRetriever.turns, retrieve_context), so its channels
// ask for lean rows; reading and shipping the text, speaker and addressees of 3 x 50 rows was the
// largest part of each channel query after scoring at 100k (docs/retrieval.md "Latency, tenth pass"
// and "Latency, eleventh pass"). Neo4j evaluates only the CASE branch taken (PROFILE at 100k: 552
// db hits lean, 1,496 full, for 50 rows). The speaker is the one SPEAKS edge's participant (null
// when none), as the OPTIONAL MATCH it replaces returned it for a turn with one speaker.
// Params: $lean (boolean; Retriever.run passes false unless a tool asks for a ranking)
m.id AS id, m.session AS session, m.idx AS idx,
CASE WHEN $lean THEN null ELSE m.text END AS text,
CASE WHEN $lean THEN null ELSE toString(m.ts) END AS ts,
CASE WHEN $lean THEN null ELSE [(sp:Participant)-[:SPEAKS]->(m) | sp {.id, .name}][0] END AS speaker,
CASE WHEN $lean THEN [] ELSE [(m)-[r:ADDRESSES]->(a:Participant) | a {.id, .name, source: r.source}] END AS addressees
