/// The program the resident Piper process runs (`python3 -c`), kept here so nothing has to be
/// installed beside Herald but the virtual environment.
///
/// Arguments: the default model, the thread count. Standard input: one JSON request a line,
/// `{"text": ..., "model": ..., "length_scale": ...}`. Standard output: frames of one kind byte,
/// a little-endian UInt32 length and the payload: `R` ready (JSON with the sample rate) once the
/// default model is loaded, `A` audio (float32 little-endian mono) once a sentence, `E` the end of
/// a request, `X` a request that failed (the message). It exits when its input closes, so it
/// never outlives Herald.
enum PiperServerScript {
    static let source = #"""
# herald-piper: Herald's resident Piper process (PiperServerScript.swift)
import json, os, struct, sys
import onnxruntime
from piper import PiperConfig, PiperVoice, SynthesisConfig

out = sys.stdout.buffer
default_model, threads = sys.argv[1], int(sys.argv[2])
voices = {}

def frame(kind, payload=b""):
    out.write(kind + struct.pack("<I", len(payload)) + payload)
    out.flush()

def voice(path):
    # Loaded again when the file (a link's target) was replaced, as Herald's cache key changes then.
    info = os.stat(path)
    stamp = (info.st_mtime_ns, info.st_size)
    if voices.get(path, (None, None))[0] != stamp:
        with open(path + ".json", encoding="utf-8") as config_file:
            config = PiperConfig.from_dict(json.load(config_file))
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        session = onnxruntime.InferenceSession(path, sess_options=options, providers=["CPUExecutionProvider"])
        voices[path] = (stamp, PiperVoice(config=config, session=session))
    return voices[path][1]

frame(b"R", json.dumps({"sample_rate": voice(default_model).config.sample_rate}).encode())
for line in sys.stdin:
    try:
        request = json.loads(line)
        chosen = voice(request.get("model") or default_model)
        config = SynthesisConfig(length_scale=request.get("length_scale"))
        for chunk in chosen.synthesize(request["text"], syn_config=config):
            frame(b"A", chunk.audio_float_array.astype("<f4").tobytes())
        frame(b"E")
    except Exception as error:
        frame(b"X", repr(error).encode())
"""#
}
