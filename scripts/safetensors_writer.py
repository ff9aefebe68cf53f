"""Writes safetensors files to the format's specification (the safetensors package is not
a Debian package): an 8-byte little-endian header length, a JSON header padded with spaces
to a multiple of 8, then the tensors' bytes back to back in header order."""
import json
import struct


def write_safetensors(path, tensors, metadata=None):
    """tensors: list of (name, dtype code such as "F32", shape, raw little-endian bytes)."""
    header = {}
    if metadata is not None:
        header["__metadata__"] = metadata
    offset = 0
    for name, code, shape, raw in tensors:
        header[name] = {"dtype": code, "shape": list(shape), "data_offsets": [offset, offset + len(raw)]}
        offset += len(raw)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for _, _, _, raw in tensors:
            f.write(raw)
