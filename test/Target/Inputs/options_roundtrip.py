"""Every compile option of include/tile/Options.def reaches tilec and
tile-opt: tilec --help lists its flag (the key with '-' for '_'), tile-opt
lists it among the tile-to-llvm pipeline's options, `tilec --FLAG=VALUE`
with a value other than the default compiles vector_add (or is refused with
tilec's own message), and an option a kernel may give (TILE_OPTION_HINT) is
taken from @hints(...).

usage: python3 options_roundtrip.py OPTIONS_DEF TILEC TILE_OPT KERNEL
"""
import re
import subprocess
import sys
import tempfile

options_def, tilec, tile_opt, kernel = sys.argv[1:5]
text = open(options_def).read()
entries = re.findall(r"^TILE_OPTION\((\w+),\s*(\w+),\s*(\w+),\s*(\w+),\s*"
                     r"(\w+),\s*(\w+),\s*([^,]+),", text, re.M)
assert len(entries) >= 17, entries
tilec_help = subprocess.run([tilec, "--help"], capture_output=True,
                            text=True).stdout
opt_help = subprocess.run([tile_opt, "--help"], capture_output=True,
                          text=True).stdout
# The tile-to-llvm pipeline's options: the lines indented under it.
pipeline = []
for line in opt_help[opt_help.index("--tile-to-llvm "):].splitlines()[1:]:
    if not line.startswith("        --"):
        break
    pipeline.append(line.split()[0].split("=")[0])
failures = []
source = open(kernel).read()
for field, key, typ, default, lo, hi, flags in entries:
    flag = key.replace("_", "-")
    if f"--{flag}" not in tilec_help:
        failures.append(f"{key}: tilec --help lists no --{flag}")
    if f"--{flag}" not in pipeline:
        failures.append(f"{key}: tile-opt's tile-to-llvm has no {flag}")
    if typ == "bool":
        value = "false" if default == "true" else "true"
    else:
        value = hi if default != hi else lo
    p = subprocess.run([tilec, "--emit=ptx", "--arch=sm_90a", kernel,
                        f"--{flag}={value}", "-o", "/dev/null"],
                       capture_output=True, text=True)
    # Compiled, or refused with tilec's own message or a located one (32
    # blocks of 128 threads do not fit a multiprocessor).
    if p.returncode != 0 and not re.match(r"(tilec|\S+:\d+:\d+): error: ",
                                          p.stderr):
        failures.append(f"{key}: --{flag}={value}: {p.stderr}")
    if "TILE_OPTION_HINT" in flags:
        hint = "True" if value == "true" else ("False" if value == "false"
                                               else value)
        with tempfile.NamedTemporaryFile("w", suffix=".tile") as f:
            at = source.index("kernel ")
            f.write(source[:at] + f"@hints({key}={hint})\n" + source[at:])
            f.flush()
            p = subprocess.run([tilec, "--emit=tile", f.name],
                               capture_output=True, text=True)
            if p.returncode != 0 or f"{key} = " not in p.stdout:
                failures.append(f"{key}: @hints({key}={hint}): "
                                f"{p.stderr or 'not in tile.hints'}")
for f in failures:
    print(f)
print(f"options round trip: {len(entries) - len(failures)} passed, "
      f"{len(failures)} failed")
sys.exit(1 if failures else 0)
