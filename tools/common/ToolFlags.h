// The flags model-runner, model-compiler and the conformance tool share (defined in
// ToolFlags.cpp), for the tools and for the code here that reads them: CommandLine.h parses
// them, ModelLoading.h, CompileFromFlags.h and ToolReports.h act on them.
#ifndef EMBER_TOOLS_COMMON_TOOLFLAGS_H
#define EMBER_TOOLS_COMMON_TOOLFLAGS_H

#include <gflags/gflags.h>

DECLARE_string(model);
DECLARE_string(model_input);
DECLARE_string(backend);
DECLARE_int32(opencl_platform);
DECLARE_int32(opencl_device);
DECLARE_string(target);
DECLARE_string(mcpu);
DECLARE_string(mattr);
DECLARE_string(code_model);
DECLARE_string(relocation_model);
DECLARE_int32(llvm_opt_level);
DECLARE_bool(dump_llvm_ir);
DECLARE_bool(dump_llvm_asm);
DECLARE_int32(threads);
DECLARE_bool(profile);
DECLARE_double(peak_gflops);
DECLARE_string(input);
DECLARE_string(image_mode);
DECLARE_string(image_layout);
DECLARE_string(image_channel_order);
DECLARE_string(mean);
DECLARE_string(stddev);
DECLARE_bool(image_resize);
DECLARE_string(onnx_define_symbol);
DECLARE_string(onnx_define_input);
DECLARE_bool(strict_onnx);
DECLARE_int64(unroll_loops_up_to);
DECLARE_int64(max_loop_iterations);
DECLARE_string(max_memory);
DECLARE_string(load_profile);
DECLARE_string(quantization_schema);
DECLARE_string(quantization_calibration);
DECLARE_string(quantization_precision);
DECLARE_string(quantization_precision_bias);
DECLARE_bool(enable_channelwise);
DECLARE_string(keep_original_precision_for_nodes);
DECLARE_bool(dump_graph);
DECLARE_string(dump_graph_DAG);
DECLARE_bool(dump_ir);
DECLARE_string(dump_graph_after);
DECLARE_bool(print_pass_stats);
DECLARE_bool(verify_each);
DECLARE_string(ir_passes);
DECLARE_string(dump_ir_after);
DECLARE_bool(time_phases);
DECLARE_bool(print_memory);

#endif
