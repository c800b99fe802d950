// @access.space_lucene_filter(): the required space clause of a Lucene query over a full-text
// index that holds `space` beside its text (message_scoped_text, 0007; fact_scoped_content and
// attribute_scoped_text, 0014). The index then returns only the space's nodes, so the $fetch
// limit is taken inside the space: other spaces' matches can neither take its candidates nor
// make the tool widen its search. Boosted ^0, so it never changes a score. Ends with a space;
// the query appends its own `+field:(…)`. A shortcut, never the gate: each query still checks
// `space = $space` and its access rule on every hit.
// Params: $space
'+space:"' + $space + '"^0 '
