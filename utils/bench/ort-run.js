#!/usr/bin/env node
// Times one ONNX model under onnxruntime (CPU, via onnxruntime-node) so that ember's latency can be
// compared with it in the same run. Install onnxruntime first with utils/bench/setup-ort.sh.
//
//   node utils/bench/ort-run.js --model M.onnx --input [name=]file.{npy,pb} [--input ...]
//        [--threads 1] [--iterations 50] [--warmup 5] [--output-dir DIR] [--json]
//
// Inputs are .npy files or ONNX TensorProto .pb files (the ONNX test-data format); an input given
// without name= takes the next model input not named explicitly, in the model's order. Reports the
// median and min latency of the timed runs, the thread count and the peak resident memory (VmHWM).
// With --output-dir, each output of the last run is written as DIR/<name>.npy.
//
// Also usable as a module (the self-test uses readNpy/writeNpy/readTensorProto directly).
'use strict';

const fs = require('fs');
const path = require('path');

// ---------------------------------------------------------------------------------------------------
// Element types. `npy` is the numpy type code without byte order, `onnx` the TensorProto data_type.
// Only little-endian hosts are supported (x86-64, arm64): typed arrays use host byte order, and
// both .npy ('<') and TensorProto raw_data are little-endian.
const TYPES = {
  float32: { ctor: Float32Array, npy: 'f4', onnx: 1 },
  uint8: { ctor: Uint8Array, npy: 'u1', onnx: 2 },
  int8: { ctor: Int8Array, npy: 'i1', onnx: 3 },
  uint16: { ctor: Uint16Array, npy: 'u2', onnx: 4 },
  int16: { ctor: Int16Array, npy: 'i2', onnx: 5 },
  int32: { ctor: Int32Array, npy: 'i4', onnx: 6 },
  int64: { ctor: BigInt64Array, npy: 'i8', onnx: 7 },
  bool: { ctor: Uint8Array, npy: 'b1', onnx: 9 },
  // onnxruntime-node takes float16 as the raw bits in a Uint16Array.
  float16: { ctor: Uint16Array, npy: 'f2', onnx: 10 },
  float64: { ctor: Float64Array, npy: 'f8', onnx: 11 },
  uint32: { ctor: Uint32Array, npy: 'u4', onnx: 12 },
  uint64: { ctor: BigUint64Array, npy: 'u8', onnx: 13 },
};
const TYPE_BY_NPY = Object.fromEntries(Object.entries(TYPES).map(([t, v]) => [v.npy, t]));
const TYPE_BY_ONNX = Object.fromEntries(Object.entries(TYPES).map(([t, v]) => [v.onnx, t]));

const elementCount = (dims) => dims.reduce((n, d) => n * d, 1);

// Typed arrays need an offset aligned to their element size, which a slice of a file buffer need
// not have, so the bytes are copied into a fresh ArrayBuffer.
function typedFromBytes(type, bytes) {
  const { ctor } = TYPES[type];
  if (bytes.byteLength % ctor.BYTES_PER_ELEMENT !== 0) {
    throw new Error(`${bytes.byteLength} bytes is not a whole number of ${type} elements`);
  }
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  return new ctor(copy.buffer);
}

// ---------------------------------------------------------------------------------------------------
// .npy (format versions 1.0, 2.0 and 3.0; see numpy.lib.format).
const NPY_MAGIC = Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]); // "\x93NUMPY"

function readNpy(file) {
  const buf = fs.readFileSync(file);
  const fail = (why) => { throw new Error(`${file}: ${why}`); };
  if (buf.length < 10 || !buf.subarray(0, 6).equals(NPY_MAGIC)) fail('not a .npy file (bad magic)');
  const major = buf[6];
  let headerLen;
  let offset;
  if (major === 1) {
    headerLen = buf.readUInt16LE(8);
    offset = 10;
  } else if (major === 2 || major === 3) {
    if (buf.length < 12) fail('truncated .npy header');
    headerLen = buf.readUInt32LE(8);
    offset = 12;
  } else {
    fail(`unsupported .npy format version ${major}.${buf[7]}`);
  }
  if (offset + headerLen > buf.length) fail('truncated .npy header');
  // The header is a Python dict literal; its three keys have fixed, simple value syntax.
  const header = buf.toString(major === 3 ? 'utf8' : 'latin1', offset, offset + headerLen);
  const descr = /'descr'\s*:\s*'([^']*)'/.exec(header);
  const fortran = /'fortran_order'\s*:\s*(True|False)/.exec(header);
  const shape = /'shape'\s*:\s*\(([^)]*)\)/.exec(header);
  if (!descr || !fortran || !shape) fail(`cannot parse .npy header ${JSON.stringify(header.trim())}`);

  const m = /^([<>|=])([a-z]\d+)$/.exec(descr[1]);
  const type = m && TYPE_BY_NPY[m[2]];
  if (!type) {
    fail(`unsupported .npy dtype '${descr[1]}' (supported: ${Object.values(TYPES).map((t) => t.npy).join(' ')})`);
  }
  if (m[1] === '>' && TYPES[type].ctor.BYTES_PER_ELEMENT > 1) fail(`big-endian dtype '${descr[1]}' is not supported`);

  const dims = shape[1].split(',').map((s) => s.trim()).filter((s) => s !== '').map((s) => {
    if (!/^\d+$/.test(s)) fail(`bad .npy shape (${shape[1]})`);
    return Number(s);
  });
  // A Fortran-ordered array of rank <= 1 has the same bytes as the C-ordered one.
  if (fortran[1] === 'True' && dims.filter((d) => d !== 1).length > 1) {
    fail('Fortran-ordered arrays are not supported (save with np.ascontiguousarray)');
  }
  const start = offset + headerLen;
  const nbytes = elementCount(dims) * TYPES[type].ctor.BYTES_PER_ELEMENT;
  if (start + nbytes > buf.length) fail(`truncated data: ${buf.length - start} bytes, shape needs ${nbytes}`);
  return { type, dims, data: typedFromBytes(type, buf.subarray(start, start + nbytes)) };
}

function writeNpy(file, type, dims, data) {
  const info = TYPES[type];
  if (!info) throw new Error(`${file}: cannot write element type ${type} as .npy`);
  const descr = (info.ctor.BYTES_PER_ELEMENT === 1 ? '|' : '<') + info.npy;
  const shape = dims.length === 1 ? `(${dims[0]},)` : `(${dims.join(', ')})`;
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shape}, }`;
  // numpy pads the header with spaces and a newline so that the data starts 64-byte aligned;
  // version 2.0 is needed only when the header outgrows the 16-bit length of version 1.0.
  let prefix = 10;
  if (header.length + 1 + 64 > 0xffff) prefix = 12;
  const total = Math.ceil((prefix + header.length + 1) / 64) * 64;
  header = header.padEnd(total - prefix - 1, ' ') + '\n';
  const head = Buffer.alloc(prefix);
  NPY_MAGIC.copy(head, 0);
  head[6] = prefix === 10 ? 1 : 2;
  head[7] = 0;
  if (prefix === 10) head.writeUInt16LE(header.length, 8);
  else head.writeUInt32LE(header.length, 8);
  const body = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  fs.writeFileSync(file, Buffer.concat([head, Buffer.from(header, 'latin1'), body]));
}

// ---------------------------------------------------------------------------------------------------
// ONNX TensorProto (.pb), parsed just far enough for the test-data files: dims=1, data_type=2,
// float_data=4, int32_data=5, string_data=6, int64_data=7, name=8, raw_data=9, double_data=10,
// uint64_data=11, data_location=14. Repeated numeric fields may be packed or not.
class ProtoReader {
  constructor(buf) { this.buf = buf; this.pos = 0; }

  get done() { return this.pos >= this.buf.length; }

  // Varints are read as BigInt: int64 values and sign-extended negative int32s take up to 64 bits.
  varint() {
    let result = 0n;
    for (let shift = 0n; ; shift += 7n) {
      if (this.pos >= this.buf.length) throw new Error('truncated varint');
      if (shift > 63n) throw new Error('varint longer than 64 bits');
      const b = this.buf[this.pos++];
      result |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) return result;
    }
  }

  uint() { return Number(this.varint()); }

  bytes() {
    const len = this.uint();
    if (this.pos + len > this.buf.length) throw new Error('truncated field');
    const out = this.buf.subarray(this.pos, this.pos + len);
    this.pos += len;
    return out;
  }

  fixed(n) {
    if (this.pos + n > this.buf.length) throw new Error('truncated field');
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  skip(wireType) {
    switch (wireType) {
      case 0: this.varint(); break;
      case 1: this.fixed(8); break;
      case 2: this.bytes(); break;
      case 5: this.fixed(4); break;
      default: throw new Error(`unsupported protobuf wire type ${wireType}`);
    }
  }
}

// Appends one element (wire types 0/1/5) or a packed run of them (wire type 2) of a repeated field.
function readRepeated(reader, wireType, elementWire, out) {
  const readOne = (r) => {
    if (elementWire === 0) return r.varint();
    if (elementWire === 5) return r.fixed(4).readFloatLE(0);
    return r.fixed(8).readDoubleLE(0);
  };
  if (wireType === 2) {
    const packed = new ProtoReader(reader.bytes());
    while (!packed.done) out.push(readOne(packed));
  } else if (wireType === elementWire) {
    out.push(readOne(reader));
  } else {
    throw new Error(`unexpected wire type ${wireType} for a repeated field`);
  }
}

function readTensorProto(file) {
  const fail = (why) => { throw new Error(`${file}: ${why}`); };
  const t = { dims: [], dataType: 0, name: '', raw: null, float: [], int32: [], int64: [], double: [], uint64: [] };
  const reader = new ProtoReader(fs.readFileSync(file));
  try {
    while (!reader.done) {
      const key = reader.uint();
      const field = Math.floor(key / 8);
      const wire = key % 8;
      switch (field) {
        case 1: { const d = []; readRepeated(reader, wire, 0, d); t.dims.push(...d.map(Number)); break; }
        case 2: t.dataType = reader.uint(); break;
        case 4: readRepeated(reader, wire, 5, t.float); break;
        case 5: readRepeated(reader, wire, 0, t.int32); break;
        case 6: reader.skip(wire); t.strings = true; break;
        case 7: readRepeated(reader, wire, 0, t.int64); break;
        case 8: t.name = reader.bytes().toString('utf8'); break;
        case 9: t.raw = reader.bytes(); break;
        case 10: readRepeated(reader, wire, 1, t.double); break;
        case 11: readRepeated(reader, wire, 0, t.uint64); break;
        case 14: t.external = reader.uint() === 1; break;
        default: reader.skip(wire);
      }
    }
  } catch (e) {
    fail(`not a valid TensorProto (${e.message})`);
  }
  if (t.strings || t.dataType === 8) fail('string tensors are not supported');
  if (t.external) fail('tensors with external data are not supported');

  const type = TYPE_BY_ONNX[t.dataType];
  if (!type) fail(`unsupported TensorProto data_type ${t.dataType}`);
  const count = elementCount(t.dims);
  let data;
  if (t.raw) {
    data = typedFromBytes(type, t.raw);
  } else {
    // Without raw_data the values sit in the typed field the ONNX spec assigns to each data_type:
    // the narrow integer types, bool and float16 (as bits) all travel in int32_data.
    const { ctor } = TYPES[type];
    switch (type) {
      case 'float32': data = Float32Array.from(t.float); break;
      case 'float64': data = Float64Array.from(t.double); break;
      case 'int64': data = BigInt64Array.from(t.int64, (v) => BigInt.asIntN(64, v)); break;
      case 'uint64': data = BigUint64Array.from(t.uint64, (v) => BigInt.asUintN(64, v)); break;
      case 'uint32': data = Uint32Array.from(t.uint64, (v) => Number(BigInt.asUintN(32, v))); break;
      default: data = ctor.from(t.int32, (v) => Number(BigInt.asIntN(32, v)));
    }
  }
  if (data.length !== count) fail(`holds ${data.length} elements but its dims [${t.dims}] need ${count}`);
  return { type, dims: t.dims, data, name: t.name };
}

function readTensorFile(file) {
  if (!fs.existsSync(file)) throw new Error(`${file}: no such file`);
  const ext = path.extname(file).toLowerCase();
  if (ext === '.npy') return readNpy(file);
  if (ext === '.pb') return readTensorProto(file);
  throw new Error(`${file}: unknown input format (expected .npy or a TensorProto .pb)`);
}

// ---------------------------------------------------------------------------------------------------
// Peak and current resident memory of this process in MiB, from /proc/self/status. VmHWM is the
// kernel's own high-water mark, so unlike sampling it cannot miss a short-lived peak.
function procStatusMiB(field) {
  try {
    const m = new RegExp(`^${field}:\\s*(\\d+) kB`, 'm').exec(fs.readFileSync('/proc/self/status', 'utf8'));
    return m ? Number(m[1]) / 1024 : null;
  } catch {
    return null;
  }
}

const USAGE = `usage: node ort-run.js --model M.onnx --input [name=]file.{npy,pb} [--input ...]
       [--threads N] [--iterations N] [--warmup N] [--output-dir DIR] [--json]
  --threads N      intra-op threads (default 1); inter-op is always 1, execution sequential
  --iterations N   timed runs (default 50)
  --warmup N       untimed runs before them (default 5)
  --output-dir DIR write each output of the last run as DIR/<name>.npy
  --json           print one JSON object instead of text`;

class UsageError extends Error {}

function parseArgs(argv) {
  const opts = { model: null, inputs: [], threads: 1, iterations: 50, warmup: 5, outputDir: null, json: false };
  const count = (flag, v, min) => {
    if (!/^\d+$/.test(v ?? '') || Number(v) < min) throw new UsageError(`${flag} needs an integer >= ${min}, not '${v}'`);
    return Number(v);
  };
  for (let i = 0; i < argv.length; i++) {
    let arg = argv[i];
    let value;
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    if (eq > 0) { value = arg.slice(eq + 1); arg = arg.slice(0, eq); }
    const next = () => {
      if (value !== undefined) return value;
      if (i + 1 >= argv.length) throw new UsageError(`${arg} needs a value`);
      return argv[++i];
    };
    switch (arg) {
      case '--model': opts.model = next(); break;
      case '--input': opts.inputs.push(next()); break;
      case '--threads': opts.threads = count(arg, next(), 1); break;
      case '--iterations': opts.iterations = count(arg, next(), 1); break;
      case '--warmup': opts.warmup = count(arg, next(), 0); break;
      case '--output-dir': opts.outputDir = next(); break;
      case '--json': opts.json = true; break;
      case '-h': case '--help': console.log(USAGE); process.exit(0); break;
      default: throw new UsageError(`unknown argument '${argv[i]}'`);
    }
  }
  if (!opts.model) throw new UsageError('--model is required');
  return opts;
}

// Pairs each --input with a model input. "name=file" is taken as named only when name is one of
// the model's inputs, so that a file name containing '=' still works as a positional input.
function bindInputs(specs, inputNames) {
  const named = new Map();
  const positional = [];
  for (const spec of specs) {
    const eq = spec.indexOf('=');
    const name = eq > 0 ? spec.slice(0, eq) : null;
    if (name !== null && inputNames.includes(name)) {
      if (named.has(name)) throw new UsageError(`input '${name}' given twice`);
      named.set(name, spec.slice(eq + 1));
    } else if (name !== null && !fs.existsSync(spec)) {
      throw new UsageError(`model has no input '${name}' (its inputs: ${inputNames.join(', ')})`);
    } else {
      positional.push(spec);
    }
  }
  const free = inputNames.filter((n) => !named.has(n));
  if (positional.length > free.length) {
    throw new UsageError(`${specs.length} inputs given, the model has ${inputNames.length} (${inputNames.join(', ')})`);
  }
  positional.forEach((file, i) => named.set(free[i], file));
  const missing = inputNames.filter((n) => !named.has(n));
  if (missing.length) throw new UsageError(`no file for model input(s) ${missing.join(', ')}`);
  return inputNames.map((n) => [n, named.get(n)]);
}

// Catches a wrong file early, with the file's name in the message, rather than in onnxruntime.
function checkAgainstModel(name, file, tensor, meta) {
  if (!meta || !meta.isTensor) return;
  if (meta.type !== tensor.type) {
    throw new Error(`${file}: input '${name}' must be ${meta.type}, the file holds ${tensor.type}`);
  }
  const shape = meta.shape || [];
  const fits = shape.length === tensor.dims.length
    && shape.every((d, i) => typeof d !== 'number' || d < 0 || d === tensor.dims[i]);
  if (shape.length && !fits) {
    throw new Error(`${file}: input '${name}' must have shape [${shape}], the file has [${tensor.dims}]`);
  }
}

function median(sorted) {
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

async function main() {
  // Measured before onnxruntime loads, so that node's own footprint can be told apart from the peak.
  const baselineRssMiB = procStatusMiB('VmRSS');
  const opts = parseArgs(process.argv.slice(2));

  let ort;
  try {
    ort = require('onnxruntime-node');
  } catch (e) {
    throw new Error(`cannot load onnxruntime-node (run utils/bench/setup-ort.sh): ${e.message}`);
  }
  if (!fs.existsSync(opts.model)) throw new Error(`${opts.model}: no such file`);

  const session = await ort.InferenceSession.create(opts.model, {
    executionProviders: ['cpu'],
    intraOpNumThreads: opts.threads,
    // One op at a time, so the thread count means the same thing as ember's.
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
    // Warnings (e.g. about unused initializers) would clutter a benchmark log; errors still show.
    logSeverityLevel: 3,
  });

  const meta = new Map((session.inputMetadata || []).map((m) => [m.name, m]));
  const feeds = {};
  for (const [name, file] of bindInputs(opts.inputs, session.inputNames)) {
    const t = readTensorFile(file);
    checkAgainstModel(name, file, t, meta.get(name));
    feeds[name] = new ort.Tensor(t.type, t.data, t.dims);
  }

  for (let i = 0; i < opts.warmup; i++) await session.run(feeds);
  // Each sample covers session.run as a caller sees it, including onnxruntime-node's hop through
  // setImmediate and the copy of the outputs into JS arrays (tens of microseconds).
  const times = [];
  let outputs;
  for (let i = 0; i < opts.iterations; i++) {
    const t0 = process.hrtime.bigint();
    outputs = await session.run(feeds);
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }

  const written = [];
  if (opts.outputDir) {
    fs.mkdirSync(opts.outputDir, { recursive: true });
    for (const name of session.outputNames) {
      const t = outputs[name];
      // Output names may hold '/' or ':' (e.g. "logits:0"), which can't go into a file name as is.
      const file = path.join(opts.outputDir, `${name.replace(/[^\w.-]/g, '_')}.npy`);
      writeNpy(file, t.type, t.dims, t.data);
      written.push(file);
    }
  }

  const sorted = [...times].sort((a, b) => a - b);
  const result = {
    model: opts.model,
    runtime: `onnxruntime-node ${require('onnxruntime-node/package.json').version}`,
    threads: opts.threads,
    warmup: opts.warmup,
    iterations: opts.iterations,
    median_ms: median(sorted),
    min_ms: sorted[0],
    mean_ms: times.reduce((a, b) => a + b, 0) / times.length,
    max_ms: sorted[sorted.length - 1],
    peak_rss_mib: procStatusMiB('VmHWM'),
    baseline_rss_mib: baselineRssMiB,
    outputs: Object.fromEntries(session.outputNames.map((n) => [n, { type: outputs[n].type, dims: outputs[n].dims }])),
    output_files: written,
  };
  await session.release();

  if (opts.json) {
    console.log(JSON.stringify(result));
    return;
  }
  const ms = (v) => v.toFixed(3);
  const mib = (v) => (v === null ? 'n/a' : `${v.toFixed(1)} MiB`);
  console.log(`model      ${result.model} (${result.runtime})`);
  console.log(`threads    ${result.threads} intra-op, 1 inter-op, sequential`);
  console.log(`runs       ${result.warmup} warm-up + ${result.iterations} timed`);
  console.log(`latency    median ${ms(result.median_ms)} ms, min ${ms(result.min_ms)} ms, `
    + `mean ${ms(result.mean_ms)} ms, max ${ms(result.max_ms)} ms`);
  console.log(`memory     peak RSS ${mib(result.peak_rss_mib)} (node alone ${mib(result.baseline_rss_mib)})`);
  for (const [n, o] of Object.entries(result.outputs)) console.log(`output     ${n}: ${o.type} [${o.dims}]`);
  for (const f of written) console.log(`wrote      ${f}`);
}

module.exports = { readNpy, writeNpy, readTensorProto, readTensorFile, TYPES };

if (require.main === module) {
  main().catch((e) => {
    console.error(`ort-run: ${e.message}`);
    if (e instanceof UsageError) console.error(USAGE);
    process.exit(e instanceof UsageError ? 2 : 1);
  });
}
