// @access.asker_in_every_session(): true when the asker took part in every session of the space,
// so no message of the space lies outside `asker_sessions` (every writer of a Message matches its
// Session node first: message_append, message_batch_append, message_audio_append). Then a session
// filter filters nothing (@access.message_lucene_filter leaves its costly session clause out) and
// no turn addressed to the asker lies outside their sessions (@access.message_search skips that
// branch, which reads every turn ever addressed to the asker and tests each against the session
// list: ~15 ms on the server for the 100k benchmark's asker, 7,658 turns and 500 sessions;
// docs/retrieval.md "Latency, seventh pass"). Looks for one session of the space outside
// `asker_sessions` through the (space, id) uniqueness index and stops at the first: an asker who
// missed any session (the common case in a big space) costs a few db hits instead of one per
// session of the space (the count this replaced: 655 db hits with @access.asker() for the 100k
// benchmark's listener, in 50 of its 500 sessions, now 158; docs/retrieval.md "Latency, ninth
// pass"); an asker in every session costs what the count did. Comparing ids, not counts, also
// keeps it false when a duplicate PARTICIPATED_IN edge (two concurrent MERGEs) inflates
// `asker_sessions`. A shortcut, never the gate.
// Needs `asker_sessions` from @access.asker().
// Params: $space
(NOT EXISTS { (every:Session) WHERE every.space = $space AND every.id IS NOT NULL
                                    AND NOT every.id IN asker_sessions })
