"""Speech recognition backends (faster-whisper by default, whisperx optional)."""

from voxmem.asr.transcriber import AsrUnavailable, Transcript, Word, build_transcriber

__all__ = ["AsrUnavailable", "Transcript", "Word", "build_transcriber"]
