"""Turns Python objects into libtile arguments: torch tensors, objects with
__cuda_array_interface__ or DLPack (__dlpack__), and Python scalars."""

import ctypes
import math
import numbers
import struct
import sys

from . import _capi
from .errors import ArgumentError

_FLT_MAX = 3.4028234663852886e38

# torch dtype name -> tile_dtype
_TORCH_DTYPES = {
    "torch.float16": _capi.F16,
    "torch.bfloat16": _capi.BF16,
    "torch.float32": _capi.F32,
    "torch.int32": _capi.I32,
    "torch.int64": _capi.I64,
    "torch.int8": _capi.I8,
    "torch.bool": _capi.BOOL,
    "torch.float8_e4m3fn": _capi.F8E4M3,
    "torch.float8_e5m2": _capi.F8E5M2,
}

# __cuda_array_interface__ typestr (byte order dropped) -> tile_dtype
_TYPESTRS = {"f2": _capi.F16, "f4": _capi.F32, "i4": _capi.I32,
             "i8": _capi.I64, "i1": _capi.I8, "b1": _capi.BOOL}
_ITEMSIZE = {_capi.F16: 2, _capi.BF16: 2, _capi.F32: 4, _capi.I32: 4,
             _capi.BOOL: 1, _capi.F8E4M3: 1, _capi.F8E5M2: 1, _capi.I64: 8,
             _capi.I8: 1}

# DLPack (dlpack.h): device and dtype codes.
_DL_CUDA, _DL_CUDA_MANAGED = 2, 13
_DL_INT, _DL_FLOAT, _DL_BFLOAT, _DL_BOOL = 0, 2, 4, 6


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", _DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", _DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


_DL_DTYPES = {(_DL_FLOAT, 16): _capi.F16, (_DL_BFLOAT, 16): _capi.BF16,
              (_DL_FLOAT, 32): _capi.F32, (_DL_INT, 32): _capi.I32,
              (_DL_INT, 64): _capi.I64, (_DL_INT, 8): _capi.I8,
              (_DL_BOOL, 8): _capi.BOOL}


def _contiguous_strides(shape):
    strides = [1] * len(shape)
    for i in range(len(shape) - 1, 0, -1):
        strides[i - 1] = strides[i] * shape[i]
    return strides


class TensorArg:
    """One tensor as libtile sees it; keeps what it was made from alive."""

    __slots__ = ("data", "dtype", "shape", "strides", "keep", "_shape_c",
                 "_strides_c")

    def __init__(self, data, dtype, shape, strides, keep=None):
        self.data = data
        self.dtype = dtype
        self.shape = tuple(int(s) for s in shape)
        self.strides = tuple(int(s) for s in strides)
        self.keep = keep
        rank = len(self.shape)
        self._shape_c = (ctypes.c_int64 * rank)(*self.shape)
        self._strides_c = (ctypes.c_int64 * rank)(*self.strides)

    def fill(self, t):
        """Fills a tile_tensor (_capi.Tensor) `t`."""
        t.data = self.data
        t.dtype = self.dtype
        t.rank = len(self.shape)
        t.shape = self._shape_c
        t.strides = self._strides_c
        return t


_TORCH_DTYPE_OBJECTS = None


def torch_dtypes():
    """{torch.float16: F16, ...}, keyed by the dtype objects."""
    global _TORCH_DTYPE_OBJECTS
    if _TORCH_DTYPE_OBJECTS is None:
        torch = sys.modules["torch"]
        _TORCH_DTYPE_OBJECTS = {
            getattr(torch, name.split(".")[1]): dtype
            for name, dtype in _TORCH_DTYPES.items()}
    return _TORCH_DTYPE_OBJECTS


def _is_torch_tensor(obj):
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(obj, torch.Tensor)


def _from_torch(obj, where):
    dtype = _TORCH_DTYPES.get(str(obj.dtype))
    if dtype is None:
        raise ArgumentError(f"{where}: torch dtype {obj.dtype} is not "
                            "supported (float16, bfloat16, float32, int32, "
                            "int64, int8, bool, float8_e4m3fn, float8_e5m2)")
    if obj.device.type != "cuda":
        raise ArgumentError(f"{where}: the tensor is on {obj.device}, not on "
                            "a CUDA device")
    return TensorArg(obj.data_ptr(), dtype, obj.shape, obj.stride(), obj)


def _from_cai(obj, where):
    cai = obj.__cuda_array_interface__
    typestr = cai.get("typestr", "")
    dtype = _TYPESTRS.get(typestr[1:])
    if dtype is None:
        raise ArgumentError(f"{where}: __cuda_array_interface__ typestr "
                            f"{typestr!r} is not supported (f2, f4, i4, b1)")
    shape = tuple(cai["shape"])
    data = cai["data"][0] if cai.get("data") else 0
    if cai.get("strides") is None:
        strides = _contiguous_strides(shape)
    else:
        size = _ITEMSIZE[dtype]
        strides = []
        for s in cai["strides"]:
            if s % size:
                raise ArgumentError(f"{where}: stride of {s} bytes is not a "
                                    f"multiple of the element size ({size})")
            strides.append(s // size)
    return TensorArg(data, dtype, shape, strides, obj)


_PyCapsule_GetPointer = None


def _from_dlpack(obj, where):
    global _PyCapsule_GetPointer
    if _PyCapsule_GetPointer is None:
        fn = ctypes.pythonapi.PyCapsule_GetPointer
        fn.restype = ctypes.c_void_p
        fn.argtypes = [ctypes.py_object, ctypes.c_char_p]
        _PyCapsule_GetPointer = fn
    capsule = obj.__dlpack__()
    pointer = _PyCapsule_GetPointer(capsule, b"dltensor")
    # DLManagedTensor starts with its DLTensor. The capsule, kept alive with
    # the argument, frees it (its destructor calls the deleter).
    t = _DLTensor.from_address(pointer)
    if t.device.device_type not in (_DL_CUDA, _DL_CUDA_MANAGED):
        raise ArgumentError(f"{where}: the DLPack tensor is not on a CUDA "
                            f"device (device type {t.device.device_type})")
    dtype = _DL_DTYPES.get((t.dtype.code, t.dtype.bits))
    if dtype is None or t.dtype.lanes != 1:
        raise ArgumentError(f"{where}: DLPack dtype (code {t.dtype.code}, "
                            f"{t.dtype.bits} bits, {t.dtype.lanes} lanes) is "
                            "not supported")
    shape = [t.shape[i] for i in range(t.ndim)]
    strides = ([t.strides[i] for i in range(t.ndim)] if t.strides
               else _contiguous_strides(shape))
    data = (t.data or 0) + t.byte_offset
    return TensorArg(data, dtype, shape, strides, (obj, capsule))


def tensor_arg(obj, where):
    """A TensorArg for a tensor-like `obj`, or ArgumentError."""
    if isinstance(obj, TensorArg):
        return obj
    if _is_torch_tensor(obj):
        return _from_torch(obj, where)
    if hasattr(obj, "__cuda_array_interface__"):
        return _from_cai(obj, where)
    if hasattr(obj, "__dlpack__"):
        return _from_dlpack(obj, where)
    raise ArgumentError(f"{where}: expected a GPU tensor (a torch tensor, or "
                        "an object with __cuda_array_interface__ or "
                        f"__dlpack__), got {type(obj).__name__}")


# TensorArgs of torch tensors by (address, dtype, shape, strides):
# a launch's arguments are most often tensors seen before (weights, buffers
# reused by the caching allocator), and building one (its ctypes shape and
# strides) costs more than the rest of the argument. The entries hold no
# tensor (what a launch reads is kept alive by its caller, as for any
# PyTorch op); the cache is emptied when it reaches _CACHE_SIZE.
_torch_args = {}
_CACHE_SIZE = 4096
_torch_tensor_type = None


_ARG_SIZE = ctypes.sizeof(_capi.Arg)


def _torch_arg(obj, where):
    """The cached tile_arg image of torch tensor `obj`: its TensorArg (which
    owns the shape and strides the image points to) and the image's bytes.
    (Device addresses are unique across devices: unified addressing.)"""
    key = (obj.data_ptr(), obj.dtype, obj.shape, obj.stride())
    entry = _torch_args.get(key)
    if entry is None:
        t = _from_torch(obj, where)
        t.keep = None
        image = _capi.Arg()
        image.kind = _capi.ARG_TENSOR
        t.fill(image.value.tensor)
        entry = (t, bytes(image))
        if len(_torch_args) >= _CACHE_SIZE:
            _torch_args.clear()
        _torch_args[key] = entry
    return entry


def fill_arg(arg, obj, where, keep):
    """Fills the tile_arg `arg` from `obj`; appends what must stay alive
    during the call to `keep`."""
    global _torch_tensor_type
    kind = type(obj)
    if kind is _torch_tensor_type:
        # The common case first: a torch tensor (exactly torch.Tensor),
        # copied in as the image cached for its address, shape and strides.
        t, image = _torch_arg(obj, where)
        keep.append(t)
        ctypes.memmove(ctypes.addressof(arg), image, _ARG_SIZE)
        return
    if kind is float and (not math.isfinite(obj) or abs(obj) <= _FLT_MAX):
        arg.kind = _capi.ARG_FLOAT
        arg.value.f = obj
        return
    if _torch_tensor_type is None and _is_torch_tensor(obj):
        _torch_tensor_type = sys.modules["torch"].Tensor
        if kind is _torch_tensor_type:
            return fill_arg(arg, obj, where, keep)
    if isinstance(obj, bool):
        arg.kind = _capi.ARG_BOOL
        arg.value.b = 1 if obj else 0
    elif isinstance(obj, numbers.Integral):
        value = int(obj)
        if not -2**63 <= value < 2**63:
            raise ArgumentError(f"{where}: the int {value} does not fit in "
                                "64 bits")
        arg.kind = _capi.ARG_INT
        arg.value.i = value
    elif isinstance(obj, numbers.Real):
        value = float(obj)
        if math.isfinite(value) and abs(value) > _FLT_MAX:
            raise ArgumentError(f"{where}: {value!r} does not fit a 32-bit "
                                "float")
        arg.kind = _capi.ARG_FLOAT
        arg.value.f = value
    else:
        t = tensor_arg(obj, where)
        keep.append(t)
        arg.kind = _capi.ARG_TENSOR
        t.fill(arg.value.tensor)


# The tile_arg images of scalars, packed directly: kind, then the value at
# the union's offset, the rest zero.
_VALUE_AT = _capi.Arg.value.offset
_FLOAT_IMAGE = struct.Struct(f"<i{_VALUE_AT - 4}xf{_ARG_SIZE - _VALUE_AT - 4}x")
_INT_IMAGE = struct.Struct(f"<i{_VALUE_AT - 4}xq{_ARG_SIZE - _VALUE_AT - 8}x")
_BOOL_IMAGE = struct.Struct(f"<i{_VALUE_AT - 4}xi{_ARG_SIZE - _VALUE_AT - 4}x")


def pack_args(args, keep):
    """The tile_arg array of `args` as bytes (what tile_kernel_launch
    reads), built from the cached images of torch tensors and packed images
    of floats; every other argument through fill_arg. Appends what must stay
    alive during the call to `keep`."""
    images = []
    for i, obj in enumerate(args):
        kind = type(obj)
        if kind is _torch_tensor_type:
            t, image = _torch_arg(obj, f"argument {i + 1}")
            keep.append(t)
            images.append(image)
        elif kind is float and (not math.isfinite(obj) or
                                abs(obj) <= _FLT_MAX):
            images.append(_FLOAT_IMAGE.pack(_capi.ARG_FLOAT, obj))
        elif kind is int and -2**63 <= obj < 2**63:
            images.append(_INT_IMAGE.pack(_capi.ARG_INT, obj))
        elif kind is bool:
            images.append(_BOOL_IMAGE.pack(_capi.ARG_BOOL, 1 if obj else 0))
        else:
            arg = _capi.Arg()
            fill_arg(arg, obj, f"argument {i + 1}", keep)
            images.append(bytes(arg))
    return b"".join(images)


def current_stream(stream):
    """The CUstream handle for `stream`: None -> PyTorch's current stream
    when PyTorch is loaded, else the default stream (0); an int; or an object
    with .cuda_stream (torch.cuda.Stream) or __cuda_stream__."""
    if stream is None:
        torch = sys.modules.get("torch")
        if torch is not None and torch.cuda.is_initialized():
            raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
            if raw is not None:  # what torch.compile's generated code calls
                return raw(torch.cuda.current_device())
            return torch.cuda.current_stream().cuda_stream
        return 0
    if isinstance(stream, int):
        return stream
    if hasattr(stream, "__cuda_stream__"):
        return int(stream.__cuda_stream__()[1])
    if hasattr(stream, "cuda_stream"):
        return int(stream.cuda_stream)
    raise ArgumentError(f"stream: expected None, an int handle or a CUDA "
                        f"stream object, got {type(stream).__name__}")
