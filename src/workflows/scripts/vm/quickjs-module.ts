// QuickJS's wasm compiled once per worker (a preloaded module): a compiled WebAssembly.Module is immutable, so runs share it.
import wasmBase64 from '@jitl/quickjs-wasmfile-release-sync/wasm';
import { decodeBase64 } from './base64';

/** A compiled wasm module (opaque here). */
export type WasmModule = object;

/** The part of the WebAssembly API the VM uses: the project's ES2022 lib declares none of it. */
export interface WasmApi {
  Module: new (bytes: Uint8Array) => WasmModule;
  Instance: new (module: WasmModule, imports: object) => { exports: object };
  Memory: new (descriptor: { initial: number; maximum: number }) => object;
}

/** The sandbox's (or Node's) WebAssembly: the workflow vm context has it, and its Module and Instance are synchronous. */
export const wasmApi = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

/** QuickJS (quickjs-emscripten 0.32, release-sync build), compiled; each script run instantiates it afresh. */
export const quickJsWasmModule: WasmModule = new wasmApi.Module(decodeBase64(wasmBase64));
