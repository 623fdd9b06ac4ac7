// One QuickJS wasm instance per script run, created inside the workflow without leaving the activation.
import QuickJSEmscriptenModule from '@jitl/quickjs-wasmfile-release-sync/emscripten-module';
import { QuickJSFFI } from '@jitl/quickjs-wasmfile-release-sync/ffi';
import { QuickJSWASMModule } from 'quickjs-emscripten-core';
import { quickJsWasmModule, wasmApi } from './quickjs-module';

const wasmPageBytes = 64 * 1024;
/** The build's initial memory (16 MB): its floor, since the wasm refuses a smaller memory. */
const initialPages = 256;

/**
 * A fresh QuickJS (its own heap, so replays see the same allocations) whose linear memory cannot grow past
 * `memoryBytes` (16 MB at least): the hard memory cap (QuickJS's own setMemoryLimit undercounts big strings in this build).
 * Settles in microtasks only: the instance is created synchronously from the precompiled module, with no
 * `WebAssembly.instantiate` (a macrotask) and no dynamic import (what quickjs-emscripten's own loaders use).
 */
export async function newQuickJsInstance(memoryBytes: number): Promise<QuickJSWASMModule> {
  const maximum = Math.max(initialPages, Math.floor(memoryBytes / wasmPageBytes));
  const wasmMemory = new wasmApi.Memory({ initial: initialPages, maximum });
  const emscripten = await QuickJSEmscriptenModule({
    wasmMemory: wasmMemory as never,
    instantiateWasm(imports, onSuccess) {
      const instance = new wasmApi.Instance(quickJsWasmModule, imports);
      onSuccess(instance as never);
      return instance.exports as never;
    },
    // Emscripten prints aborts through these; the run reports them as its own error instead.
    print() {},
    printErr() {},
  } as Parameters<typeof QuickJSEmscriptenModule>[0]);
  // What quickjs-emscripten's newQuickJSWASMModuleFromVariant sets for a sync build.
  (emscripten as { type?: string }).type = 'sync';
  return new QuickJSWASMModule(emscripten, new QuickJSFFI(emscripten));
}
