"""ctypes declarations of libtile's C API (include/tile/tile.h) and the
library's loading. Pure Python: nothing here is compiled."""

import ctypes
import os

TILE_OK = 0

# tile_dtype
F16, BF16, F32, I32, BOOL, F8E4M3, F8E5M2, I64, I8 = 0, 1, 2, 3, 4, 5, 6, 7, 8
DTYPE_NAMES = {F16: "f16", BF16: "bf16", F32: "f32", I32: "i32", BOOL: "bool",
               F8E4M3: "f8e4m3", F8E5M2: "f8e5m2", I64: "i64", I8: "i8"}

# tile_arg_kind
ARG_TENSOR, ARG_INT, ARG_FLOAT, ARG_BOOL = 0, 1, 2, 3


class Tensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("dtype", ctypes.c_int),
        ("rank", ctypes.c_int32),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
    ]


class _ArgValue(ctypes.Union):
    _fields_ = [
        ("tensor", Tensor),
        ("i", ctypes.c_int64),
        ("f", ctypes.c_float),
        ("b", ctypes.c_int32),
    ]


class Arg(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int), ("value", _ArgValue)]


class Constant(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("value", ctypes.c_char_p)]


class CompileOptions(ctypes.Structure):
    # The compile options travel as text ("num_warps=8,warp_specialize=on"):
    # Python names none of them (tile_option_list() does).
    _fields_ = [
        ("constants", ctypes.POINTER(Constant)),
        ("num_constants", ctypes.c_size_t),
        ("kernel", ctypes.c_char_p),
        ("arch", ctypes.c_char_p),
        ("options", ctypes.c_char_p),
    ]


class Stats(ctypes.Structure):
    _fields_ = [
        ("compiles", ctypes.c_uint64),
        ("disk_hits", ctypes.c_uint64),
        ("disk_writes", ctypes.c_uint64),
        ("memory_hits", ctypes.c_uint64),
        ("modules_loaded", ctypes.c_uint64),
        ("alignment_variants", ctypes.c_uint64),
    ]


class AttentionOptions(ctypes.Structure):
    _fields_ = [
        ("causal", ctypes.c_int),
        ("has_scale", ctypes.c_int),
        ("scale", ctypes.c_float),
        ("input_pos", ctypes.c_int64),
        ("disable_autotune", ctypes.c_int),
    ]


class MlaDecodeOptions(ctypes.Structure):
    _fields_ = [
        ("head_dim_v", ctypes.c_int64),
        ("has_scale", ctypes.c_int),
        ("scale", ctypes.c_float),
        ("non_causal", ctypes.c_int),
        ("num_splits", ctypes.c_int64),
        ("plan", ctypes.c_void_p),
    ]


class KVCacheOptions(ctypes.Structure):
    _fields_ = [
        ("has_scale", ctypes.c_int),
        ("scale", ctypes.c_float),
        ("non_causal", ctypes.c_int),
        ("num_splits", ctypes.c_int64),
        ("plan", ctypes.c_void_p),
        ("check_block_table", ctypes.c_int),
        ("tickets", ctypes.c_void_p),
    ]


class TuneCandidate(ctypes.Structure):
    _fields_ = [
        ("constants", ctypes.POINTER(Constant)),
        ("num_constants", ctypes.c_size_t),
        ("options", ctypes.c_char_p),
    ]


TUNE_LAUNCH = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p,
                               ctypes.c_size_t, ctypes.c_void_p)


def _candidates():
    """Where libtile.so may be, most specific first."""
    env = os.environ.get("TILEC_LIBRARY")
    if env:
        return [env]
    here = os.path.dirname(os.path.abspath(__file__))
    found = []
    # Installed: PREFIX/lib/python3/dist-packages/tilec -> PREFIX/lib.
    found.append(os.path.join(here, "..", "..", "..", "libtile.so"))
    # The source tree: python/tilec -> build/lib or .gpu/lib.
    root = os.path.join(here, "..", "..")
    for build in ("build", ".gpu"):
        found.append(os.path.join(root, build, "lib", "libtile.so"))
    found.append("libtile.so")  # the system's loader path
    return found


def _declare(lib):
    c = ctypes
    kernel_p = c.c_void_p
    sigs = {
        "tile_compile_file": (c.c_int, [c.c_char_p, c.POINTER(CompileOptions),
                                        c.POINTER(kernel_p)]),
        "tile_compile_source": (c.c_int, [c.c_char_p, c.c_char_p,
                                          c.POINTER(CompileOptions),
                                          c.POINTER(kernel_p)]),
        "tile_load_ptx": (c.c_int, [c.c_char_p, c.POINTER(kernel_p)]),
        # The tile_arg arrays as bytes: the launch path packs the
        # arguments' images into one bytes object (_tensors.pack_args).
        "tile_kernel_launch": (c.c_int, [kernel_p, c.c_uint, c.c_uint,
                                         c.c_uint, c.c_void_p,
                                         c.c_char_p, c.c_size_t]),
        "tile_kernel_check": (c.c_int, [kernel_p, c.c_char_p, c.c_size_t]),
        "tile_kernel_name": (c.c_char_p, [kernel_p]),
        "tile_kernel_num_warps": (c.c_uint, [kernel_p]),
        "tile_kernel_registers": (c.c_uint, [kernel_p]),
        "tile_kernel_blocks_per_sm": (c.c_uint, [kernel_p]),
        "tile_kernel_num_stages": (c.c_uint, [kernel_p]),
        "tile_kernel_shared_bytes": (c.c_uint, [kernel_p]),
        "tile_kernel_num_params": (c.c_size_t, [kernel_p]),
        "tile_kernel_num_tensor_maps": (c.c_size_t, [kernel_p]),
        "tile_kernel_num_warnings": (c.c_size_t, [kernel_p]),
        "tile_kernel_warning": (c.c_char_p, [kernel_p, c.c_size_t]),
        "tile_kernel_variant_note": (c.c_char_p, [kernel_p]),
        "tile_kernel_timeline_records": (c.c_uint, [kernel_p]),
        "tile_kernel_timeline_site": (c.c_char_p, [kernel_p, c.c_size_t]),
        "tile_kernel_timeline": (c.c_int, [kernel_p, c.c_void_p, c.c_size_t,
                                           c.POINTER(c.c_uint64),
                                           c.POINTER(c.c_uint)]),
        "tile_kernel_tune_space": (c.c_char_p, [kernel_p]),
        "tile_schedule_variants": (c.c_char_p, [c.c_char_p]),
        "tile_last_error": (c.c_char_p, []),
        "tile_option_list": (c.c_char_p, []),
        "tile_set_error": (None, [c.c_char_p]),
        "tile_runtime_stats": (c.c_int, [c.POINTER(Stats)]),
        "tile_split_kv_schedule": (
            c.c_int, [c.POINTER(c.c_int64)] + [c.c_int64] * 8 +
            [c.c_double, c.POINTER(c.c_int32), c.c_int64] +
            [c.POINTER(c.c_int64)] * 3),
        "tile_decode_plan_create": (c.c_void_p, [c.POINTER(c.c_int64),
                                                 c.c_int64]),
        "tile_decode_plan_destroy": (None, [c.c_void_p]),
        "tile_attention_with_kvcache_workspace_bytes": (
            c.c_int, [c.POINTER(Tensor)] * 3 +
            [c.POINTER(KVCacheOptions), c.POINTER(c.c_size_t)]),
        "tile_attention_with_kvcache": (
            c.c_int, [c.POINTER(Tensor)] * 8 +
            [c.c_void_p, c.c_size_t, c.POINTER(KVCacheOptions), c.c_void_p]),
        "tile_attention_with_kvcache_check": (
            c.c_int, [c.POINTER(Tensor)] * 8 + [c.POINTER(KVCacheOptions)]),
        "tile_mla_decode_workspace_bytes": (
            c.c_int, [c.POINTER(Tensor)] * 3 +
            [c.POINTER(MlaDecodeOptions), c.POINTER(c.c_size_t)]),
        "tile_mla_decode": (c.c_int, [c.POINTER(Tensor)] * 6 +
                            [c.c_void_p, c.c_size_t,
                             c.POINTER(MlaDecodeOptions), c.c_void_p]),
        "tile_mla_decode_check": (c.c_int, [c.POINTER(Tensor)] * 6 +
                                  [c.POINTER(MlaDecodeOptions)]),
        "tile_attention": (c.c_int, [c.POINTER(Tensor)] * 4 +
                           [c.POINTER(AttentionOptions), c.c_void_p]),
        "tile_attention_check": (c.c_int, [c.POINTER(Tensor)] * 4 +
                                 [c.POINTER(AttentionOptions)]),
        "tile_attention_varlen": (c.c_int, [c.POINTER(Tensor)] * 6 +
                                  [c.c_int64, c.c_int64,
                                   c.POINTER(AttentionOptions), c.c_void_p]),
        "tile_attention_varlen_check": (c.c_int, [c.POINTER(Tensor)] * 6 +
                                        [c.c_int64, c.c_int64,
                                         c.POINTER(AttentionOptions)]),
        "tile_attention_config": (c.c_int, [c.POINTER(Tensor)] * 4 +
                                  [c.POINTER(AttentionOptions), c.c_void_p,
                                   c.c_char_p, c.c_size_t,
                                   c.POINTER(c.c_size_t)]),
        "tile_autotune": (c.c_int, [c.c_char_p, c.c_char_p,
                                    c.POINTER(CompileOptions),
                                    c.POINTER(TuneCandidate), c.c_size_t,
                                    c.c_char_p, c.c_void_p, TUNE_LAUNCH,
                                    c.c_void_p, c.POINTER(kernel_p),
                                    c.POINTER(c.c_size_t)]),
    }
    for name, (restype, argtypes) in sigs.items():
        fn = getattr(lib, name)
        fn.restype = restype
        fn.argtypes = argtypes


_lib = None


def lib():
    """libtile, loaded on first use."""
    global _lib
    if _lib is None:
        errors = []
        for path in _candidates():
            if os.sep in path and not os.path.exists(path):
                continue
            try:
                loaded = ctypes.CDLL(os.path.normpath(path)
                                     if os.sep in path else path)
            except OSError as e:
                errors.append(f"{path}: {e}")
                continue
            _declare(loaded)
            _lib = loaded
            break
        if _lib is None:
            raise ImportError(
                "tilec: cannot load libtile.so (set TILEC_LIBRARY to its "
                "path); tried " + "; ".join(_candidates()) +
                ("; " + "; ".join(errors) if errors else ""))
    return _lib


def last_error():
    message = lib().tile_last_error()
    return message.decode("utf-8", "replace") if message else ""


_option_names = None


def option_names():
    """Every compile option's name (tile/Options.def), as libtile lists
    them: num_warps, num_stages, ..."""
    global _option_names
    if _option_names is None:
        _option_names = tuple(lib().tile_option_list().decode().split(","))
    return _option_names
