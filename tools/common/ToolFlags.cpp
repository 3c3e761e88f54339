// The flags model-runner, model-compiler and the conformance tool share. They are all defined
// in this one file: -help lists a tool's flags grouped by the file defining them, so the
// shared ones stay together, in name order, ahead of each tool's own.
#include "ToolFlags.h"

#include "ember/Importer/ModelLoader.h"
#include "ember/Quantization/Quantization.h"

DEFINE_string(model, "",
              "Model: an ONNX file (.onnx binary, .onnxtxt text); or a Caffe2 model, given as "
              "-model=predict_net.pb -model=init_net.pb (predict first; .pbtxt for text) or as "
              "-model=DIR holding predict_net.pb(txt) and init_net.pb(txt)");
DEFINE_string(model_input, "",
              "NAME,TYPE,[D0,D1,...]: the type of a Caffe2 net's input (Caffe2 nets declare "
              "none; repeatable). TYPE is float, float16, bfloat16, int32, int64, bool, or "
              "int8q/uint8q followed by ,SCALE,OFFSET. Without it an input takes its -input "
              "file's type");
DEFINE_string(backend, "CPU",
              "Backend to compile for: CPU (LLVM, JIT-compiled for this machine), Interpreter "
              "(the reference) or OpenCL (the first OpenCL device; docs/opencl-backend.md)");
DEFINE_int32(opencl_platform, 0, "OpenCL: the platform to use, by index");
DEFINE_int32(opencl_device, 0, "OpenCL: the device of that platform to use, by index");
DEFINE_string(target, "", "Target triple to compile for, e.g. aarch64-linux-gnu (default: this "
                          "machine's; another machine's only for bundles)");
DEFINE_string(mcpu, "", "Target CPU, e.g. skylake-avx512, cortex-a72 (default: this machine's, "
                        "or generic for another -target)");
DEFINE_string(mattr, "", "Target features to add or remove, e.g. +avx2,-avx512f");
DEFINE_string(code_model, "", "Code model: small, medium, large, kernel (default: the target's)");
DEFINE_string(relocation_model, "", "Relocation model: pic or static (default: pic)");
DEFINE_int32(llvm_opt_level, 3,
             "CPU: how hard LLVM optimizes the generated code, 0 to 3 as clang's -O (the "
             "kernels are optimized bitcode at any level; 0 compiles fastest)");
DEFINE_bool(dump_llvm_ir, false, "Print the optimized LLVM IR of the compiled model (CPU)");
DEFINE_bool(dump_llvm_asm, false, "Print the generated assembly of the compiled model (CPU)");
DEFINE_int32(threads, 1,
             "Threads each convolution and matrix product splits its work over (CPU; the "
             "bundle then needs -pthread)");
DEFINE_bool(profile, false,
            "Time every instruction of the compiled function and print them, slowest first, "
            "with GFLOP/s for convolutions and matrix products");
DEFINE_double(peak_gflops, 0,
              "With -profile: this machine's peak GFLOP/s (utils/bench/peak.c), to print each "
              "product's share of it");
DEFINE_string(input, "",
              "Input tensors: NAME=FILE[,NAME=FILE...], or FILE for a model with one input. "
              "FILE is .npy or an ONNX TensorProto .pb of any element kind (a UINT16 .pb for a "
              "bfloat16 input holds its bits, as ONNX 1.12 writes bfloat16); a sequence or "
              "optional input is an ONNX SequenceProto or OptionalProto .pb, whose length "
              "(presence) is compiled in, its tensors run-time inputs. An input the "
              "model needs at compile time (a Reshape's shape, a Pad's pads) is fixed to its "
              "file's value when compiling (a note says so); the others stay run-time inputs. "
              "FILE .png, .jpg or .jpeg is an image, preprocessed as -image-mode, "
              "-image-layout, -image-channel-order, -mean and -stddev say; the same NAME given "
              "several images (NAME=a.png,NAME=b.png) makes a batch of them");
DEFINE_string(image_mode, "0to1",
              "Image inputs: the range pixels 0..255 are mapped to: 0to1, neg1to1, 0to255 or "
              "neg128to127 (Glow's -image-mode)");
DEFINE_string(image_layout, "NCHW", "Image inputs: the input's layout, NCHW or NHWC");
DEFINE_string(image_channel_order, "BGR",
              "Image inputs: the order of a color image's channels in the input, BGR (Glow's "
              "default, Caffe's models) or RGB (torchvision's)");
DEFINE_string(mean, "",
              "Image inputs: M or M1,M2,M3: subtracted from each channel's pixels 0..255 "
              "before -stddev and -image-mode, in the image's R,G,B order (Glow's -mean; "
              "default 0)");
DEFINE_string(stddev, "",
              "Image inputs: S or S1,S2,S3: each channel's pixels minus -mean are divided by it "
              "before -image-mode maps them, R,G,B order (Glow's -stddev; default 1)");
DEFINE_bool(image_resize, false,
            "Image inputs: resize an image whose size differs from the input's fixed height and "
            "width to that size (bilinear, half-pixel centers); without it such an image is "
            "refused");
DEFINE_string(onnx_define_symbol, "",
              "NAME,VALUE: bind a symbolic dim of the model's inputs (repeatable)");
DEFINE_string(onnx_define_input, "",
              "NAME=VALUE or NAME=FILE: bind a model input to a constant at compile time, so "
              "what depends on it alone folds away (repeatable; FILE is .npy or .pb)");
DEFINE_bool(strict_onnx, false,
            "Refuse an ONNX model on any finding of the ONNX checker. Without it the findings "
            "that leave the model unambiguous (an unnamed graph, an output without a type, an "
            "initializer missing from an IR-3 graph's inputs, ...) are warnings and the model "
            "loads");
DEFINE_int64(unroll_loops_up_to, ember::ImportOptions().unrollLoopsUpTo,
             "A Loop or Scan whose iteration count is known at compile time and at most this is "
             "unrolled; any other runs as a loop in the compiled code (0: never unroll one that "
             "can be a loop)");
DEFINE_int64(max_loop_iterations, ember::ImportOptions().maxLoopIterations,
             "A Loop whose trip count is known only at run time fails, at run time, rather than "
             "run more iterations than this");
DEFINE_string(max_memory, "",
              "The most memory one compile may ask for (a model's regions, a value folded at "
              "compile time), e.g. 512M or 8G; a model needing more is refused before "
              "allocating (default: half of this machine's memory)");
DEFINE_string(load_profile, "",
              "Quantize the model to int8 from this profile (written by model-runner "
              "-dump-profile): each Conv, MatMul and FullyConnected with constant weights whose "
              "input and result the profile covers runs as an integer kernel");
DEFINE_string(quantization_schema, "asymmetric",
              "With -load-profile, how a value's range becomes its scale and zero point: "
              "asymmetric (uint8), symmetric (int8, zero point 0), symmetric_with_uint8 (uint8 "
              "for ranges without negatives, else int8), symmetric_with_power2_scale");
DEFINE_string(quantization_calibration, "none",
              "With -load-profile, the range each activation is quantized over: none (the "
              "profiled min and max) or KL (clipped where the profile's histogram loses least "
              "in 8 bits; weights keep their exact range)");
DEFINE_string(quantization_precision, "Int8",
              "With -load-profile, the integer kind of quantized values: Int8 (Int16 is refused: "
              "the integer kernels take 8-bit operands only)");
DEFINE_string(quantization_precision_bias, "Int32",
              "With -load-profile, the integer kind of quantized biases: Int32 (Int8 is refused: "
              "the integer kernels add an int32 bias to their int32 sums)");
DEFINE_bool(enable_channelwise, ember::QuantizationOptions().channelwise,
            "With -load-profile: a weight scale per output channel (-enable-channelwise=false: "
            "one per tensor)");
DEFINE_string(keep_original_precision_for_nodes, "",
              "With -load-profile: node kinds (as -dump-graph names them, comma-separated: "
              "Conv,FusedConv,MatMul,FusedMatMul,FullyConnected) to leave in float32");
DEFINE_bool(dump_graph, false, "Print the optimized graph (alias -dumpGraph)");
DEFINE_string(dump_graph_DAG, "", "Write the optimized graph to this file as Graphviz DOT");
DEFINE_bool(dump_ir, false, "Print the IR with its memory plan");
DEFINE_string(dump_graph_after, "",
              "Print the graph after these graph passes (comma-separated names, or 'all')");
DEFINE_bool(print_pass_stats, false,
            "Print one line per graph and IR pass run: nodes (instructions) before and after, "
            "time");
DEFINE_bool(verify_each, false, "Verify the graph after every graph pass and the IR after "
                                "IRGen and every IR pass");
DEFINE_string(ir_passes, "default",
              "IR passes to run, comma-separated ('default' for the default IR pipeline, "
              "'none' for none)");
DEFINE_string(dump_ir_after, "",
              "Print the IR after these IR passes (comma-separated names, or 'all')");
DEFINE_bool(time_phases, false, "Print the time each compile phase took");
DEFINE_bool(print_memory, false,
            "Print the memory plan's summary: the three regions, and the activations' peak "
            "live bytes and sum against their region");
