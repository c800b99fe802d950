"""Audio input: decode any common file to 16 kHz mono float32, validate it, find speech (VAD)."""

from voxmem.audio.decode import SAMPLE_RATE, Audio, AudioError, decode_audio
from voxmem.audio.validate import AudioLimits, validate_audio

__all__ = ["SAMPLE_RATE", "Audio", "AudioError", "AudioLimits", "decode_audio", "validate_audio"]
