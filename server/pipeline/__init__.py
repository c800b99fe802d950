"""Audio ingestion: single pre-segmented turns and whole recordings (background jobs)."""
