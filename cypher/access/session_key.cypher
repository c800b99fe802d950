// @access.session_key(space, session): a session's key unique across spaces, `<space>~<session>`,
// stored on every Message as `session_key` and indexed as a filter property of the vector index
// `message_embedding` (migration 0011). Why: session ids are chosen per space and repeat across
// spaces ("default", a date, LoCoMo's "session_1"), and the vector index takes one filter
// property per search (@access.message_search), so a filter on the bare session let other
// spaces' same-named sessions crowd the asker's candidates: at 1M messages the benchmark asker's
// 19 session ids matched 30,587 turns in 73 spaces, 419 of them the asker's, and the tool needed
// three searches (docs/scaling.md "Migration 0011"). '~' occurs in no space or session id
// (voxmem.ids.is_valid_id), so the key names one session of one space. Every writer of a Message
// sets it with this fragment, and migration 0011 back-filled older messages with the same
// expression (tests/retrieval/test_session_key.py checks both). A shortcut, never the gate.
space + '~' + session
