"""tilec: tile kernels for NVIDIA GPUs from Python, over libtile's C API.

    import torch, tilec
    q, k, v = (torch.randn(2, 8, 1024, 128, device="cuda",
                           dtype=torch.float16) for _ in range(3))
    out = tilec.attention(q, k, v, causal=True)

    add = tilec.compile("kernels/vector_add.tile", DTYPE="f32")
    add[(n + 1023) // 1024](a, b, c)

Pure Python (ctypes): nothing is compiled at install time. Tensors may be
torch tensors or any object with __cuda_array_interface__ or __dlpack__;
work goes to PyTorch's current stream unless a stream is given. Errors are
exceptions (tilec.CompileError with the located diagnostics,
tilec.ArgumentError naming the argument, tilec.TileError), never a crash.
`import tilec.torch_ops` registers torch.ops.tilec.attention, a PyTorch
custom op that works inside torch.compile graphs. tilec.ops holds the
kernel library (rms_norm, layer_norm, softmax, cross_entropy).
"""

import ctypes
import numbers
import os
import sys
import threading
import warnings as _warnings

from . import _capi, _tensors
from . import autograd as _autograd
from ._tensors import TensorArg, current_stream, pack_args, tensor_arg
from .errors import (ArgumentError, CompileError, CompileWarning, TileError,
                     from_message)

__all__ = ["attention", "attention_varlen", "attention_with_kvcache", "decode_plan", "mla_decode", "ops", "fp8", "compile", "load_ptx", "autotune", "tune_space_configs",
           "Config", "Kernel",
           "options", "stats", "TileError", "CompileError", "CompileWarning",
           "ArgumentError"]

__version__ = "0.1.0"


def _check(rc):
    if rc != _capi.TILE_OK:
        raise from_message(_capi.last_error())


def _split_options(kwargs):
    """Keyword arguments split into compile options (those that name one of
    libtile's, tilec.options()) and the kernel's constants (the rest)."""
    names = _capi.option_names()
    options = {k: v for k, v in kwargs.items() if k in names}
    constants = {k: v for k, v in kwargs.items() if k not in names}
    return options, constants


def options():
    """The names of the compile options compile(), Config() and autotune()
    take as keyword arguments (tilec --help describes each, with '-' for
    '_'); None leaves one to the kernel's @hints and the defaults."""
    return list(_capi.option_names())


def _option_text(options):
    """"num_warps=8,warp_specialize=on" for the options that are not None;
    libtile checks each (names, ranges) and says which is wrong."""
    items = []
    for name, value in options.items():
        if value is None:
            continue
        if isinstance(value, bool) or type(value).__name__ == "bool_":
            text = "on" if value else "off"
        elif isinstance(value, int):
            text = str(value)
        else:
            raise ArgumentError(f"{name}: expected a bool or an int, got "
                                f"{type(value).__name__} {value!r}")
        items.append(f"{name}={text}")
    return ",".join(items)


def _options(constants, kernel=None, arch=None, options=None):
    """A tile_compile_options and the objects it points into. Options left
    None are the kernel's @hints', or else the defaults."""
    items = [(str(k), _constant_text(v)) for k, v in constants.items()]
    array = (_capi.Constant * max(1, len(items)))()
    keep = []
    for i, (name, value) in enumerate(items):
        n, v = name.encode(), value.encode()
        keep += [n, v]
        array[i].name, array[i].value = n, v
    o = _capi.CompileOptions()
    o.constants = array
    o.num_constants = len(items)
    o.kernel = kernel.encode() if kernel else None
    o.arch = arch.encode() if arch else None
    text = _option_text(options or {}).encode()
    o.options = text
    keep += [array, text]
    return o, keep


def _constant_text(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _is_source(text):
    return "\n" in text or text.lstrip().startswith("kernel ")


class Kernel:
    """A compiled, loaded kernel. `kernel[grid](*args, stream=None)` launches
    it: grid is an int, a tuple of 1 to 3 ints, or a callable taking the
    kernel's constants (a dict) and returning one of those."""

    def __init__(self, handle, constants=None):
        self._handle = ctypes.c_void_p(handle)
        self.constants = dict(constants or {})
        lib = _capi.lib()
        self._launch = lib.tile_kernel_launch
        self._variant_note = lib.tile_kernel_variant_note
        self._noted = None
        self.name = lib.tile_kernel_name(self._handle).decode()
        self.num_warps = lib.tile_kernel_num_warps(self._handle)
        self.num_stages = lib.tile_kernel_num_stages(self._handle)
        self.shared_bytes = lib.tile_kernel_shared_bytes(self._handle)
        #: Registers per thread of the driver's machine code, and the most
        #: blocks a multiprocessor runs at once (the occupancy): a grid of a
        #: multiple of blocks_per_sm x the SM count runs in whole waves.
        self.registers = lib.tile_kernel_registers(self._handle)
        self.blocks_per_sm = lib.tile_kernel_blocks_per_sm(self._handle)
        self.num_params = lib.tile_kernel_num_params(self._handle)
        #: TMA descriptors the kernel takes (built at launch, one per tensor
        #: and box the kernel copies with TMA).
        self.num_tensor_maps = lib.tile_kernel_num_tensor_maps(self._handle)
        #: The values a tuner may try for its constants (its @tune), as
        #: "TILE_M=64|128,TILE_N=64|128"; "" without one.
        self.tune_space = lib.tile_kernel_tune_space(self._handle).decode()
        #: The compiler's warnings: options or hints it could not apply.
        self.warnings = [
            lib.tile_kernel_warning(self._handle, i).decode()
            for i in range(lib.tile_kernel_num_warnings(self._handle))]

        #: Compiled with timeline=N: the records each warpgroup logs, and
        #: what each site is (see timeline()); 0 and [] otherwise.
        self.timeline_records = lib.tile_kernel_timeline_records(self._handle)
        self.timeline_sites = []
        while self.timeline_records:
            site = lib.tile_kernel_timeline_site(self._handle,
                                                 len(self.timeline_sites))
            if site is None:
                break
            self.timeline_sites.append(site.decode())

    def timeline(self):
        """The records of this kernel's last launch (compiled with
        timeline=N), once the GPU is done with it: a Timeline."""
        from .timeline import Timeline
        lib = _capi.lib()
        blocks, groups = ctypes.c_uint64(), ctypes.c_uint()
        _check(lib.tile_kernel_timeline(self._handle, None, 0,
                                        ctypes.byref(blocks),
                                        ctypes.byref(groups)))
        size = blocks.value * groups.value * self.timeline_records * 16
        data = (ctypes.c_uint64 * (size // 8))()
        _check(lib.tile_kernel_timeline(self._handle, data, size,
                                        ctypes.byref(blocks),
                                        ctypes.byref(groups)))
        return Timeline(self.timeline_sites, list(data), blocks.value,
                        groups.value, self.timeline_records)

    def __repr__(self):
        return (f"<tilec.Kernel {self.name} warps={self.num_warps} "
                f"params={self.num_params}>")

    def __getitem__(self, grid):
        def launch(*args, stream=None):
            self.launch(grid, *args, stream=stream)
        return launch

    def launch(self, grid, *args, stream=None):
        if type(grid) is int and 0 <= grid < 2**32:
            grid = (grid, 1, 1)
        else:
            if callable(grid):
                grid = grid(self.constants)
            if isinstance(grid, int):
                grid = (grid,)
            grid = tuple(grid)
            if not 1 <= len(grid) <= 3 or not all(
                    isinstance(g, int) and 0 <= g < 2**32 for g in grid):
                raise ArgumentError(f"grid: expected 1 to 3 non-negative "
                                    f"ints, got {grid!r}")
            grid = grid + (1,) * (3 - len(grid))
        keep = []
        packed = pack_args(args, keep)
        _check(self._launch(self._handle, grid[0], grid[1], grid[2],
                            current_stream(stream), packed, len(args)))
        # A launch that needed an alignment variant (slower) says so, once
        # per variant.
        note = self._variant_note(self._handle)
        if note is not None and note != self._noted:
            self._noted = note
            _warnings.warn(CompileWarning(note.decode()), stacklevel=2)

    def check(self, *args):
        """Checks `args` as a launch would, without launching."""
        keep = []
        packed = pack_args(args, keep)
        _check(_capi.lib().tile_kernel_check(self._handle, packed, len(args)))


def compile(path_or_source, kernel=None, arch=None, name=None, **kwargs):
    """Compiles a .tile file (a path) or source text (anything with a newline
    or starting with `kernel`) and loads it on the GPU. Keyword arguments
    that name a compile option (tilec.options(): num_warps, num_stages,
    warp_specialize, persistent, ...; bools or ints) set it; the others set
    the kernel's `const` parameters (tilec's -DNAME=VALUE). An option given
    here wins over the kernel's @hints(...); one not given takes the hint,
    or else its default. Raises CompileError with the located diagnostics,
    ArgumentError for an option of the wrong type or range."""
    opts, constants = _split_options(kwargs)
    options, keep = _options(constants, kernel, arch, opts)
    handle = ctypes.c_void_p()
    lib = _capi.lib()
    if _is_source(path_or_source):
        _check(lib.tile_compile_source(
            path_or_source.encode(), (name or "<source>").encode(),
            ctypes.byref(options), ctypes.byref(handle)))
    else:
        _check(lib.tile_compile_file(os.fsencode(path_or_source),
                                     ctypes.byref(options),
                                     ctypes.byref(handle)))
    kernel = Kernel(handle.value, constants)
    for text in kernel.warnings:
        _warnings.warn(CompileWarning(text), stacklevel=2)
    return kernel


def load_ptx(path):
    """Loads an AOT .ptx file written by `tilec --emit=ptx`."""
    handle = ctypes.c_void_p()
    _check(_capi.lib().tile_load_ptx(os.fsencode(path), ctypes.byref(handle)))
    return Kernel(handle.value)


class Config:
    """One autotuning candidate: keyword arguments that name a compile option
    (tilec.options()) set it for this candidate, the others are the kernel's
    constants. Options not given keep autotune()'s (or the kernel's
    @hints, or the defaults)."""

    def __init__(self, **kwargs):
        self.options, self.constants = _split_options(kwargs)

    def __getattr__(self, name):
        # config.num_warps: the option's value, None where not given.
        if name in _capi.option_names():
            return self.options.get(name)
        raise AttributeError(name)

    def __repr__(self):
        items = [f"{k}={v!r}" for k, v in self.constants.items()]
        items += [f"{k}={v!r}" for k, v in self.options.items()
                  if v is not None]
        return f"Config({', '.join(items)})"


def tune_space_configs(kernel, **given):
    """The Configs autotune() tries when given none: every combination of
    the values `kernel`'s @tune(...) lists for its constants (the first name
    varying slowest; one, with no constants, without @tune), each with
    every schedule of tile_schedule_variants: the compiler's choice
    (auto_schedule=True; on sm_90a a warp-specialized kernel is persistent),
    it not persistent with its rings and with rings of 2, 3 and 4 stages,
    persistent (six ways), and persistent in two consumer groups
    (consumer_groups=2). Options in `given` (those the caller sets for
    every candidate) are not varied; candidates that compile to the same
    kernel are timed once."""
    combos = [{}]
    text = kernel.tune_space
    if text:
        for entry in text.split(","):
            name, values = entry.split("=", 1)
            combos = [{**c, name: _parse_constant(v)} for c in combos
                      for v in values.split("|")]
    opts, _ = _split_options(given)
    variants = _capi.lib().tile_schedule_variants(_option_text(opts).encode())
    if variants is None:
        raise ArgumentError(_capi.lib().tile_last_error().decode())
    schedules = []
    for variant in variants.decode().split(";"):
        schedule = {}
        for item in filter(None, variant.split(",")):
            name, value = item.split("=", 1)
            schedule[name] = (value == "on" if value in ("on", "off")
                              else int(value))
        schedules.append(schedule)
    return [Config(**c, **s) for c in combos for s in schedules]


def _parse_constant(text):
    """A constant of a kernel's description as Python: int, bool or the
    dtype's name."""
    if text in ("true", "false"):
        return text == "true"
    try:
        return int(text)
    except ValueError:
        return text


def autotune(path_or_source, configs, key, grid, args, stream=None,
             kernel=None, arch=None, name=None, **kwargs):
    """Picks the fastest of `configs` (tilec.Config; None or [] for the
    kernel's own @tune(...) values with the compiler's schedules:
    tune_space_configs) for the problem `key`
    (a string, or anything whose str() names the problem), timing
    `kernel[grid(config)](*args)` as a CUDA graph of its launches (the
    GPU's time, not the host's; captured after the stream's work); the winner
    is remembered in memory and on disk. `args` is the launch's arguments,
    or a list of argument tuples that the launches take in turn: inputs
    that together outgrow the L2 cache time a memory-bound kernel as a
    model runs it, reading from memory, where one set would be timed from
    L2. Returns the Kernel, with `.config` set. Keyword arguments are
    options and constants, as compile()'s, for every candidate.
    TILEC_AUTOTUNE=off takes the first config that compiles."""
    sets = args if isinstance(args, list) else [args]
    if not sets or not all(isinstance(a, tuple) for a in sets):
        raise ArgumentError("args: expected a tuple of arguments or a "
                            "non-empty list of them")
    turn = [0]
    if not configs:
        # The kernel's own @tune(...) values, each with the compiler's
        # schedule choices.
        plain = compile(path_or_source, kernel=kernel, arch=arch, name=name,
                        **kwargs)
        configs = tune_space_configs(plain, **kwargs)
    if isinstance(path_or_source, str) and not _is_source(path_or_source):
        with open(path_or_source) as f:
            source, label = f.read(), name or path_or_source
    else:
        source, label = path_or_source, name or "<source>"
    opts, constants = _split_options(kwargs)
    options, keep = _options(constants, kernel, arch, opts)
    candidates = (_capi.TuneCandidate * len(configs))()
    for i, config in enumerate(configs):
        array, held = _options(config.constants, options=config.options)
        candidates[i].constants = array.constants
        candidates[i].num_constants = array.num_constants
        candidates[i].options = array.options
        keep += [array, held]
    errors = []

    def launch(user, handle, index, stream_handle):
        try:
            config = configs[index]
            k = Kernel(handle, {**constants, **config.constants})
            g = grid(config) if callable(grid) else grid
            k.launch(g, *sets[turn[0] % len(sets)], stream=stream_handle or 0)
            turn[0] += 1
            return _capi.TILE_OK
        except Exception as e:  # reported through libtile, then re-raised
            errors.append(e)
            _capi.lib().tile_set_error(str(e).encode())
            return 1

    callback = _capi.TUNE_LAUNCH(launch)
    handle, chosen = ctypes.c_void_p(), ctypes.c_size_t()
    rc = _capi.lib().tile_autotune(
        source.encode(), label.encode(), ctypes.byref(options), candidates,
        len(configs), str(key).encode(), current_stream(stream), callback,
        None, ctypes.byref(handle), ctypes.byref(chosen))
    if rc != _capi.TILE_OK:
        raise from_message(_capi.last_error())
    config = configs[chosen.value]
    result = Kernel(handle.value, {**constants, **config.constants})
    result.config = config
    return result


_attention_options = _capi.AttentionOptions
_tls = threading.local()


class _Scratch:
    """Per-thread argument space for attention(): four tile_tensors whose
    shape and strides point into one int64 buffer, and the options, with
    their addresses, so that a call builds no ctypes objects."""

    def __init__(self):
        self.tensors = (_capi.Tensor * 4)()
        self.dims = (ctypes.c_int64 * 32)()
        self.options = _capi.AttentionOptions()
        base = ctypes.addressof(self.dims)
        p64 = ctypes.POINTER(ctypes.c_int64)
        for i in range(4):
            self.tensors[i].shape = ctypes.cast(base + 64 * i, p64)
            self.tensors[i].strides = ctypes.cast(base + 64 * i + 32, p64)
            self.tensors[i].rank = 4
        size = ctypes.sizeof(_capi.Tensor)
        t = ctypes.addressof(self.tensors)
        self.addresses = (t, t + size, t + 2 * size, t + 3 * size,
                          ctypes.addressof(self.options))


def _scratch():
    s = getattr(_tls, "scratch", None)
    if s is None:
        s = _tls.scratch = _Scratch()
    return s


def _torch_fast(q, k, v, out):
    """Whether the fast path applies: four rank-4 CUDA torch tensors."""
    torch = sys.modules.get("torch")
    if torch is None:
        return False
    T = torch.Tensor
    return (type(q) is T and type(k) is T and type(v) is T and
            type(out) is T and q.is_cuda and k.is_cuda and v.is_cuda and
            out.is_cuda and q.dim() == 4 and k.dim() == 4 and
            v.dim() == 4 and out.dim() == 4)


def attention(q, k, v, causal=False, scale=None, input_pos=0, out=None,
              stream=None, autotune=True, deterministic=None, *,
              descale_q=None, descale_k=None, descale_v=None, out_dtype=None,
              return_lse=False):
    """Flash attention forward: softmax(scale * q k^T + mask) v.

    q: (batch, heads, seq_q, head_dim); k, v: (batch, kv_heads, seq_k,
    head_dim), kv_heads dividing heads (GQA/MQA); f16 or bf16; head_dim a
    multiple of 8 up to 256; any strides with a contiguous last dimension.
    causal masks key j for query i when j > input_pos + i. scale defaults to
    1/sqrt(head_dim). Writes `out` (allocated like q when None, which needs
    torch tensors) and returns it. Runs on `stream` (None: PyTorch's current
    stream).

    Differentiable: where autograd is on and q, k or v requires grad, the
    forward saves its log-sum-exp and the backward runs the DSL's backward
    kernels (tilec.autograd says what it supports). deterministic=True
    (or None under torch.use_deterministic_algorithms(True)) gives the same
    gradient bits from run to run (dQ from a kernel of its own); otherwise
    dQ is added by atomics where that is faster (from 4096 queries at
    head_dim 128, 2048 at 64), and its last bits may vary. Under CUDA autocast,
    float32 q, k, v are taken in autocast's dtype, as PyTorch's
    scaled_dot_product_attention takes them.

    float8_e4m3fn q, k, v (head_dim 64, 128 or 256, sm_90a) run
    kernels/attention_fp8.tile, with their dequantization factors
    descale_q, descale_k, descale_v (floats, or float32 tensors of a scale
    per block of 128 rows of q and of k and per channel of v), the output
    in out_dtype (bfloat16 unless given), and with return_lse=True also
    the rows' log-sum-exp: tilec.fp8 says how, and quantizes 16-bit
    tensors for it (tilec.fp8.quantize). Not differentiable."""
    if _is_float8(q):
        if deterministic is not None or autotune is not True:
            raise ArgumentError("deterministic, autotune: not taken by "
                                "8-bit attention (no backward, no tuning)")
        return fp8.attention(
            q, k, v, causal, scale, input_pos, out, stream,
            1.0 if descale_q is None else descale_q,
            1.0 if descale_k is None else descale_k,
            1.0 if descale_v is None else descale_v, out_dtype, return_lse)
    for value, name in ((descale_q, "descale_q"), (descale_k, "descale_k"),
                        (descale_v, "descale_v"), (out_dtype, "out_dtype")):
        if value is not None:
            raise ArgumentError(f"{name}: only for float8_e4m3fn q, k, v")
    if return_lse is not False:
        raise ArgumentError("return_lse: only for float8_e4m3fn q, k, v "
                            "(16-bit: kernels/attention_lse.tile)")
    if deterministic is not None and type(deterministic) is not bool:
        raise ArgumentError(f"deterministic: expected a bool or None, got "
                            f"{deterministic!r}")
    if _is_float32(q):
        q, k, v = _autograd.autocast(q, k, v)
    if (getattr(q, "requires_grad", False) or
            getattr(k, "requires_grad", False) or
            getattr(v, "requires_grad", False)) and \
            _autograd.needs_grad(q, k, v):
        return _autograd.attention(q, k, v, causal, scale, input_pos, out,
                                   deterministic)
    if out is None:
        out = _out_like(q)
    if (type(input_pos) is int and -2**63 <= input_pos < 2**63 and
            type(causal) is bool and type(autotune) is bool and
            (scale is None or type(scale) is float) and
            _torch_fast(q, k, v, out)):
        dtypes = _tensors.torch_dtypes()
        s = _scratch()
        dims = s.dims
        for i, t in enumerate((q, k, v, out)):
            dtype = dtypes.get(t.dtype)
            if dtype is None:
                break  # the general path says why
            c = s.tensors[i]
            c.data = t.data_ptr()
            c.dtype = dtype
            dims[8 * i:8 * i + 4] = t.shape
            dims[8 * i + 4:8 * i + 8] = t.stride()
        else:
            o = s.options
            o.causal = causal
            if scale is None:
                o.has_scale = 0
            else:
                o.has_scale = 1
                o.scale = scale
            o.input_pos = input_pos
            o.disable_autotune = not autotune
            a = s.addresses
            if _attention_fast(a[0], a[1], a[2], a[3], a[4],
                               current_stream(stream)) != _capi.TILE_OK:
                raise from_message(_capi.last_error())
            return out
    tensors, held, o = _attention_args(q, k, v, out, causal, scale)
    _launch_options(o, input_pos, autotune)
    _check(_capi.lib().tile_attention(
        ctypes.byref(tensors[0]), ctypes.byref(tensors[1]),
        ctypes.byref(tensors[2]), ctypes.byref(tensors[3]), ctypes.byref(o),
        current_stream(stream)))
    return out


def attention_varlen(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q,
                     max_seqlen_k, causal=False, scale=None, out=None,
                     stream=None, autotune=True):
    """Flash attention over a batch of sequences of different lengths packed
    end to end, as flash_attn_varlen_func takes them (nothing computed for
    padding).

    q: (total_q, heads, head_dim); k, v: (total_k, kv_heads, head_dim),
    kv_heads dividing heads; cu_seqlens_q, cu_seqlens_k: (batch + 1,) int32
    tensors on the GPU, the offsets of the sequences from 0 to the totals
    (sequence b: rows cu_seqlens_q[b] to cu_seqlens_q[b + 1] - 1 of q and
    out, cu_seqlens_k[b] to cu_seqlens_k[b + 1] - 1 of k and v);
    max_seqlen_q, max_seqlen_k: the longest sequence's queries and keys
    (ints; they size the grid). causal masks key j for query i of a
    sequence of q_len queries and k_len keys when j > i + k_len - q_len
    (the bottom-right alignment of FlashAttention 2.1 on); a query that
    sees no key writes zeros. f16 or bf16, head_dim a multiple of 8 up to
    256, any strides with a contiguous last dimension; scale defaults to
    1/sqrt(head_dim). Writes `out` (allocated like q when None) and returns
    it. kernels/flash_attention.tile's fmha_varlen, tuned per problem class
    as attention() is. Not differentiable."""
    if (getattr(q, "requires_grad", False) or
            getattr(k, "requires_grad", False) or
            getattr(v, "requires_grad", False)) and \
            _autograd.needs_grad(q, k, v):
        raise ArgumentError("attention_varlen has no backward: call it under "
                            "torch.no_grad() or on tensors without grad")
    for value, name in ((max_seqlen_q, "max_seqlen_q"),
                        (max_seqlen_k, "max_seqlen_k")):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ArgumentError(f"{name}: expected an int, got "
                                f"{type(value).__name__}")
        if not -2**63 <= value < 2**63:
            raise ArgumentError(f"{name}: {value} does not fit in 64 bits")
    if out is None:
        out = _out_like(q)
    tensors, held, o = _attention_args(q, k, v, out, causal, scale)
    _launch_options(o, 0, autotune)
    bounds = _offsets_args(cu_seqlens_q, cu_seqlens_k, held)
    _check(_capi.lib().tile_attention_varlen(
        ctypes.byref(tensors[0]), ctypes.byref(tensors[1]),
        ctypes.byref(tensors[2]), ctypes.byref(tensors[3]),
        ctypes.byref(bounds[0]), ctypes.byref(bounds[1]), max_seqlen_q,
        max_seqlen_k, ctypes.byref(o), current_stream(stream)))
    return out


def _is_float8(t):
    dtype = getattr(t, "dtype", None)
    return dtype is not None and str(dtype) == "torch.float8_e4m3fn"


def _is_float32(t):
    dtype = getattr(t, "dtype", None)
    return dtype is not None and str(dtype) == "torch.float32"


def _out_like(q):
    """attention()'s default out: a new torch tensor like q."""
    if not _is_torch_tensor(q):
        raise ArgumentError("out: needed when q is not a torch tensor")
    return sys.modules["torch"].empty(q.shape, dtype=q.dtype,
                                      device=q.device)


def _launch_options(o, input_pos, autotune):
    """Sets the C options' input_pos (checked) and disable_autotune."""
    if isinstance(input_pos, bool) or not isinstance(input_pos, int):
        raise ArgumentError(f"input_pos: expected an int, got "
                            f"{type(input_pos).__name__}")
    if not -2**63 <= input_pos < 2**63:
        raise ArgumentError(f"input_pos: {input_pos} does not fit in 64 bits")
    o.input_pos = input_pos
    o.disable_autotune = 0 if _bool_arg(autotune, "autotune") else 1


def _bool_arg(value, name):
    """A bool argument: Python's bool or a NumPy bool scalar, never another
    object read as truthy."""
    if type(value) is bool:
        return value
    if (type(value).__module__ == "numpy" and
            type(value).__name__ in ("bool_", "bool")):
        return bool(value)
    raise ArgumentError(f"{name}: expected a bool, got "
                        f"{type(value).__name__} {value!r}")


def _scale_arg(scale):
    """attention()'s scale: None or a real number (not a bool, not text)."""
    if scale is None:
        return None
    if isinstance(scale, bool) or not isinstance(scale, numbers.Real):
        raise ArgumentError(f"scale: expected a float, got "
                            f"{type(scale).__name__} {scale!r}")
    return float(scale)


def _attention_args(q, k, v, out, causal, scale):
    """The C API's tensors for q, k, v and out (with the objects that keep
    them alive) and its options, input_pos left to the caller."""
    causal = _bool_arg(causal, "causal")
    scale = _scale_arg(scale)
    tensors = (_capi.Tensor * 4)()
    held = []
    for i, (obj, where) in enumerate(((q, "q"), (k, "k"), (v, "v"),
                                      (out, "out"))):
        t = tensor_arg(obj, where)
        held.append(t)
        t.fill(tensors[i])
    o = _attention_options()
    o.causal = 1 if causal else 0
    if scale is not None:
        o.has_scale = 1
        o.scale = scale
    return tensors, held, o


_attention_fast_fn = None


def _attention_fast(*args):
    """tile_attention with every argument an address (no conversions)."""
    global _attention_fast_fn
    if _attention_fast_fn is None:
        fn = ctypes.CFUNCTYPE(ctypes.c_int, *[ctypes.c_void_p] * 6)(
            ("tile_attention", _capi.lib()))
        _attention_fast_fn = fn
    return _attention_fast_fn(*args)


def check_attention(q, k, v, out, causal=False, scale=None, input_pos=0):
    """The checks of attention() alone (no GPU needed): raises
    ArgumentError naming the argument, or returns None."""
    tensors, held, o = _attention_args(q, k, v, out, causal, scale)
    o.input_pos = int(input_pos)
    _check(_capi.lib().tile_attention_check(
        ctypes.byref(tensors[0]), ctypes.byref(tensors[1]),
        ctypes.byref(tensors[2]), ctypes.byref(tensors[3]), ctypes.byref(o)))


def _offsets_args(cu_seqlens_q, cu_seqlens_k, held):
    """The C API's tensors for attention_varlen()'s offsets (the objects
    that keep them alive appended to `held`)."""
    bounds = (_capi.Tensor * 2)()
    for i, (obj, where) in enumerate(((cu_seqlens_q, "cu_seqlens_q"),
                                      (cu_seqlens_k, "cu_seqlens_k"))):
        t = tensor_arg(obj, where)
        held.append(t)
        t.fill(bounds[i])
    return bounds


def check_attention_varlen(q, k, v, out, cu_seqlens_q, cu_seqlens_k,
                           max_seqlen_q, max_seqlen_k, causal=False,
                           scale=None):
    """The checks of attention_varlen() alone (no GPU needed): raises
    ArgumentError naming the argument, or returns None."""
    tensors, held, o = _attention_args(q, k, v, out, causal, scale)
    bounds = _offsets_args(cu_seqlens_q, cu_seqlens_k, held)
    _check(_capi.lib().tile_attention_varlen_check(
        ctypes.byref(tensors[0]), ctypes.byref(tensors[1]),
        ctypes.byref(tensors[2]), ctypes.byref(tensors[3]),
        ctypes.byref(bounds[0]), ctypes.byref(bounds[1]),
        int(max_seqlen_q), int(max_seqlen_k), ctypes.byref(o)))


def attention_config(q, k, v, causal=False, scale=None, input_pos=0,
                     out=None, stream=None, autotune=True):
    """The configuration attention() runs for these arguments, as text
    ("TILE_M=128,TILE_N=128,...,warps=8,stages=2,ws=on,..."; "" for an empty
    problem), tuning the problem's class first if it was not (its launches
    on `stream`; out is not written). `out` defaults to a new tensor like
    q, as in attention()."""
    if out is None:
        out = _out_like(q)
    tensors, held, o = _attention_args(q, k, v, out, causal, scale)
    _launch_options(o, input_pos, autotune)
    needed = ctypes.c_size_t(0)
    buffer = ctypes.create_string_buffer(256)
    args = [ctypes.byref(t) for t in tensors] + [ctypes.byref(o),
                                                 current_stream(stream)]
    _check(_capi.lib().tile_attention_config(
        *args, buffer, ctypes.sizeof(buffer), ctypes.byref(needed)))
    if needed.value > ctypes.sizeof(buffer):
        buffer = ctypes.create_string_buffer(needed.value)
        _check(_capi.lib().tile_attention_config(
            *args, buffer, ctypes.sizeof(buffer), ctypes.byref(needed)))
    return buffer.value.decode()


def _is_torch_tensor(obj):
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(obj, torch.Tensor)


def stats():
    """libtile's counters: compiles, disk_hits, disk_writes, memory_hits,
    modules_loaded, alignment_variants."""
    s = _capi.Stats()
    _check(_capi.lib().tile_runtime_stats(ctypes.byref(s)))
    return {name: getattr(s, name) for name, _ in _capi.Stats._fields_}


from .decode import attention_with_kvcache, decode_plan, mla_decode  # noqa: E402
from . import fp8, ops  # noqa: E402
