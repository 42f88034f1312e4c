# -*- Python -*-
import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "TILEC"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".tile", ".test"]
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "unit", "fuzz", "Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tilec_obj_root, "test")

config.substitutions.append(("%kernels", os.path.join(config.tilec_src_root, "kernels")))

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

tools = [
    ToolSubst("%tilec", os.path.join(config.tilec_tools_dir, "tilec"), unresolved="fatal"),
    ToolSubst("tile-opt", os.path.join(config.tilec_tools_dir, "tile-opt"), unresolved="fatal"),
]
llvm_config.add_tool_substitutions(tools, [config.tilec_tools_dir, config.llvm_tools_dir])

# ptxas assembles the PTX that tilec emits (test/Target/ptxas.test).
import shutil
ptxas = shutil.which("ptxas")
if not ptxas and os.path.exists("/usr/local/cuda/bin/ptxas"):
    ptxas = "/usr/local/cuda/bin/ptxas"
if ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))
