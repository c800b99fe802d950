// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param ids => ['demo-household~t~t1', 'demo-household:t1']
// Batch import (voxmem.pipeline.batch): which of these message ids are already stored, and
// whether their memory is still pending, with their session and text (a replay must repeat the
// stored turn: voxmem.stores.messages.check_replay). A retried batch writes only the turns not
// found here (idempotent by turn id) and derives those still marked memory_pending.
// Params: $space, $ids (candidate message ids: namespaced and legacy form of each turn id)
UNWIND $ids AS id
MATCH (m:Message {space: $space, id: id})
RETURN m.id AS id, coalesce(m.memory_pending, false) AS pending, m.session AS session, m.text AS text;
