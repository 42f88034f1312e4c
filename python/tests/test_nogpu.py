"""tilec's Python package without a GPU: the library loads, compile errors
are exceptions with located diagnostics, attention's argument checks name
the argument, tensors arrive through __cuda_array_interface__ and DLPack,
and scalars are converted or refused. Runs in CI (ctest python-tilec)."""

import ctypes
import os

import pytest

import tilec
from tilec import _capi, _tensors


class FakeCuda:
    """A device tensor description at a fake address (never touched)."""

    def __init__(self, shape, typestr="<f2", address=1 << 40, strides=None):
        self.__cuda_array_interface__ = {
            "shape": tuple(shape), "typestr": typestr,
            "data": (address, False), "strides": strides, "version": 3}


def qkvo(q=(2, 8, 128, 64), k=(2, 2, 96, 64), v=None, out=None,
         typestr="<f2"):
    v = v or k
    out = out or q
    return [FakeCuda(s, typestr, address=(i + 1) << 36)
            for i, s in enumerate((q, k, v, out))]


def test_library_loads():
    assert _capi.lib() is not None
    stats = tilec.stats()
    assert set(stats) >= {"compiles", "disk_hits", "modules_loaded"}


def test_schedule_variants():
    """What autotune() tries per @tune combination with no configs (the
    compiler's choice, not persistent at other ring depths, persistent, in
    two consumer groups),
    leaving out what the caller set; a bad option is refused."""
    lib = _capi.lib()
    assert lib.tile_schedule_variants(None).decode().split(";") == [
        "auto_schedule=on", "persistent=off,auto_schedule=on",
        "num_stages=2,persistent=off,auto_schedule=on",
        "num_stages=3,persistent=off,auto_schedule=on",
        "num_stages=4,persistent=off,auto_schedule=on",
        "persistent=on,auto_schedule=on",
        "num_stages=2,persistent=on,auto_schedule=on",
        "num_stages=3,persistent=on,auto_schedule=on",
        "persistent=on,tile_stages=1,auto_schedule=on",
        "num_stages=2,persistent=on,rescale_in_trip=on,auto_schedule=on",
        "num_stages=2,persistent=on,tile_stages=1,tile_refill_after_read=on,"
        "rescale_in_trip=on,auto_schedule=on",
        "persistent=on,consumer_groups=2,auto_schedule=on"]
    assert lib.tile_schedule_variants(b"num_stages=2,persistent=off") == \
        b"auto_schedule=on"
    assert lib.tile_schedule_variants(b"num_stagez=2") is None
    assert "unknown option 'num_stagez'" in _capi.last_error()


BAD = """kernel broken(A: Tensor[f32, 1]):
    x = load(A, index=(bid(0),), shape=(128,))
    store(A, index=(bid(0),), tile=y)
"""


def test_compile_error_is_located():
    with pytest.raises(tilec.CompileError) as info:
        tilec.compile(BAD, arch="sm_80", name="broken.tile")
    e = info.value
    assert isinstance(e, tilec.TileError)
    assert "broken.tile:3:" in e.diagnostics
    assert "store(A, index=(bid(0),), tile=y)" in e.diagnostics
    assert "^" in e.diagnostics
    assert e.locations and e.locations[0][0] == "broken.tile"
    assert e.locations[0][1] == 3


FUNCTION_BAD = """def helper(x):
    return x + missing

kernel k(A: Tensor[f32, 1]):
    x = load(A, index=(bid(0),), shape=(128,))
    store(A, index=(bid(0),), tile=helper(x))
"""


def test_error_in_a_function_is_located_with_its_call():
    """An error in a function's body (inlined at each call) points at the
    body's line, with a note at the call."""
    with pytest.raises(tilec.CompileError) as info:
        tilec.compile(FUNCTION_BAD, arch="sm_80", name="helpers.tile")
    e = info.value
    assert e.locations[0][:2] == ("helpers.tile", 2)
    assert "unknown name 'missing'" in e.diagnostics
    assert "helpers.tile:6:" in e.diagnostics
    assert "note: in this call of 'helper'" in e.diagnostics


def test_bad_kernel_hint_is_a_located_compile_error():
    src = ("@hints(num_warps=6)\n"
           "kernel k(A: Tensor[f32, 1]):\n"
           "    pass\n")
    with pytest.raises(tilec.CompileError) as info:
        tilec.compile(src, arch="sm_80", name="hinted.tile")
    e = info.value
    assert "num_warps must be a power of two from 1 to 32, got 6" in str(e)
    assert e.locations[0][:3] == ("hinted.tile", 1, 18)


@pytest.mark.parametrize("options, message", [
    (dict(num_warps=3), "num_warps must be a power of two from 1 to 32, got 3"),
    (dict(occupancy=33), "occupancy must be 0 or an integer from 1 to 32"),
    (dict(num_stages=17), "num_stages must be 0 or an integer from 1 to 16"),
    (dict(tile_stages=3), "tile_stages must be an integer from 1 to 2, got 3"),
    (dict(tile_refill_after_read=True),
     "tile_refill_after_read needs tile_stages=1"),
    (dict(tile_stages=2, tile_refill_after_read=True),
     "tile_refill_after_read needs tile_stages=1.*got tile_stages=2"),
    (dict(cluster=3), "cluster must be a power of two from 1 to 16, got 3"),
    (dict(cluster=32), "cluster must be a power of two from 1 to 16, got 32"),
    (dict(warp_specialize="yes"), "warp_specialize: expected a bool or an int"),
])
def test_compile_option_refusals(options, message):
    with pytest.raises(tilec.TileError, match=message):
        tilec.compile("kernel k(A: Tensor[f32, 1]):\n    pass\n",
                      arch="sm_80", **options)


def test_compile_missing_file():
    with pytest.raises(tilec.TileError, match="cannot read"):
        tilec.compile("/no/such/kernel.tile", arch="sm_80")


def test_unknown_constant_is_a_compile_error(repo):
    path = os.path.join(repo, "kernels", "vector_add.tile")
    with pytest.raises(tilec.CompileError, match="TILE"):
        tilec.compile(path, arch="sm_80", TILE="not-a-number")


def test_attention_accepts_good_arguments():
    tilec.check_attention(*qkvo())
    tilec.check_attention(*qkvo(q=(1, 4, 7, 80), k=(1, 1, 300, 80)),
                          causal=True, input_pos=5, scale=0.3)


@pytest.mark.parametrize("change, message", [
    (dict(k=(2, 96, 64)), "k: expected a rank-4 tensor"),
    (dict(k=(2, 16, 96, 64)), "k: has 16 heads, more than q's 8"),
    (dict(k=(2, 3, 96, 64)), "q: its 8 heads are not a multiple of k's 3"),
    (dict(k=(3, 2, 96, 64)), "k: batch 3 does not match q's 2"),
    (dict(v=(2, 2, 96, 32)), "v: head_dim 32 does not match q's 64"),
    (dict(v=(2, 2, 95, 64)), "v: seq_k 95 does not match k's 96"),
    (dict(out=(2, 8, 64, 64)), "out: shape [2, 8, 64, 64] does not match"),
    (dict(q=(1, 1, 8, 264), k=(1, 1, 8, 264)),
     "q: head_dim 264 is over 256"),
    (dict(q=(1, 1, 8, 60), k=(1, 1, 8, 60)),
     "q: head_dim 60 is not a multiple of 8"),
    (dict(k=(2, 2, 0, 64)), "k: seq_k is 0 while seq_q is 128"),
])
def test_attention_refusals(change, message):
    with pytest.raises(tilec.ArgumentError) as info:
        tilec.check_attention(*qkvo(**change))
    assert message in str(info.value)
    assert str(info.value).startswith("tile::attention: ")


def varlen_args(q=(300, 8, 64), k=(500, 2, 64), v=None, out=None,
                cu=(5, 5), typestr="<f2", cu_typestr="<i4"):
    v = v or k
    out = out or q
    tensors = [FakeCuda(s, typestr, address=(i + 1) << 36)
               for i, s in enumerate((q, k, v, out))]
    return tensors + [FakeCuda((n,), cu_typestr, address=(5 + i) << 36)
                      for i, n in enumerate(cu)]


def test_attention_varlen_accepts_good_arguments():
    tilec.check_attention_varlen(*varlen_args(), 100, 200)
    tilec.check_attention_varlen(*varlen_args(q=(7, 4, 80), k=(9, 4, 80)),
                                 3, 9, causal=True, scale=0.3)
    # No sequences: nothing to check beyond the shapes.
    tilec.check_attention_varlen(*varlen_args(cu=(1, 1)), 0, 0)


@pytest.mark.parametrize("change, seqlens, message", [
    (dict(q=(2, 8, 128, 64)), (1, 1), "q: expected a rank-3 tensor "
                                      "(total, heads, head_dim)"),
    (dict(k=(500, 3, 64)), (1, 1), "k: its 3 heads do not divide q's 8"),
    (dict(v=(500, 2, 32)), (1, 1), "v: head_dim 32 does not match q's 64"),
    (dict(v=(499, 2, 64)), (1, 1), "v: shape [499, 2, 64] does not match k's"),
    (dict(out=(301, 8, 64)), (1, 1), "out: shape [301, 8, 64] does not match"),
    (dict(cu=(5, 4)), (1, 1), "cu_seqlens_k: has 4 entries, cu_seqlens_q 5"),
    (dict(cu=(0, 0)), (1, 1), "cu_seqlens_q: has 0 entries; it holds "
                              "batch + 1 offsets"),
    (dict(cu_typestr="<i8"), (1, 1), "cu_seqlens_q: dtype i64 is not "
                                     "supported; the offsets are int32"),
    (dict(), (-1, 1), "max_seqlen_q: -1 is not in [0, 2^31-1]"),
    (dict(), (1, 2**31), "max_seqlen_k: 2147483648 is not in [0, 2^31-1]"),
])
def test_attention_varlen_refusals(change, seqlens, message):
    with pytest.raises(tilec.ArgumentError) as info:
        tilec.check_attention_varlen(*varlen_args(**change), *seqlens)
    assert message in str(info.value)
    assert str(info.value).startswith("tile::attention: ")


def test_attention_varlen_refuses_overlaps():
    q, k, v, out, cq, ck = varlen_args()
    with pytest.raises(tilec.ArgumentError, match="out: overlaps q"):
        tilec.check_attention_varlen(q, k, v, q, cq, ck, 10, 10)
    with pytest.raises(tilec.ArgumentError,
                       match="max_seqlen_q: expected an int, got float"):
        tilec.attention_varlen(q, k, v, cq, ck, 1.5, 10, out=out)


def test_attention_config_without_a_gpu():
    # An empty problem has no configuration (and needs no GPU); bad
    # arguments are refused as attention() refuses them.
    q, k, v, out = qkvo(q=(0, 8, 128, 64), k=(0, 2, 96, 64))
    assert tilec.attention_config(q, k, v, out=out) == ""
    q, k, v, out = qkvo(k=(2, 16, 96, 64))
    with pytest.raises(tilec.ArgumentError, match="k: has 16 heads"):
        tilec.attention_config(q, k, v, out=out)
    with pytest.raises(tilec.ArgumentError, match="out: needed"):
        tilec.attention_config(q, k, v)


def test_attention_dtype_refusals():
    q, k, v, out = qkvo()
    with pytest.raises(tilec.ArgumentError, match="v: dtype f32 does not "
                       "match|v: dtype f32 is not supported"):
        tilec.check_attention(q, k, FakeCuda((2, 2, 96, 64), "<f4"), out)
    with pytest.raises(tilec.ArgumentError,
                       match="q: dtype f32 is not supported"):
        tilec.check_attention(*qkvo(typestr="<f4"))
    with pytest.raises(tilec.ArgumentError, match="typestr '<f8'"):
        tilec.check_attention(*qkvo(typestr="<f8"))


def test_attention_option_refusals():
    with pytest.raises(tilec.ArgumentError, match="input_pos: -3 is negative"):
        tilec.check_attention(*qkvo(), input_pos=-3)
    with pytest.raises(tilec.ArgumentError, match="scale: .* not a finite"):
        tilec.check_attention(*qkvo(), scale=float("nan"))
    with pytest.raises(tilec.ArgumentError, match="scale: .* not a finite"):
        tilec.check_attention(*qkvo(), scale=1e39)  # inf as a float32
    q, k, v, out = qkvo()
    with pytest.raises(tilec.ArgumentError, match="out: overlaps q"):
        tilec.check_attention(q, k, v, q)
    with pytest.raises(tilec.ArgumentError, match="expected a GPU tensor"):
        tilec.check_attention([1, 2], k, v, out)
    with pytest.raises(tilec.ArgumentError, match="input_pos: expected an int"):
        tilec.attention(q, k, v, out=out, input_pos=1.5)


@pytest.mark.parametrize("causal", ["yes", 1, 0, None, [True], 1.0])
def test_attention_refuses_a_causal_that_is_not_a_bool(causal):
    # Any non-bool used to be read as truthy ("yes" ran a causal mask).
    q, k, v, out = qkvo()
    for call in (tilec.check_attention, tilec.attention,
                 tilec.attention_config):
        with pytest.raises(tilec.ArgumentError,
                           match="causal: expected a bool, got"):
            call(q, k, v, out=out, causal=causal)


def test_attention_refuses_a_scale_or_autotune_of_the_wrong_type():
    q, k, v, out = qkvo()
    with pytest.raises(tilec.ArgumentError, match="scale: expected a float"):
        tilec.check_attention(q, k, v, out, scale="0.5")
    with pytest.raises(tilec.ArgumentError, match="scale: expected a float"):
        tilec.attention(q, k, v, out=out, scale=True)
    with pytest.raises(tilec.ArgumentError, match="autotune: expected a bool"):
        tilec.attention(q, k, v, out=out, autotune="no")
    # Numbers of other types are still scales, bools still causal flags.
    tilec.check_attention(q, k, v, out, scale=1, causal=False)


def test_strided_views_through_the_interface():
    # (B, N, H, D) memory viewed as (B, H, N, D): strides in bytes.
    B, N, H, D = 2, 128, 8, 64
    strides = tuple(2 * s for s in (N * H * D, D, H * D, 1))
    q = FakeCuda((B, H, N, D), strides=strides, address=1 << 36)
    out = FakeCuda((B, H, N, D), strides=strides, address=2 << 36)
    k = FakeCuda((B, 2, 96, D), address=3 << 36)
    v = FakeCuda((B, 2, 96, D), address=4 << 36)
    tilec.check_attention(q, k, v, out)
    bad = FakeCuda((B, H, N, D), strides=(2, 2, 2, 3), address=5 << 36)
    with pytest.raises(tilec.ArgumentError, match="not a multiple of the "
                       "element size"):
        tilec.check_attention(bad, k, v, out)


def test_empty_attention_is_a_no_op():
    q, k, v, out = qkvo(q=(0, 8, 128, 64), k=(0, 2, 96, 64))
    assert tilec.attention(q, k, v, out=out) is out


# DLPack: a DLManagedTensor built here, in a capsule, as a producer would.
class _DLManaged(ctypes.Structure):
    _fields_ = [("dl_tensor", _tensors._DLTensor),
                ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p)]


class FakeDLPack:
    def __init__(self, shape, code=2, bits=16, device_type=2, strides=None,
                 offset=0):
        self.shape = (ctypes.c_int64 * len(shape))(*shape)
        self.strides = ((ctypes.c_int64 * len(shape))(*strides)
                        if strides else None)
        m = _DLManaged()
        m.dl_tensor.data = 1 << 40
        m.dl_tensor.device.device_type = device_type
        m.dl_tensor.ndim = len(shape)
        m.dl_tensor.dtype.code, m.dl_tensor.dtype.bits = code, bits
        m.dl_tensor.dtype.lanes = 1
        m.dl_tensor.shape = self.shape
        m.dl_tensor.strides = self.strides
        m.dl_tensor.byte_offset = offset
        self.managed = m

    def __dlpack__(self, stream=None):
        new = ctypes.pythonapi.PyCapsule_New
        new.restype = ctypes.py_object
        new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
        return new(ctypes.addressof(self.managed), b"dltensor", None)


def test_dlpack_tensors():
    t = _tensors.tensor_arg(FakeDLPack((2, 3, 4), offset=64), "x")
    assert t.dtype == _capi.F16
    assert t.shape == (2, 3, 4)
    assert t.strides == (12, 4, 1)
    assert t.data == (1 << 40) + 64
    t = _tensors.tensor_arg(FakeDLPack((4, 5), code=4, strides=(1, 4)), "x")
    assert t.dtype == _capi.BF16 and t.strides == (1, 4)
    with pytest.raises(tilec.ArgumentError, match="not on a CUDA device"):
        _tensors.tensor_arg(FakeDLPack((4,), device_type=1), "x")
    with pytest.raises(tilec.ArgumentError, match="DLPack dtype"):
        _tensors.tensor_arg(FakeDLPack((4,), code=2, bits=64), "x")
    # Integers of 64 and 8 bits (torch.int64, torch.int8); not 16.
    assert _tensors.tensor_arg(FakeDLPack((4,), code=0, bits=64),
                               "x").dtype == _capi.I64
    assert _tensors.tensor_arg(FakeDLPack((4,), code=0, bits=8),
                               "x").dtype == _capi.I8
    with pytest.raises(tilec.ArgumentError, match="DLPack dtype"):
        _tensors.tensor_arg(FakeDLPack((4,), code=0, bits=16), "x")


def test_integer_tensors_through_the_interface():
    """int64 and int8 through __cuda_array_interface__ (typestr i8, i1),
    with strides in bytes of their own element sizes; int16 refused."""
    t = _tensors.tensor_arg(FakeCuda((3, 4), typestr="<i8",
                                     strides=(64, 8)), "x")
    assert t.dtype == _capi.I64 and t.strides == (8, 1)
    t = _tensors.tensor_arg(FakeCuda((3, 4), typestr="|i1",
                                     strides=(8, 1)), "x")
    assert t.dtype == _capi.I8 and t.strides == (8, 1)
    with pytest.raises(tilec.ArgumentError, match="typestr '<i2'"):
        _tensors.tensor_arg(FakeCuda((3,), typestr="<i2"), "x")


def test_scalars():
    arg, keep = _capi.Arg(), []
    _tensors.fill_arg(arg, True, "argument 1", keep)
    assert arg.kind == _capi.ARG_BOOL and arg.value.b == 1
    _tensors.fill_arg(arg, 2**40, "argument 1", keep)
    assert arg.kind == _capi.ARG_INT and arg.value.i == 2**40
    _tensors.fill_arg(arg, 0.5, "argument 1", keep)
    assert arg.kind == _capi.ARG_FLOAT and arg.value.f == 0.5
    with pytest.raises(tilec.ArgumentError, match="does not fit in 64 bits"):
        _tensors.fill_arg(arg, 2**64, "argument 2", keep)
    with pytest.raises(tilec.ArgumentError, match="does not fit a 32-bit"):
        _tensors.fill_arg(arg, 1e300, "argument 2", keep)
    with pytest.raises(tilec.ArgumentError, match="expected a GPU tensor"):
        _tensors.fill_arg(arg, "text", "argument 3", keep)


def test_launch_without_a_gpu_is_an_exception():
    # With an explicit arch the compile works; loading needs a GPU. Where
    # there is one, this just loads.
    src = "kernel k(A: Tensor[f32, 1]):\n    pass\n"
    try:
        tilec.compile(src, arch="sm_80")
    except tilec.CompileError:
        pytest.skip("the front end does not take `pass`")
    except tilec.TileError as e:
        assert "CUDA" in str(e) or "device" in str(e)


def test_config_repr_names_the_options_set():
    c = tilec.Config(num_warps=8, num_stages=2, persistent=True, tile_stages=1,
                     tile_refill_after_read=True, defer_epilogue=False,
                     rescale_in_trip=True, TILE_M=128)
    assert repr(c) == ("Config(TILE_M=128, num_warps=8, num_stages=2, "
                       "persistent=True, tile_stages=1, "
                       "tile_refill_after_read=True, defer_epilogue=False, "
                       "rescale_in_trip=True)")
    assert repr(tilec.Config(TILE_M=64)) == "Config(TILE_M=64)"
    assert tilec.Config(num_warps=8).num_warps == 8
    assert tilec.Config(TILE_M=64).num_warps is None


def test_every_option_reaches_libtile_by_name():
    # Python names no option: each of libtile's (tile/Options.def) is a
    # keyword argument of compile() and Config(), and a bad value of any of
    # them is refused by name.
    names = tilec.options()
    assert "num_warps" in names and "rescale_in_trip" in names
    assert "cluster" in names and "loop_split" in names
    for name in names:
        c = tilec.Config(**{name: 1})
        assert c.options == {name: 1} and not c.constants
        with pytest.raises(tilec.TileError, match=name):
            tilec.compile("kernel k(A: Tensor[f32, 1]):\n    pass\n",
                          arch="sm_80", **{name: 1000})


def test_ops_candidates_for_long_rows_and_few_rows():
    """tilec.ops' choices among its kernels' variants, without a GPU: the
    swapped product is tried at 1-32 rows only; the norms' row loops where
    they compile without spills (test/Target/library-candidates.test holds
    the edges spill-free), for rows of 16-byte multiples, after the
    one-row kernel (what TILEC_AUTOTUNE=off takes)."""
    from tilec import ops

    def swapped(m):
        return [c for c in ops._linear_split_configs(m, 4096, 4096, 132)
                if c.constants.get("SWAP_AB")]
    assert swapped(1) and swapped(16) and swapped(32)
    assert all(c.constants["TILE_M"] == 16 for c in swapped(16))
    assert all(c.constants["TILE_M"] == 32 for c in swapped(17))
    assert not swapped(33) and not swapped(128)
    # On sm_90 a skinny candidate for at most 64 rows of at most one tile
    # (times its K splits) a multiprocessor launches dependent on the
    # kernel before it (dependent_launch); more rows or tiles, or
    # elsewhere, not.
    def dependent(m, n, sm90=True):
        return [(c.constants["TILE_M"], c.constants["TILE_N"],
                 c.constants["SPLITS"], bool(c.dependent_launch))
                for c in ops._linear_split_configs(m, n, 4096, 132,
                                                   clusters=sm90,
                                                   dependent=sm90)]
    assert (64, 32, 1, True) in dependent(64, 4096)      # 128 tiles
    assert (64, 32, 2, False) in dependent(64, 4096)     # 256 blocks
    assert (64, 128, 4, True) in dependent(64, 4096)     # 32 x 4
    assert (64, 32, 1, False) in dependent(128, 8192)    # 512 tiles
    assert not any(d for *_, d in dependent(128, 8192))  # 128 rows
    assert not any(d for *_, d in dependent(64, 4096, sm90=False))

    def loops(kind, dtype, n, warps=4):
        configs = ops._row_loop_configs(kind, dtype, n, n, warps)
        assert not configs or (not configs[0].constants and
                               configs[0].num_warps == warps)
        return [(c.num_warps, c.constants["LATENCY"]) for c in configs[1:]]
    assert loops("layernorm", "bf16", 8192) == []
    assert loops("layernorm", "bf16", 10000) == [(8, 3), (4, 2)]
    assert loops("layernorm", "bf16", 24576) == [(8, 3)]
    assert loops("layernorm", "bf16", 24584) == []
    assert loops("layernorm", "f16", 16384) == [(8, 3)]
    assert loops("layernorm", "f16", 16392) == []
    assert loops("layernorm", "f32", 12288) == [(8, 3)]
    assert loops("layernorm", "f32", 12292) == []
    assert loops("layernorm", "bf16", 10001) == []     # not 16-byte rows
    assert loops("rmsnorm", "bf16", 16384, 16) == []
    assert loops("rmsnorm", "bf16", 20000, 16) == [(8, 2)]
    assert loops("rmsnorm", "bf16", 32768, 16) == [(8, 2)]
    assert loops("rmsnorm", "f16", 24584, 16) == []
    assert loops("rmsnorm", "f32", 16384, 16) == []


def test_ops_long_row_dispatch(monkeypatch):
    """tilec.ops' dispatch for long rows on sm_90, with torch and the
    compiler stubbed (no GPU): the norms tune once per power of two of the
    rows and launch the winner's grid (a row loop: 16 warps' worth of blocks
    a multiprocessor, at most one a row); softmax over 8 or 16 parts loops
    in clusters one block a multiprocessor fewer than fit, and rows of up
    to 32768 columns stay one a cluster."""
    import sys
    import types
    from tilec import ops
    fake = types.ModuleType("torch")
    fake.float16, fake.bfloat16, fake.float32 = "f16", "bf16", "f32"
    fake.cuda = types.SimpleNamespace(get_device_capability=lambda d: (9, 0))
    monkeypatch.setitem(sys.modules, "torch", fake)
    launches, tunings = [], []

    class Kernel:
        blocks_per_sm = 5

        def __init__(self, config=None, constants=None):
            self.config, self.constants = config, constants

        def launch(self, grid, *args):
            launches.append((grid, self))

    def autotuned(file, kernel, key, grid, args, configs, **constants):
        tunings.append((kernel, key, [grid(c) for c in configs]))
        return Kernel(configs[1])       # the first row loop wins
    monkeypatch.setattr(ops, "_rows", lambda torch, x, name, dtypes:
                        (types.SimpleNamespace(shape=x.shape), "bf16"))
    monkeypatch.setattr(ops, "_vector", lambda *args: None)
    monkeypatch.setattr(ops, "_out", lambda torch, out, x, rows: (x, rows))
    monkeypatch.setattr(ops, "_sm_count", lambda torch, device: 132)
    monkeypatch.setattr(ops, "_autotuned", autotuned)
    monkeypatch.setattr(ops, "_compile", lambda file, kernel, **c:
                        Kernel(constants=c))
    monkeypatch.setattr(ops, "_row_kernels", {})

    def x(rows, n):
        return types.SimpleNamespace(shape=(rows, n), device="cuda:0",
                                     dtype="bf16")
    for rows, grid in ((4096, 264), (4000, 264), (100, 100)):
        ops.layer_norm(x(rows, 10000), "w", "b")
        assert launches[-1][0] == grid
    assert [t[1] for t in tunings] == ["bf16:N=10000:R=4096",
                                       "bf16:N=10000:R=128"]
    assert tunings[0][2] == [(4096,), (264,), (528,)]
    ops.rms_norm(x(2048, 20000), "w")
    assert tunings[-1][2] == [(2048,), (264,)] and launches[-1][0] == 264
    ops.rms_norm(x(64, 4096), "w")          # short rows: not tuned
    assert len(tunings) == 3 and launches[-1][0] == 64
    ops.softmax(x(256, 131072))
    grid, k = launches[-1]
    assert k.constants["ROW_LOOP"] and k.constants["CLUSTER"] == 16
    assert grid == 4 * 132 // 16 * 16
    ops.softmax(x(3, 32768))
    grid, k = launches[-1]
    assert "ROW_LOOP" not in k.constants and grid == 3 * 4


def test_ops_dim_refusal_on_any_input(monkeypatch):
    """A dim other than the last is refused with an ArgumentError naming it,
    whatever x is (it crashed with a TypeError on objects without .dim()),
    and the last dimension of a tensor-like passes the check."""
    import sys
    import types
    from tilec import ops
    monkeypatch.setitem(sys.modules, "torch", types.ModuleType("torch"))
    for call in (ops.softmax, ops.sum, ops.amax):
        with pytest.raises(tilec.ArgumentError, match="dim: only the last"):
            call([1.0, 2.0], dim=0)
        with pytest.raises(tilec.ArgumentError, match="dim: only the last"):
            call(types.SimpleNamespace(dim=lambda: 3), dim=1)
    ops._last_dim(types.SimpleNamespace(dim=lambda: 3), 2)
    ops._last_dim(object(), -1)


def test_wave_fit_tile():
    """tilec.ops.linear's extra candidate where the power-of-two tiles leave
    the last wave part-empty: 3000 x 5000 on 132 multiprocessors fills three
    waves with 256 x 152 (cuBLAS's 152 x 256); square powers of two keep
    theirs."""
    from tilec.ops import _wave_fit_tile
    assert _wave_fit_tile(3000, 5000, 132) == (256, 152)
    assert _wave_fit_tile(4096, 4096, 132) is None
    assert _wave_fit_tile(8192, 14336, 132) is None
