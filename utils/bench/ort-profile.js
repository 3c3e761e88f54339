#!/usr/bin/env node
// Per-node kernel times of one ONNX model under onnxruntime (CPU, onnxruntime-node, one thread):
// onnxruntime's own profiler (enableProfiling), each node's median over the timed runs, printed
// as JSON {node: {op, ms}}. utils/bench/compare-layers.py joins it with ember's -profile.
//
//   node utils/bench/ort-profile.js MODEL.onnx INPUT.{npy,pb} [RUNS]
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const { readTensorFile } = require('./ort-run.js');

async function main() {
  const [model, input, runsArg] = process.argv.slice(2);
  if (!model || !input) throw new Error('usage: ort-profile.js MODEL.onnx INPUT.{npy,pb} [RUNS]');
  const runs = Number(runsArg || 60), warmup = 5;
  const ort = require('onnxruntime-node');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ort-profile-'));
  const session = await ort.InferenceSession.create(model, {
    executionProviders: ['cpu'],
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
    enableProfiling: true,
    profileFilePrefix: path.join(dir, 'profile'),
    logSeverityLevel: 3,
  });
  const t = readTensorFile(input);
  const feeds = { [session.inputNames[0]]: new ort.Tensor(t.type, t.data, t.dims) };
  for (let i = 0; i < warmup + runs; ++i) await session.run(feeds);
  session.endProfiling();
  const file = fs.readdirSync(dir).find((f) => f.endsWith('.json'));
  const events = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
  fs.rmSync(dir, { recursive: true });
  // Each run records one "<node>_kernel_time" event per node; the first `warmup` are dropped.
  const times = new Map();
  for (const e of events) {
    if (e.cat !== 'Node' || !e.name.endsWith('_kernel_time')) continue;
    const name = e.name.slice(0, -'_kernel_time'.length);
    if (!times.has(name)) times.set(name, { op: e.args.op_name, us: [] });
    times.get(name).us.push(e.dur);
  }
  const out = {};
  for (const [name, { op, us }] of times) {
    const timed = us.slice(warmup).sort((a, b) => a - b);
    out[name] = { op, ms: timed[Math.floor(timed.length / 2)] / 1000 };
  }
  console.log(JSON.stringify(out));
}

main().catch((e) => {
  console.error(`ort-profile: ${e.message}`);
  process.exit(1);
});
