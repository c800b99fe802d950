// @access.asker_in_every_session(): true when the asker took part in every session of the space,
// so no message of the space lies outside `asker_sessions` (every writer of a Message matches its
// Session node first: message_append, message_batch_append, message_audio_append). Then a session
// filter filters nothing (@access.message_lucene_filter leaves its costly session clause out) and
// no turn addressed to the asker lies outside their sessions (@access.message_search skips that
// branch, which reads every turn ever addressed to the asker and tests each against the session
// list: ~15 ms on the server for the 100k benchmark's asker, 7,658 turns and 500 sessions;
// docs/retrieval.md "Latency, seventh pass"). Counts the space's sessions through the (space, id)
// uniqueness index (~1 db hit per session). A shortcut, never the gate.
// Needs `asker_sessions` from @access.asker().
// Params: $space
(size(asker_sessions) >= COUNT { (every:Session) WHERE every.space = $space AND every.id IS NOT NULL })
