"""Read gnnref's native binary dataset format (docs/formats.md, core/io/format.c) with numpy.

One little-endian file: a 512-byte header, then the sections indptr (int64, n + 1), indices
(int64, nnz), features (f32, n x f), labels (int32, n), split (uint8, n), each 64-byte aligned,
located by the header's section table, then up to five named extension sections. Version 2 with
flag bit 5 keeps the features as CSR in the extension sections feat_ptr (int64, n + 1),
feat_col (int32) and feat_val (f32) instead of the dense section; this reader then builds the
dense matrix too (`features`) and keeps the CSR arrays (`feat_csr`). The arrays are
memory-mapped (read-only), as gnnref's own loader does. The CRCs are not checked here: gnnref checks them when it loads the same file
in the same benchmark run.
"""
import struct

import numpy as np

MAGIC = b"GNNREF\0\0"
SECTIONS = (("indptr", np.int64), ("indices", np.int64), ("features", np.float32),
            ("labels", np.int32), ("split", np.uint8))
SPLIT_TRAIN, SPLIT_VAL, SPLIT_TEST = 1, 2, 3


class GnnFile:
    """Fields: n, nnz, num_features, num_classes, name, indptr, indices, features (n, f) or
    None, labels or None, split or None."""

    def __init__(self, path):
        with open(path, "rb") as f:
            head = f.read(512)
        if len(head) < 512 or head[:8] != MAGIC:
            raise ValueError(f"{path}: not a gnnref file (magic)")
        version, header_size = struct.unpack_from("<II", head, 8)
        if version not in (1, 2) or header_size != 512:
            raise ValueError(f"{path}: unsupported version {version} / header size {header_size}")
        self.n, self.nnz, self.num_features, self.num_classes = struct.unpack_from("<qqqq", head, 16)
        flags, slots = struct.unpack_from("<II", head, 48)
        self.name = head[64:128].split(b"\0", 1)[0].decode("ascii", "replace")
        mm = np.memmap(path, dtype=np.uint8, mode="r")
        for s, (name, dtype) in enumerate(SECTIONS):
            off, length, _crc, elem = struct.unpack_from("<QQII", head, 128 + 32 * s)
            arr = None
            if flags & (1 << s):
                if elem != np.dtype(dtype).itemsize or off + length > mm.shape[0]:
                    raise ValueError(f"{path}: section {name}: bad element size or extent")
                arr = mm[off:off + length].view(dtype)
                if name == "features":
                    arr = arr.reshape(self.n, self.num_features)
            setattr(self, name, arr)
        self.ext = {}
        for i in range(max(0, min(slots - len(SECTIONS), 5))):
            off, length, _crc, elem = struct.unpack_from("<QQII", head, 320 + 32 * i)
            name = head[320 + 32 * i + 24:320 + 32 * i + 32].split(b"\0", 1)[0].decode("ascii", "replace")
            dtype = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.int64}[elem]
            self.ext[name] = mm[off:off + length].view(dtype)
        self.feat_csr = None
        if flags & (1 << 5):
            ptr = self.ext["feat_ptr"].view(np.int64)
            col = self.ext["feat_col"].view(np.int32)
            val = self.ext["feat_val"].view(np.float32)
            self.feat_csr = (ptr, col, val)
            dense = np.zeros((self.n, self.num_features), dtype=np.float32)
            rows = np.repeat(np.arange(self.n, dtype=np.int64), np.diff(ptr))
            dense[rows, col] = val
            self.features = dense
        if self.indptr is None or self.indices is None:
            raise ValueError(f"{path}: no graph sections")
        if self.indptr.shape[0] != self.n + 1 or self.indices.shape[0] != self.nnz:
            raise ValueError(f"{path}: section sizes do not match the header")

    def ids(self, code):
        """Vertex ids whose split code is `code`, in id order."""
        return np.nonzero(self.split == code)[0].astype(np.int64)
